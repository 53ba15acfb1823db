"""Finding V3 over ACP: the editor hands an MCP server its key (``env``); the server
says it back in a tool's answer. The editor's tool card and what the model reads show
it as ``[REDACTED]``, as the CLI's do."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest
from acp.schema import EnvVariable, McpServerStdio, TextContentBlock

from .conftest import EditorClient, Spawn

pytestmark = pytest.mark.anyio

SERVER = Path(__file__).resolve().parents[1] / "tools" / "env_mcp_server.py"
KEY = "sk-proj-" + "ZYXWVUTSRQPONMLKJIHGFEDCBA987654"


async def test_an_editor_given_servers_key_said_back_is_redacted(spawn: Spawn, script: Any,
                                                                 workspace: Path) -> None:
    turns = [{"tool_calls": [{"name": "envy__get_env", "args": {}, "id": "m1"},
                             {"name": "envy__env_record", "args": {}, "id": "m2"}]}, "Checked."]
    client = EditorClient()
    server = McpServerStdio(name="envy", command=sys.executable, args=[str(SERVER)],
                            env=[EnvVariable(name="MY_API_KEY", value=KEY)])
    async with spawn(client, "--model", script(turns), "--permission-mode", "bypass") as conn:
        session = await conn.new_session(cwd=str(workspace), mcp_servers=[server])
        await conn.prompt(session_id=session.session_id, prompt=[TextContentBlock(type="text", text="env?")])
    assert client.tool_status("m1") == "completed"
    shown = json.dumps([u.model_dump(mode="json") for u in client.updates])
    assert KEY not in shown
    assert "MY_API_KEY=[REDACTED]" in shown and "this run's own keys" in shown
