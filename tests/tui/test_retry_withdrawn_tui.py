"""A middleware that retries a model call which failed part way: the text the failed
attempt streamed leaves the screen (it is not in the message), and a tool call it
streamed ends withdrawn, never run."""

from __future__ import annotations

from collections.abc import AsyncIterator

import anyio
import pytest

from middleware import HookContext, Middleware
from middleware.base import ModelNext
from shell.agent.loop import Agent
from shell.core.model import ModelChunk, ModelRequest, StopChunk, TextDelta, ToolCallDelta
from shell.tui.app import AgentShellApp

from .helpers import SIZE, send, shown_entries, wait_for, write_note

pytestmark = pytest.mark.anyio


class DropsOnce:
    """Streams text and a call, waits until the test saw them drawn, then drops."""

    name = "drops-once"

    def __init__(self) -> None:
        self.calls = 0
        self.drop = anyio.Event()

    async def stream(self, request: ModelRequest) -> AsyncIterator[ModelChunk]:
        self.calls += 1
        if self.calls == 1:
            yield TextDelta("half of a first try")
            yield ToolCallDelta(0, "call_1", "write_note", '{"path": "first.txt", "text": "x"}')
            await self.drop.wait()
            raise ConnectionError("dropped")
        yield TextDelta("the whole answer")
        yield StopChunk("end_turn")


class Retry(Middleware):
    async def on_model_call(
        self, ctx: HookContext, request: ModelRequest, next: ModelNext
    ) -> AsyncIterator[ModelChunk]:
        try:
            async for chunk in next(request):
                yield chunk
        except ConnectionError:
            async for chunk in next(request):
                yield chunk


async def test_the_failed_attempt_leaves_the_screen() -> None:
    model = DropsOnce()
    agent = Agent(model, tools=[write_note], middleware=[Retry()])
    app = AgentShellApp(agent, model_label="scripted")
    async with app.run_test(size=SIZE) as pilot:
        await send(pilot, "go")
        await wait_for(pilot, lambda: "reply:half of a first try" in shown_entries(app))
        await wait_for(pilot, lambda: "span:call_1" in shown_entries(app))
        model.drop.set()
        await wait_for(pilot, lambda: not app.busy and model.calls == 2)
        await pilot.pause()
        entries = shown_entries(app, lambda state: f"{state.call_id}:{state.status}")
        assert entries == ["user:go", "span:call_1:blocked", "reply:the whole answer"], entries
    assert [m.text for m in agent.messages[1:]] == ["the whole answer"]
