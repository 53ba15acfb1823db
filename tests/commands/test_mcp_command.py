"""``/mcp``: the MCP servers as they stand, and starting one that died again, with a
real server written with the official SDK (tests/tools/sdk_mcp_server.py) over stdio."""

from __future__ import annotations

import sys
from pathlib import Path

import anyio
import pytest

from shell.commands import default_commands
from shell.config import Settings
from shell.core.approvals import ApprovalDecision
from shell.core.messages import ToolCallBlock
from shell.core.tools import ToolContext
from shell.providers.scripted import ScriptedModel
from shell.runtime import RuntimeOptions, ShellRuntime
from shell.tools.mcp_config import parse_servers

pytestmark = [pytest.mark.anyio, pytest.mark.slow]

SERVER = Path(__file__).resolve().parents[1] / "tools" / "sdk_mcp_server.py"


async def _state(runtime: ShellRuntime, want: str) -> None:
    with anyio.fail_after(90):
        while runtime.mcp.status("sdk").state != want:  # noqa: ASYNC110  # no event to wait on
            await anyio.sleep(0.05)


async def test_a_server_that_died_is_listed_so_and_started_again_with_its_tools(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("AGENT_SHELL_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("AGENT_SHELL_CONFIG_DIR", str(tmp_path / "config"))
    servers = {"sdk": {"command": sys.executable, "args": [str(SERVER), "plain"]}}
    runtime = ShellRuntime.create(
        RuntimeOptions(cwd=str(tmp_path), mcp_servers=parse_servers(servers, cwd=str(tmp_path))),
        settings=Settings(path=tmp_path / "none.toml"), model=ScriptedModel(["Hi."]),
    )
    commands = default_commands()

    async def run(line: str) -> tuple[str, bool]:
        result = await commands.run(runtime, line)
        return result.text, result.error

    async def approve(request: object) -> ApprovalDecision:
        return ApprovalDecision("approve")

    async with runtime.running():
        await _state(runtime, "ready")
        running = "The MCP server 'sdk' is ready; only a failed or exited one is started again."
        assert await run("/mcp restart sdk") == (running, True)
        die = next(t for t in runtime.agent.tools if t.name == "sdk__die")
        with anyio.fail_after(60):
            await die.run({}, ToolContext(ToolCallBlock("c1", die.name, {}), lambda _: None, approve))
        assert "sdk__echo" not in {t.name for t in runtime.agent.tools}  # marked down: not offered
        listed, _ = await run("/mcp")
        assert "- **sdk** (stdio) exited: the server process exited" in listed
        assert "/mcp restart NAME" in listed
        unknown = "There is no MCP server named 'nope' (configured: sdk)."
        assert await run("/mcp restart nope") == (unknown, True)
        said, error = await run("/mcp restart sdk")
        assert not error and said.startswith("Starting the MCP server sdk again; its tools come back")
        await _state(runtime, "ready")
        echo = next(t for t in runtime.agent.tools if t.name == "sdk__echo")  # offered again
        with anyio.fail_after(60):
            result = await echo.run({"a": "back"}, ToolContext(ToolCallBlock("c2", echo.name, {}),
                                                               lambda _: None, approve))
        assert result.text == "echo back"
        listed, _ = await run("/mcp")
        assert "- **sdk** (stdio) ready, 6 tools" in listed
