"""A call to a tool of an MCP server that is gone (it exited, failed or was stopped,
so its tools left the list) answers what the server's state is and how to bring it
back (/mcp restart), not "Unknown tool" and a list of every tool (finding R10)."""

from __future__ import annotations

import anyio
import pytest

from shell.agent import Agent
from shell.core.events import ToolExecutionEnd
from shell.providers.scripted import ScriptedModel
from shell.tools.mcp import McpManager
from tests.helpers import calls, collect, of

pytestmark = pytest.mark.anyio


async def test_a_failed_servers_tool_says_the_server_is_down_and_how_to_restart_it() -> None:
    async with McpManager({"sdk": {"command": "/nonexistent/mcp-server"}}) as mcp:
        with anyio.fail_after(30):
            await mcp.wait_settled(30)
        assert mcp.status("sdk").state == "failed"
        agent = Agent(ScriptedModel([calls(("sdk__echo", {"text": "hi"})), "ok"]))
        agent.missing_tool = mcp.why_gone
        events = await collect(agent)
    result = of(events, ToolExecutionEnd)[0].result
    assert result.is_error and "The MCP server 'sdk' is failed" in result.text
    assert "/mcp restart sdk" in result.text and "Unknown tool" not in result.text
    assert mcp.why_gone("other__echo") is None  # no such server: nothing known


async def test_an_explainer_that_breaks_leaves_the_plain_answer() -> None:
    def broken(name: str) -> str | None:
        raise RuntimeError("no")

    agent = Agent(ScriptedModel([calls(("nope", {})), "ok"]))
    agent.missing_tool = broken
    events = await collect(agent)
    assert of(events, ToolExecutionEnd)[0].result.text == "Unknown tool 'nope'. Available tools: none."
