"""``ctx.reply_state``: one dict per middleware per reply, there until the reply ends.

DESIGN.md: "`reply_state` (this middleware's dict for the current reply, cleared at
`ReplyEnd`, kept across an approval wait)". AgentScope's budget state: "State is
automatically cleaned up when the reply ends."
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import pytest

from middleware import Middleware
from shell.agent import Agent, ApprovalDecision, ApprovalRequest, tool
from shell.core.events import Event, ReplyEnd
from shell.providers.scripted import ScriptedModel
from tests.helpers import calls, collect

pytestmark = pytest.mark.anyio


@tool
def write(path: str) -> str:
    """Write a file."""
    return f"wrote {path}"


class Keeper(Middleware):
    """Counts the calls of a reply, asks before each, and reports at the reply's end."""

    def __init__(self) -> None:
        self.kept: list[dict[str, Any]] = []
        self.at_end: list[dict[str, Any]] = []

    async def on_reply(self, ctx: Any, request: Any, next: Any) -> AsyncIterator[Event]:
        async for event in next(request):
            if isinstance(event, ReplyEnd):
                self.at_end.append(dict(ctx.reply_state))
            yield event

    async def before_tool_call(self, ctx: Any) -> None:
        ctx.reply_state["calls"] = ctx.reply_state.get("calls", 0) + 1
        await ctx.ask(ApprovalRequest(ctx.call, ctx.tool, dict(ctx.args)))
        ctx.reply_state["after_the_wait"] = ctx.reply_state["calls"]
        self.kept.append(ctx.reply_state)


async def _approve(request: Any) -> ApprovalDecision:
    return ApprovalDecision("approve")


async def test_reply_state_is_kept_across_an_approval_wait_and_cleared_when_the_reply_ends() -> None:
    """The layers see their state up to and with ``ReplyEnd``; after it, a dict a hook
    kept is empty (nothing of one reply leaks into what was kept of it), and the next
    reply starts from nothing."""
    keeper = Keeper()
    model = ScriptedModel([calls(("write", {"path": "a"})), calls(("write", {"path": "b"})), "ok", "again"])
    agent = Agent(model, tools=[write], middleware=[keeper], ask=_approve)
    await collect(agent)
    assert keeper.at_end == [{"calls": 2, "after_the_wait": 2}]
    assert keeper.kept[0] is keeper.kept[1] and keeper.kept[0] == {}
    await collect(agent)
    assert keeper.at_end[-1] == {}
