"""At most 128 tools go in one OpenAI request, whatever the servers offer (finding Y13).

Each MCP server was capped at 128 on its own: two servers of 100 tools put 208
in every request, which OpenAI's API refuses (400 "array too long"), and nothing
was said. Checked on the body aimock received.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from shell.core.messages import ToolResult, UserMessage
from shell.core.model import ModelRequest
from shell.core.tools import Tool, ToolContext, tool
from shell.providers.anthropic import AnthropicModel
from shell.providers.openai import OpenAIModel
from tests.aimock import run_aimock

FIXTURES = Path(__file__).parent / "aimock_fixtures.json"


class ServerTool(Tool):
    """A stand-in for one MCP server's tool (what marks it is its ``source``)."""

    def __init__(self, server: str, n: int) -> None:
        super().__init__(f"{server}__t{n}", f"tool {n} of {server}")
        self.source = f"mcp:{server}"

    async def run(self, args: dict[str, Any], context: ToolContext) -> ToolResult:
        return ToolResult("")


def own_tools(count: int) -> list[Tool]:
    made: list[Tool] = []
    for n in range(count):
        def body() -> str:
            """An agent tool."""
            return ""
        made.append(tool(name=f"own{n}")(body))
    return made


@pytest.fixture(scope="module")
def aimock() -> Iterator[str]:
    with run_aimock(FIXTURES) as url:
        yield url


async def sent_tools(url: str, request: ModelRequest) -> list[str]:
    async with httpx.AsyncClient() as client:
        await client.delete(f"{url}/__aimock/journal")
        async for _ in request.model.stream(request):  # type: ignore[union-attr]
            pass
        journal = (await client.get(f"{url}/__aimock/journal")).json()
    return [t["function"]["name"] for t in journal[-1]["body"].get("tools", ())]


@pytest.mark.anyio
async def test_two_servers_of_100_tools_send_128_and_say_which_were_left_out(aimock: str) -> None:
    notices: list[str] = []
    model = OpenAIModel("gpt-4o", base_url=f"{aimock}/v1", api_key="test", on_notice=notices.append)
    server_a = [ServerTool("a", n) for n in range(100)]
    server_b = [ServerTool("b", n) for n in range(100)]
    # the agent's tools come first in a request, the middleware's after the servers'
    tools = (*own_tools(8)[:6], *server_a, *server_b, *own_tools(8)[6:])
    request = ModelRequest(model=model, messages=(UserMessage("hello"),), tools=tools)
    names = await sent_tools(aimock, request)
    assert len(names) == 128
    assert {f"own{n}" for n in range(8)} <= set(names)  # the agent's and the middleware's stay
    assert [n for n in names if n.startswith("a__")] == [t.name for t in server_a]
    assert [n for n in names if n.startswith("b__")] == [f"b__t{n}" for n in range(20)]
    (said,) = notices
    assert "at most 128 tools" in said and "80 of the 208" in said
    assert "b__t20" in said and "72 more" in said and "LLMToolSelector" in said
    assert await sent_tools(aimock, request) == names
    assert len(notices) == 1  # said once, not with every request


@pytest.mark.anyio
async def test_a_forced_tool_is_never_the_one_left_out(aimock: str) -> None:
    model = OpenAIModel("gpt-4o", base_url=f"{aimock}/v1", api_key="test", on_notice=lambda _: None)
    tools = tuple(ServerTool("a", n) for n in range(130))
    request = ModelRequest(model=model, messages=(UserMessage("hello"),), tools=tools, tool_choice="a__t129")
    names = await sent_tools(aimock, request)
    assert len(names) == 128 and "a__t129" in names


def test_providers_without_a_limit_send_every_tool() -> None:
    model = AnthropicModel("claude-sonnet-4-5", api_key="test")
    tools = tuple(ServerTool("a", n) for n in range(200))
    body = model.build_body(ModelRequest(model=model, messages=(UserMessage("hi"),), tools=tools))
    assert len(body["tools"]) == 200
