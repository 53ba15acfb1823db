"""A real MCP server (the official SDK over stdio) whose tools take paths under other
names than ``path``: through the console script, with ``--allow 'fs__*'`` and no one to
ask, nothing reads ``.env`` or writes what runs later or outside the workspace
(findings J14-J16); what the checks do not cover still runs."""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from .conftest import RunCli

SERVER = Path(__file__).resolve().parent / "fs_mcp_server.py"


def test_mcp_path_arguments_meet_the_secret_runs_later_and_boundary_checks(
    run_cli: RunCli, cli_env: dict[str, str], script: Callable[[list[Any]], str], workspace: Path
) -> None:
    config = Path(cli_env["AGENT_SHELL_CONFIG_DIR"])
    config.mkdir(parents=True, exist_ok=True)
    (config / "config.toml").write_text(
        f"[mcp_servers.fs]\ncommand = {json.dumps(sys.executable)}\nargs = [{json.dumps(str(SERVER))}]\n"
        'cwd = "workspace"\n'  # it reads relative paths from where it runs
    )
    (workspace / ".git").mkdir()
    (workspace / ".git" / "config").write_text("[core]\n")
    (workspace / ".env").write_text("API_KEY=sk-live-ZZZ123\n")
    (workspace / "README").write_text("readme-text\n")
    outside = workspace.parent / "other" / "planted.txt"
    outside.parent.mkdir()
    (outside.parent / "private_notes.txt").write_text("SECRET-other-project-notes\n")
    calls = [
        ("fs__cat", {"file": ".env"}),
        ("fs__cat_many", {"paths": ["README", "./.env"]}),
        ("fs__cat_uri", {"uri": f"file://{workspace}/.env"}),
        ("fs__write_file", {"path": ".git/config", "content": "[core]\n\tfsmonitor = touch PWNED\n"}),
        ("fs__write_file", {"path": str(outside), "content": "planted"}),
        ("fs__read_file", {"path": "../other/private_notes.txt"}),
        ("fs__cat", {"file": "README"}),
        ("fs__write_file", {"path": "notes.txt", "content": "fine"}),
    ]
    model = script([{"text": "go", "tool_calls": [{"name": n, "args": a} for n, a in calls]}, "done"])
    r = run_cli("-p", "go", "--model", model, "--allow", "fs__*", "--approve", "never",
                "--output-format", "json", "--no-session")
    assert r.returncode == 0, r.stderr
    assert "sk-live-ZZZ123" not in r.stdout
    assert (workspace / ".git" / "config").read_text() == "[core]\n"
    assert not outside.exists()
    assert "SECRET-other-project-notes" not in r.stdout
    assert "readme-text" in r.stdout  # what no check covers runs under the allow rule
    assert (workspace / "notes.txt").read_text() == "fine"
