"""An MCP server that answers 2 MB (issue 14), through the console script with a real
server (the official SDK's MCPServer over stdio): the model, the output and the
session get the capped result with a note saying what was cut and how to get the rest."""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from shell.tools.mcp_results import MAX_RESULT_CHARS

from .conftest import RunCli

SERVER = Path(__file__).resolve().parents[1] / "tools" / "big_mcp_server.py"


def test_a_2_mb_mcp_result_is_capped_with_a_note(
    run_cli: RunCli, cli_env: dict[str, str], script: Callable[[list[Any]], str]
) -> None:
    config = Path(cli_env["AGENT_SHELL_CONFIG_DIR"])
    config.mkdir(parents=True, exist_ok=True)
    (config / "config.toml").write_text(
        f"[mcp_servers.big]\ncommand = {json.dumps(sys.executable)}\nargs = [{json.dumps(str(SERVER))}]\n"
    )
    model = script([{"text": "Dumping.", "tool_calls": [{"name": "big__dump", "args": {"lines": 20_000}}]},
                    "Done."])
    r = run_cli("-p", "dump it", "--model", model, "--approve", "always", "--output-format", "json")
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout)
    [result] = [m for m in out["messages"] if m["type"] == "ToolResultMessage"]
    text = result["content"] if isinstance(result["content"], str) else result["content"][0]["text"]
    assert "line 0000001 " in text and "line 0000297 " in text and "line 0000298" not in text  # whole lines
    assert len(text) <= MAX_RESULT_CHARS + 400
    assert (f"[MCP result of big__dump cut: the first 29,997 of 2,020,000 characters are shown (the cap is "
            f"{MAX_RESULT_CHARS:,}). To get the rest, call big__dump again asking for less or for the next "
            "part (a narrower query, a page, an offset or a limit, if its parameters take one).]") in text
    [session] = (Path(cli_env["AGENT_SHELL_DATA_DIR"]) / "sessions").glob("*.jsonl")
    assert session.stat().st_size < 4 * MAX_RESULT_CHARS  # was 4 MB: the text and the same as structured
