"""Finding Q21 through the console script: in ``bypass`` mode, with
``deny = ["read_file(secrets/**)"]``, ``git show HEAD:secrets/plan.txt`` (a line naming a
read-denied path) ran and printed the committed file, while README says deny rules "still
hold" in bypass and that such a line "asks in every mode". It asks in bypass too (refused
under ``--approve never``), as do git's history readers while git tracks a denied path;
other commands still run unasked."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ..permissions.later_ws import git
from ..sandboxing import require_sandbox
from .conftest import RunCli

PLAN = "TOPSECRETPLAN-4f1d"


def test_bypass_asks_before_a_line_naming_a_read_denied_path(
    run_cli: RunCli, cli_env: dict[str, str], script: Callable[[list[Any]], str], workspace: Path
) -> None:
    require_sandbox()
    config = Path(cli_env["AGENT_SHELL_CONFIG_DIR"])
    config.mkdir(parents=True, exist_ok=True)
    (config / "config.toml").write_text('[permissions]\ndeny = ["read_file(secrets/**)"]\n')
    (workspace / "secrets").mkdir()
    (workspace / "secrets" / "plan.txt").write_text(f"{PLAN}\n")
    (workspace / "README.md").write_text("hello\n")
    git(workspace, "init", "-q")
    git(workspace, "add", "-A")
    git(workspace, "commit", "-qm", "start")
    calls = [("c1", "git show HEAD:secrets/plan.txt"), ("c2", "git log -p | cat"), ("c3", "echo ran-ok")]
    turns = [{"tool_calls": [{"name": "run_shell", "args": {"command": c}, "id": i} for i, c in calls]},
             "Done."]
    r = run_cli("-p", "go", "--model", script(turns), "--permission-mode", "bypass", "--approve", "never",
                "--no-session", "--output-format", "json")
    assert r.returncode == 0, r.stderr
    assert PLAN not in r.stdout
    results = [str(m["content"]) for m in json.loads(r.stdout)["messages"] if m.get("role") == "tool"]
    assert len(results) == 3, results
    for asked in results[:2]:  # asked, so refused under --approve never
        assert "--approve never" in asked and "was not run" in asked, results
    assert "ran-ok" in results[2], results  # bypass runs the rest unasked
