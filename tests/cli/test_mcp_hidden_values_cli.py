"""Finding X15 through the console script: an MCP server's ``search`` read the hidden
``.env`` without naming it and its values reached ``-p``'s output and the session file,
as text, as a text blob and as structured content. They are redacted now, with the
values net's note; a call that names ``.env`` itself (asked about, approved) shows it
as it is, as ``read_file`` shows the file it read."""

from __future__ import annotations

import base64
import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from .conftest import RunCli

SERVER = Path(__file__).resolve().parents[1] / "tools" / "workspace_reader_mcp_server.py"
PASSWORD = "Xk9mP2vQ7wLr4Tz8hunter"
TOKEN = "Qm7Lp2Wx9Rt4Zs8Vn3Ky6Hb1"


def _configure(cli_env: dict[str, str], workspace: Path) -> None:
    (workspace / ".env").write_text(f"DB_PASSWORD={PASSWORD}\nAPI_TOKEN={TOKEN}\n")
    (workspace / "main.py").write_text("print(1)\n")
    config = Path(cli_env["AGENT_SHELL_CONFIG_DIR"])
    config.mkdir(parents=True, exist_ok=True)
    (config / "config.toml").write_text(
        f"[mcp_servers.ws]\ncommand = {json.dumps(sys.executable)}\n"
        f"args = [{json.dumps(str(SERVER))}, {json.dumps(str(workspace))}]\n")


def _results(stdout: str) -> list[str]:
    messages = json.loads(stdout)["messages"]
    return [json.dumps(m["content"]) for m in messages if m["type"] == "ToolResultMessage"]


def test_an_mcp_search_gives_no_value_of_the_hidden_env(
    run_cli: RunCli, cli_env: dict[str, str], workspace: Path, script: Callable[[list[Any]], str]
) -> None:
    _configure(cli_env, workspace)
    model = script([{"tool_calls": [{"name": "ws__search", "args": {"q": "x"}}]}, "Done."])
    r = run_cli("-p", "go", "--model", model, "--approve", "always", "--output-format", "json")
    assert r.returncode == 0, r.stderr
    [session] = (Path(cli_env["AGENT_SHELL_DATA_DIR"]) / "sessions").glob("*.jsonl")
    for text in (r.stdout, session.read_text()):
        for value in (PASSWORD, TOKEN, base64.b64encode(PASSWORD.encode()).decode()[:20]):
            assert value not in text
    [result] = _results(r.stdout)
    assert "print(1)" in result  # the rest of the answer is kept
    assert "of hidden secret files (.env) were redacted" in result


def test_an_mcp_call_naming_the_env_the_user_approved_shows_it_as_it_is(
    run_cli: RunCli, cli_env: dict[str, str], workspace: Path, script: Callable[[list[Any]], str]
) -> None:
    _configure(cli_env, workspace)
    model = script([{"tool_calls": [{"name": "ws__read", "args": {"path": ".env"}}]}, "Done."])
    r = run_cli("-p", "go", "--model", model, "--approve", "always", "--output-format", "json")
    assert r.returncode == 0, r.stderr
    [result] = _results(r.stdout)
    assert PASSWORD in result and "redacted" not in result
