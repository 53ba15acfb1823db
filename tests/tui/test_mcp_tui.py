"""The TUI with MCP servers that misbehave (real processes over stdio): start-up
never waits for them, and nothing they or the SDK say is written over the screen."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from shell.config import Settings
from shell.core.messages import AssistantMessage, ToolCallBlock, ToolResultMessage
from shell.providers.scripted import ScriptedModel
from shell.runtime import RuntimeOptions, ShellRuntime
from shell.tools.mcp_config import parse_servers
from shell.tui.app import AgentShellApp
from shell.tui.widgets.welcome import Welcome

from .helpers import SIZE, send, wait_for

pytestmark = [pytest.mark.anyio, pytest.mark.slow]

SERVER = Path(__file__).resolve().parents[1] / "tools" / "hostile_mcp_server.py"


async def test_a_stalled_and_a_garbling_server_neither_hold_start_up_nor_write_over_the_screen(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capfd: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("AGENT_SHELL_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("AGENT_SHELL_CONFIG_DIR", str(tmp_path / "config"))
    servers = {name: {"command": sys.executable, "args": [str(SERVER), mode]}
               for name, mode in (("stall", "stall_init"), ("garb", "garbage"))}
    call = AssistantMessage((ToolCallBlock("c1", "garb__echo", {"a": "x"}),))
    runtime = ShellRuntime.create(
        RuntimeOptions(cwd=str(tmp_path), mcp_servers=parse_servers(servers, cwd=str(tmp_path)),
                       permission_mode="bypass"),
        settings=Settings(path=tmp_path / "none.toml"),
        model=ScriptedModel([call, "Done."]),  # type: ignore[list-item]
    )
    app = AgentShellApp(runtime=runtime)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: len(app.query(Welcome)) == 1)
        mcp = runtime.mcp
        assert mcp is not None
        await wait_for(pilot, lambda: mcp.status("garb").state == "ready", timeout=30)
        assert mcp.status("stall").state == "connecting"  # its handshake has 60 s; nobody waits
        await send(pilot, "go")
        results = lambda: [m for m in runtime.agent.messages if isinstance(m, ToolResultMessage)]  # noqa: E731
        await wait_for(pilot, lambda: not app.busy and results(), timeout=30)
        [result] = results()
        assert result.is_error
        assert result.text.startswith("Calling garb__echo failed: the MCP server 'garb' sent a line that is "
                                      "not JSON-RPC (Invalid JSON: expected ident at line 1 column 2)")
        assert mcp.status("garb").state == "ready"
        await runtime.aclose()  # here, not in the pilot's teardown: a stalled server takes seconds to stop
    err = capfd.readouterr().err
    assert "Traceback" not in err and "JSONRPC" not in err and "this is not json" not in err
