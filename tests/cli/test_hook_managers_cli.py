"""Findings U6, U11, U12, U15, U16 and V14 through the console script, bubblewrap and a real
git repository: files the next commit (or the editor) runs, by names the guard missed (task's
``Taskfile.dist.yml``, just's ``JUSTFILE``, yorkie's, ghooks', nano-staged's and the
``pre-commit`` package's keys of ``package.json``, CaptainHook's, GrumPHP's, rusty-hook's,
hk's and overcommit's configs, lefthook's ``.lefthook-local/`` and ``source_dir``, Babel's and
PostCSS's other JavaScript names), which ``auto`` mode's unasked command could change unsaid;
and ``/export PATH --force`` into a git hook or ``.envrc``, which the next checkout or ``cd``
would run line by line."""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ..sandboxing import require_sandbox
from .conftest import RunCli
from .terminal import Terminal
from .test_commit_runs_cli import run
from .test_hook_configs_cli import committed

Script = Callable[[list[Any]], str]


def test_the_task_files_a_hook_runs_by_their_other_names_stay_as_they_were(
    run_cli: RunCli, script: Script, workspace: Path
) -> None:
    """U6: with no Taskfile.yml, ``task lint`` runs Taskfile.dist.yml; just finds ``JUSTFILE``."""
    require_sandbox()
    files = {".husky/pre-commit": "task lint\njust lint\n",
             "Taskfile.dist.yml": "version: '3'\nincludes:\n  docs:\n    taskfile: ./docs\n  api: ./api\n"
                                  "tasks:\n  lint:\n    cmds: [true]\n",
             "docs/taskfile.dist.yaml": "version: '3'\ntasks:\n  x:\n    cmds: [true]\n",
             "api/Taskfile.yml": "version: '3'\n",
             "JUSTFILE": "mod tools\nlint:\n    true\n", "tools/Justfile": "x:\n    true\n"}
    committed(workspace, files)
    subprocess.run(["git", "config", "core.hooksPath", ".husky"], cwd=workspace, check=True)
    out = run(run_cli, script, "for f in Taskfile.dist.yml docs/taskfile.dist.yaml api/Taskfile.yml JUSTFILE "
                               "tools/Justfile; "
                               "do printf '    touch PWNED\\n' >> $f; done; echo ok > notes.txt; true")
    for name, text in files.items():
        assert (workspace / name).read_text() == text, name
    assert (workspace / "notes.txt").read_text() == "ok\n"
    assert "Taskfile.dist.yml" in out


def test_package_json_keys_other_hook_managers_run_are_set_back(
    run_cli: RunCli, script: Script, workspace: Path
) -> None:
    """U11: yorkie's gitHooks, the pre-commit package's list (and the script it names),
    nano-staged and config.ghooks run at the next commit; the version bump is kept."""
    require_sandbox()
    package = {"version": "1.0.0", "scripts": {"lint": "eslint .", "build": "tsc"},
               "gitHooks": {"pre-commit": "lint-staged"}, "pre-commit": ["lint"],
               "nano-staged": {"*.js": "prettier --write"},
               "config": {"ghooks": {"pre-commit": "npm run build"}, "port": 8080}}
    committed(workspace, {"package.json": json.dumps(package, indent=2) + "\n"})
    changed = {**package, "version": "1.0.1", "scripts": {"lint": "touch PWNED", "build": "tsc"},
               "gitHooks": {"pre-commit": "touch PWNED"}, "pre-commit": ["x"],
               "nano-staged": {"*.js": "touch PWNED"},
               "config": {"ghooks": {"pre-commit": "touch PWNED"}, "port": 9090}}
    run(run_cli, script, f"cat > package.json <<'EOF'\n{json.dumps(changed, indent=2)}\nEOF\ntrue")
    now = json.loads((workspace / "package.json").read_text())
    assert now["version"] == "1.0.1"  # the rest of the file stays the command's
    assert now["config"]["port"] == 9090
    for key in ("gitHooks", "pre-commit", "nano-staged"):
        assert now[key] == package[key], key
    assert now["config"]["ghooks"] == package["config"]["ghooks"]
    assert now["scripts"]["lint"] == "eslint ."  # the script the pre-commit list names


def test_hook_managers_configs_and_folders_are_guarded(
    run_cli: RunCli, script: Script, workspace: Path
) -> None:
    """U12, U16: each of these names what runs at the next commit; a new one is moved out."""
    require_sandbox()
    files = {"captainhook.json": '{"pre-commit": {"enabled": true, "actions": [{"action": "phpunit"}]}}\n',
             "grumphp.yml": "grumphp:\n  tasks: {phpunit: ~}\n", ".rusty-hook.toml": "[hooks]\npre-commit = "
             '"cargo test"\n', "hk.pkl": 'hooks { ["pre-commit"] { steps { ["x"] { check = "true" } } } }\n',
             ".overcommit.yml": "PreCommit:\n  X:\n    enabled: true\n    command: ['true']\n",
             ".pre-commit-config.yaml": "repos: []\n", ".githooks/pre-commit": "#!/bin/sh\ntrue\n",
             "lefthook.yml": "source_dir: hooks-src/\npre-commit:\n  scripts:\n    check.sh:\n"
                             "      runner: bash\n"}
    committed(workspace, files)
    subprocess.run(["git", "config", "core.hooksPath", ".githooks"], cwd=workspace, check=True)
    planted = [".lefthook-local/pre-commit/check.sh", "hooks-src/pre-commit/check.sh", "lefthook-local.yml",
               ".git-hooks/pre_commit/x.rb", "grumphp.yml.dist", "hk.local.pkl",
               ".cargo-husky/hooks/pre-commit", ".rusty-hook.toml.new"]
    appends = " ".join(f"echo '# PWNED' >> {name};" for name in files)
    creates = " ".join(f"mkdir -p $(dirname {p}); echo 'touch PWNED' > {p};" for p in planted)
    out = run(run_cli, script, f"{appends} {creates} true")
    for name, text in files.items():
        assert (workspace / name).read_text() == text, name
    for name in planted[:-1]:
        assert not (workspace / name).exists(), name
    assert (workspace / ".rusty-hook.toml.new").exists()  # another name: an ordinary file
    assert "captainhook.json" in out and ".lefthook-local" in out


def test_babel_and_postcss_configs_by_their_loaders_names_are_guarded(
    run_cli: RunCli, script: Script, workspace: Path
) -> None:
    """U15: Babel reads .babelrc.{js,cjs,mjs,cts}; postcss-load-config .postcssrc.{js,cjs,mjs,ts,mts,cts}."""
    require_sandbox()
    committed(workspace, {"package.json": "{}\n", ".postcssrc.js": "module.exports = {};\n"})
    names = [".babelrc.cjs", ".babelrc.mjs", ".babelrc.cts", ".postcssrc.mjs", ".postcssrc.cjs",
             ".postcssrc.ts", ".postcssrc.mts", ".nano-staged.js", ".nanostagedrc"]
    run(run_cli, script, "echo 'require(\"child_process\")' >> .postcssrc.js; "
        + " ".join(f"echo 'require(\"child_process\")' > {n};" for n in names) + " true")
    assert (workspace / ".postcssrc.js").read_text() == "module.exports = {};\n"
    for name in names:
        assert not (workspace / name).exists(), name


def test_export_refuses_a_file_that_runs_later_even_with_force(
    cli_env: dict[str, str], workspace: Path, script: Script
) -> None:
    """V14: an export over ``.git/hooks/post-checkout`` ran the conversation at the next
    checkout; over an ordinary executable it is written, and no longer executable."""
    committed(workspace, {"README.md": "x\n", "run.sh": "#!/bin/sh\ntrue\n"})
    hook = workspace / ".git" / "hooks" / "post-checkout"
    hook.write_text("#!/bin/sh\ntrue\n")
    for path in (hook, workspace / "run.sh"):
        path.chmod(0o755)
    term = Terminal([sys.executable, "-m", "shell", "--plain", "--model", script(["hello"]), "--no-session",
                     "hi"], cli_env, workspace)
    term.wait_for("hello")
    term.type("/export .git/hooks/post-checkout --force\r")
    at = term.wait_for("nothing was written")
    term.type("/export .envrc --force\r")
    at = term.wait_for("direnv runs when you enter the directory", after=at)
    term.type("/export run.sh --force\r")
    term.wait_for("Exported 2 messages to", after=at)
    term.type("/quit\r")
    assert term.close() == 0
    assert hook.read_text() == "#!/bin/sh\ntrue\n"
    assert not (workspace / ".envrc").exists()
    assert "## Assistant\n\nhello" in (workspace / "run.sh").read_text()
    assert not os.stat(workspace / "run.sh").st_mode & (stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)


def test_postcss_data_configs_plugins_are_set_back(run_cli: RunCli, script: Script, workspace: Path) -> None:
    """U15: postcss-load-config's JSON and YAML forms (and package.json's ``postcss``) name the
    plugins it requires; the command's other edits stay."""
    require_sandbox()
    package = {"version": "1.0.0", "postcss": {"plugins": {"autoprefixer": {}}}}
    committed(workspace, {".postcssrc.json": '{"plugins": {"autoprefixer": {}}, "map": false}\n',
                          "package.json": json.dumps(package, indent=2) + "\n"})
    changed = {"version": "1.0.1", "postcss": {"plugins": {"./evil.js": {}}}}
    run(run_cli, script, "echo '{\"plugins\": {\"./evil.js\": {}}, \"map\": true}' > .postcssrc.json; "
        f"cat > package.json <<'EOF'\n{json.dumps(changed, indent=2)}\nEOF\ntrue")
    assert json.loads((workspace / ".postcssrc.json").read_text()) == {"plugins": {"autoprefixer": {}},
                                                                       "map": True}
    now = json.loads((workspace / "package.json").read_text())
    assert now == {"version": "1.0.1", "postcss": {"plugins": {"autoprefixer": {}}}}


def test_scripts_other_hook_managers_configs_name_stay_as_they_were(
    run_cli: RunCli, script: Script, workspace: Path
) -> None:
    """U12: CaptainHook's action, rusty-hook's command and hk's step run these scripts at
    the next commit; a script none names stays writable."""
    require_sandbox()
    named = ["tools/check.sh", "tools/r.sh", "tools/hk.sh", "tools/fix.sh"]
    committed(workspace, {
        "captainhook.json": '{"pre-commit": {"enabled": true, "actions": [{"action": "./tools/check.sh"}]}}',
        ".rusty-hook.toml": '[hooks]\npre-commit = "sh tools/r.sh"\n',
        "hk.pkl": 'hooks { ["pre-commit"] { steps { ["x"] { check = "tools/hk.sh {{files}}"\n'
                  '  fix = """\n  tools/fix.sh\n"""\n} } } }\n',
        **{name: "#!/bin/sh\ntrue\n" for name in [*named, "tools/other.sh"]}})
    run(run_cli, script, 'for f in tools/*.sh; do echo "touch PWNED" >> $f; done; true')
    for name in named:
        assert (workspace / name).read_text() == "#!/bin/sh\ntrue\n", name
    assert (workspace / "tools" / "other.sh").read_text().endswith("touch PWNED\n")
