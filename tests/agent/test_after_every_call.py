"""``after_tool_call`` runs for every call (DESIGN.md), not only those whose arguments
were valid: a call to a tool the agent does not have, arguments the schema refuses, or
arguments that are not JSON reach it too, so a layer that audits, counts or scrubs
every result misses none (round 21, E17). Its change holds for those results too."""

from __future__ import annotations

import pytest

from middleware import AfterToolCallResult, Middleware
from shell.agent import Agent, AssistantMessage, ToolCallBlock, ToolResultMessage, tool

pytestmark = pytest.mark.anyio


@tool(read_only=True)
def wr(path: str) -> str:
    """Echo a path."""
    return f"wrote {path}"


class Audit(Middleware):
    def __init__(self) -> None:
        super().__init__()
        self.seen: list[tuple[str, str, bool]] = []

    async def after_tool_call(self, ctx, result):  # type: ignore[no-untyped-def]
        self.seen.append((ctx.call.id, ctx.tool.name, result.is_error))
        return AfterToolCallResult(content=f"[audited] {result.text}")


async def test_unknown_tools_and_bad_arguments_reach_after_tool_call() -> None:
    from shell.providers.scripted import ScriptedModel

    turn = AssistantMessage((
        ToolCallBlock("c1", "wr", {"path": "a"}),
        ToolCallBlock("c2", "nosuch", {}),
        ToolCallBlock("c3", "wr", {"path": [1, 2]}),
        ToolCallBlock("c4", "wr", {}),
    ))
    audit = Audit()
    agent = Agent(ScriptedModel([turn, "done"]), tools=[wr], middleware=[audit])
    [_ async for _ in agent.reply("go")]
    expected = [("c1", "wr", False), ("c2", "nosuch", True), ("c3", "wr", True), ("c4", "wr", True)]
    assert sorted(audit.seen) == expected  # the calls run together: any order
    results = [m for m in agent.messages if isinstance(m, ToolResultMessage)]
    assert [r.text.startswith("[audited] ") for r in results] == [True] * 4
    assert "Unknown tool 'nosuch'" in results[1].text
