"""Finding X3 through the console script: an MCP server's own key came back cut over
two text blocks, base64/hex/reversed, in a text blob, a resource link and structured
content, and reached ``-p``'s output and the session file. None of it does now, and
the result says values were redacted."""

from __future__ import annotations

import base64
import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from .conftest import RunCli

SERVER = Path(__file__).resolve().parents[1] / "tools" / "spelled_mcp_server.py"
KEY = "sk-test-OUTERKEY0123456789abcdefgh"


def test_an_mcp_servers_key_in_other_spellings_reaches_no_one(
    run_cli: RunCli, cli_env: dict[str, str], script: Callable[[list[Any]], str]
) -> None:
    config = Path(cli_env["AGENT_SHELL_CONFIG_DIR"])
    config.mkdir(parents=True, exist_ok=True)
    (config / "config.toml").write_text(
        f"[mcp_servers.spelled]\ncommand = {json.dumps(sys.executable)}\nargs = [{json.dumps(str(SERVER))}]\n"
        f'env = {{ MY_API_KEY = "{KEY}" }}\n')
    model = script([{"tool_calls": [{"name": "spelled__leak", "args": {"x": "1"}}]}, "Done."])
    r = run_cli("-p", "go", "--model", model, "--approve", "always", "--output-format", "json")
    assert r.returncode == 0, r.stderr
    raw = KEY.encode()
    [session] = (Path(cli_env["AGENT_SHELL_DATA_DIR"]) / "sessions").glob("*.jsonl")
    for text in (r.stdout, session.read_text()):
        for spelled in (KEY[:16], KEY[16:], base64.b64encode(raw).decode(), raw.hex(), KEY[::-1],
                        base64.b64encode(b"BLOB " + raw).decode()):
            assert spelled not in text
    [result] = [m for m in json.loads(r.stdout)["messages"] if m["type"] == "ToolResultMessage"]
    assert "were redacted from this result" in json.dumps(result["content"])
