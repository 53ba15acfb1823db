"""What a middleware sees when the user cancels (README, middleware section): an open
approval question is resolved (rejected, "cancelled") so every ``ApprovalRequested``
has its ``ApprovalResolved``; a call the cancel interrupts unwinds through
``on_acting`` (its ``finally`` runs) and gets no ``after_tool_call``, its turn no
``after_turn``; its result says it was cancelled."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import anyio
import pytest

from middleware.base import Middleware
from shell.agent import Agent
from shell.core.approvals import ApprovalRequest
from shell.core.events import (
    ApprovalRequested,
    ApprovalResolved,
    ReplyEnd,
    ToolExecutionEnd,
    ToolExecutionStart,
)
from shell.core.messages import AssistantMessage, TextBlock, ToolCallBlock, ToolResultMessage
from shell.core.tools import ToolContext, tool
from shell.providers.scripted import ScriptedModel

pytestmark = pytest.mark.anyio


@tool
async def asks(ctx: ToolContext) -> str:
    """Asks the user before it does anything."""
    await ctx.ask(ApprovalRequest(call=ctx.call, tool=None, args={}))
    return "asked"


@tool
async def waits(seconds: float) -> str:
    """Sleeps."""
    await anyio.sleep(seconds)
    return "slept"


async def never_answers(request: Any) -> Any:
    await anyio.sleep_forever()


def calling(name: str, **args: Any) -> AssistantMessage:
    return AssistantMessage((TextBlock("Calling."), ToolCallBlock("c1", name, args)))


async def test_a_cancel_during_a_question_resolves_it() -> None:
    agent = Agent(ScriptedModel([calling("asks"), "done"]), tools=[asks], ask=never_answers)
    events = []
    async for event in agent.reply("go"):
        events.append(event)
        if isinstance(event, ApprovalRequested):
            agent.cancel()
    asked = [e for e in events if isinstance(e, ApprovalRequested)]
    resolved = [e for e in events if isinstance(e, ApprovalResolved)]
    assert [e.call_id for e in asked] == [e.call_id for e in resolved] == ["c1"]
    decision = resolved[0].decision
    assert decision.type == "reject" and "cancelled" in (decision.message or "")
    assert events.index(resolved[0]) < len(events) - 1 and isinstance(events[-1], ReplyEnd)
    assert events[-1].stop_reason == "cancelled"
    end = [e for e in events if isinstance(e, ToolExecutionEnd)]
    assert end and end[0].result.details == {"cancelled": True}  # the call reads cancelled, not rejected


class Watch(Middleware):
    def __init__(self) -> None:
        self.seen: list[str] = []

    async def on_acting(self, ctx: Any, request: Any, next: Any) -> Any:
        self.seen.append("on_acting")
        try:
            return await next(request)
        finally:
            self.seen.append("on_acting finally")

    async def after_tool_call(self, ctx: Any, result: Any) -> Any:
        self.seen.append("after_tool_call")
        return None

    async def after_turn(self, ctx: Any, results: Any) -> None:
        self.seen.append("after_turn")

    async def on_reply(self, ctx: Any, request: Any, next: Any) -> AsyncIterator[Any]:
        async for event in next(request):
            if isinstance(event, ReplyEnd):
                self.seen.append(f"ReplyEnd {event.stop_reason}")
            yield event


async def test_a_cancelled_call_unwinds_through_on_acting_and_skips_the_after_hooks() -> None:
    watch = Watch()
    agent = Agent(ScriptedModel([calling("waits", seconds=30), "done"]), tools=[waits], middleware=[watch])
    async for event in agent.reply("go"):
        if isinstance(event, ToolExecutionStart):
            agent.cancel()
    assert watch.seen == ["on_acting", "on_acting finally", "ReplyEnd cancelled"]
    result = agent.messages[-1]
    assert isinstance(result, ToolResultMessage) and "cancelled" in result.text
