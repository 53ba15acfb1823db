"""Finding V3 through the console script: an MCP server's own configured key (its
``env`` in the config) came back in its tool's answer and went to the model, the
provider, ``-p``'s output and the session file verbatim, while ``read_file`` showed the
same key as ``[REDACTED]``. Every MCP answer (text, structured content, error) is
redacted of the run's known secret values before anything sees it."""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from .conftest import RunCli

SERVER = Path(__file__).resolve().parents[1] / "tools" / "env_mcp_server.py"
KEY = "sk-proj-" + "abcdefghijklmnopqrstuvwxyz012345"


def test_an_mcp_servers_own_key_in_its_answers_reaches_no_one(
    run_cli: RunCli, cli_env: dict[str, str], script: Callable[[list[Any]], str]
) -> None:
    config = Path(cli_env["AGENT_SHELL_CONFIG_DIR"])
    config.mkdir(parents=True, exist_ok=True)
    (config / "config.toml").write_text(
        f"[mcp_servers.envy]\ncommand = {json.dumps(sys.executable)}\nargs = [{json.dumps(str(SERVER))}]\n"
        f'env = {{ MY_API_KEY = "{KEY}", LOG_LEVEL = "debug-verbose" }}\n'
    )
    calls = [{"name": f"envy__{tool}", "args": {}} for tool in ("get_env", "env_record", "login")]
    model = script([{"text": "Checking.", "tool_calls": calls}, "Done."])
    r = run_cli("-p", "check the env", "--model", model, "--approve", "always", "--output-format", "json")
    assert r.returncode == 0, r.stderr
    assert KEY not in r.stdout and KEY not in r.stderr
    results = [m for m in json.loads(r.stdout)["messages"] if m["type"] == "ToolResultMessage"]
    texts = [m["content"] if isinstance(m["content"], str) else json.dumps(m["content"]) for m in results]
    assert len(texts) == 3, texts
    for text in texts:
        assert "[REDACTED]" in text and "this run's own keys" in text, text
    assert "LOG_LEVEL=debug-verbose" in texts[0]  # the rest of the answer reads as it is
    assert "eu-west-1" in texts[1]
    assert "invalid key [REDACTED]" in texts[2]
    [session] = (Path(cli_env["AGENT_SHELL_DATA_DIR"]) / "sessions").glob("*.jsonl")
    saved = session.read_text()
    assert KEY not in saved and "debug-verbose" in saved
