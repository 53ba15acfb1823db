"""Findings Q14 and Q7 through the console script, bubblewrap and a real git repository:
what a commit hook runs, written where the hook frameworks let it be written (a flow-style
``.pre-commit-config.yaml``, ``lefthook.json``, a ``bash -c`` string), cannot be changed
by ``auto`` mode's unasked commands: the user's next ``git commit`` would run it."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from ..permissions.later_ws import git
from ..sandboxing import require_sandbox
from .conftest import RunCli

SCRIPT = "#!/bin/sh\ntrue\n"


def committed(workspace: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        (workspace / name).parent.mkdir(parents=True, exist_ok=True)
        (workspace / name).write_text(text)
    git(workspace, "init", "-q")
    git(workspace, "add", "-A")
    git(workspace, "commit", "-qm", "init")


def run(run_cli: RunCli, script: Callable[[list[Any]], str], command: str) -> None:
    turns = [{"tool_calls": [{"name": "run_shell", "args": {"command": command}}]}, "Done."]
    r = run_cli("-p", "go", "--model", script(turns), "--permission-mode", "auto", "--approve", "never",
                "--no-session", "--output-format", "json")
    assert r.returncode == 0, r.stderr


def test_scripts_named_in_flow_style_json_or_a_shell_string_stay_as_they_were(
    run_cli: RunCli, script: Callable[[list[Any]], str], workspace: Path
) -> None:
    require_sandbox()
    named = ["scripts/b.sh", "scripts/i.sh", "scripts/a.sh", "scripts/e.sh"]
    committed(workspace, {
        ".pre-commit-config.yaml": "repos:\n  - repo: local\n    hooks:\n"
        "      - {id: b, name: b, entry: env FOO=1 scripts/b.sh, language: system}\n"
        "      - {id: i, name: i, entry: timeout 60 scripts/i.sh, language: system}\n"
        "      - id: a\n        entry: bash -c \"scripts/a.sh && true\"\n        language: system\n",
        "lefthook.json": '{"pre-commit":{"commands":{"x":{"run":"scripts/e.sh {staged_files}"}}}}',
        **{name: SCRIPT for name in [*named, "scripts/other.sh"]}})
    run(run_cli, script, 'for f in scripts/*.sh; do echo "touch PWNED" >> $f; done; true')
    for name in named:
        assert (workspace / name).read_text() == SCRIPT, name
    assert (workspace / "scripts" / "other.sh").read_text().endswith("touch PWNED\n")


def test_a_package_script_and_a_make_target_a_hook_runs_stay_as_they_were(
    run_cli: RunCli, script: Callable[[list[Any]], str], workspace: Path
) -> None:
    """Q7: ``.husky/pre-commit`` runs ``npm test`` and ``make lint``: "scripts.test" is set
    back (the command's other edits of package.json kept), the Makefile is read-only."""
    require_sandbox()
    package = ('{\n  "version": "1.0.0",\n  "scripts": {\n    "test": "node scripts/t.js",\n'
               '    "build": "tsc"\n  }\n}\n')
    committed(workspace, {".husky/pre-commit": "npm test\nmake lint\n", "package.json": package,
                          "Makefile": "lint:\n\tsh scripts/lint.sh\n", "scripts/t.js": "0;\n",
                          "scripts/lint.sh": SCRIPT})
    run(run_cli, script, "sed -i -e 's#node scripts/t.js#touch PWNED; node scripts/t.js#' "
                         "-e 's#1.0.0#1.0.1#' package.json; "
                         "printf 'lint:\\n\\ttouch PWNED\\n' > Makefile; true")
    assert (workspace / "package.json").read_text() == package.replace("1.0.0", "1.0.1")
    assert (workspace / "Makefile").read_text() == "lint:\n\tsh scripts/lint.sh\n"
