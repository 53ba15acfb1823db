"""Hostile MCP servers (tests/tools/hostile_mcp_server.py, real processes over stdio)
met through the console script: what the person running it is told, on one line."""

from __future__ import annotations

import json
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from .conftest import RunCli
from .terminal import Terminal

SERVER = Path(__file__).resolve().parents[1] / "tools" / "hostile_mcp_server.py"
Script = Callable[[list[Any]], str]


def _configure(cli_env: dict[str, str], mode: str) -> None:
    config = Path(cli_env["AGENT_SHELL_CONFIG_DIR"])
    config.mkdir(parents=True, exist_ok=True)
    (config / "config.toml").write_text(
        f"[mcp_servers.evil]\ncommand = {json.dumps(sys.executable)}\n"
        f"args = [{json.dumps(str(SERVER))}, {json.dumps(mode)}]\n"
    )


def test_headless_says_on_stderr_which_listed_tool_was_skipped_and_keeps_the_rest(
    run_cli: RunCli, cli_env: dict[str, str], script: Script
) -> None:
    """A tools/list with one entry the SDK rejects (no name) failed the whole server:
    "the server's ListToolsResult is not valid MCP: tools.1.name: Field required", and
    the good tool was gone with it."""
    _configure(cli_env, "invalid_list")
    call = {"name": "evil__fine", "args": {"a": "x"}}
    model = script([{"text": "Calling.", "tool_calls": [call]}, "Done."])
    r = run_cli("-p", "go", "--model", model, "--approve", "always", "--output-format", "json", timeout=120)
    assert r.returncode == 0, r.stderr
    [line] = [ln for ln in r.stderr.splitlines() if "evil" in ln]
    assert line == ("agent-shell: MCP server evil: 1 tool not offered to the model (tool #2 of its list: it "
                    "has no name); tell the server's author")
    [result] = [m for m in json.loads(r.stdout)["messages"] if m["type"] == "ToolResultMessage"]
    assert result["content"] == 'echo {"a": "x"}'


def test_headless_says_what_a_server_that_exited_wrote_last_on_stderr(
    run_cli: RunCli, cli_env: dict[str, str], script: Script
) -> None:
    """The line said "the server process exited" and nothing of why."""
    _configure(cli_env, "crash")
    r = run_cli("-p", "hi", "--model", script(["Hi."]))
    assert r.returncode == 0, r.stderr
    [line] = [ln for ln in r.stderr.splitlines() if "evil" in ln]
    assert line.startswith("agent-shell: MCP server evil failed: the server process exited (its stderr ends: "
                           "fatal: no API token given); its tools are not in this run.")


def test_headless_names_the_tools_refused_for_their_schema(
    run_cli: RunCli, cli_env: dict[str, str], script: Script
) -> None:
    _configure(cli_env, "bad_schema")
    r = run_cli("-p", "hi", "--model", script(["Hi."]))
    assert r.returncode == 0, r.stderr
    [line] = [ln for ln in r.stderr.splitlines() if "evil" in ln]
    assert line.startswith("agent-shell: MCP server evil: 2 tools not offered to the model (evil__int_type: "
                           "its inputSchema is not valid JSON Schema, at properties.a.type: 5 is not valid")


def test_an_unreadable_answer_fails_the_call_promptly_without_a_traceback(
    run_cli: RunCli, cli_env: dict[str, str], script: Script
) -> None:
    _configure(cli_env, "garbage")
    call = {"name": "evil__echo", "args": {"a": "x"}}
    model = script([{"text": "Calling.", "tool_calls": [call]}, "Done."])
    started = time.monotonic()
    r = run_cli("-p", "go", "--model", model, "--approve", "always", "--output-format", "json", timeout=120)
    assert time.monotonic() - started < 100  # was the 600 s tool timeout
    assert r.returncode == 0, r.stderr
    assert "Traceback" not in r.stderr and "Failed to parse" not in r.stderr
    [result] = [m for m in json.loads(r.stdout)["messages"] if m["type"] == "ToolResultMessage"]
    assert result["content"].startswith(
        "Calling evil__echo failed: the MCP server 'evil' sent a line that is not JSON-RPC (Invalid JSON: "
        "expected ident at line 1 column 2), starting 'this is not json'; the result is lost."
    )


def test_the_line_mode_says_a_server_failed(
    cli_env: dict[str, str], workspace: Path, script: Script
) -> None:
    _configure(cli_env, "crash")
    command = [sys.executable, "-m", "shell", "--plain", "--model", script(["Hi."]), "--no-session", "hi"]
    term = Terminal(command, cli_env, workspace)
    said = term.wait_for("mcp evil: failed (the server process exited")
    term.wait_for("Hi.")
    term.wait_for("\u203a", after=said)  # the prompt, drawn again after the line
    term.type("/quit\r")
    code = term.close()
    assert code == 0, term.text[-2000:]


def test_headless_says_while_it_waits_for_a_stuck_server_and_gives_the_call_up(
    run_cli: RunCli, cli_env: dict[str, str], script: Script
) -> None:
    """A tool that never answers held `-p` for the SDK's 600 s with nothing on stdout or
    stderr (tester finding H4); now the waiting is said on stderr, the call ends at the
    server's `timeout`, and the reply goes on."""
    sdk = Path(__file__).resolve().parents[1] / "tools" / "sdk_mcp_server.py"
    config = Path(cli_env["AGENT_SHELL_CONFIG_DIR"])
    config.mkdir(parents=True, exist_ok=True)
    (config / "config.toml").write_text(
        f"[mcp_servers.sdk]\ncommand = {json.dumps(sys.executable)}\n"
        f"args = [{json.dumps(str(sdk))}, \"plain\"]\ntimeout = 3\n"
    )
    model = script([{"text": "Calling.", "tool_calls": [{"name": "sdk__slow", "args": {}}]}, "Done."])
    r = run_cli("-p", "go", "--model", model, "--approve", "always", timeout=120)
    assert r.returncode == 0, r.stderr
    assert "waiting for the MCP server 'sdk' (sdk__slow) for 1 s" in r.stderr
    assert "Traceback" not in r.stderr and r.stdout.strip().endswith("Done.")
