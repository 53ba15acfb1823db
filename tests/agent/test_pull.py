"""The reply is pulled: it advances only as the outermost ``on_reply`` layer asks, so
a layer that stops asking stops the reply there, and one that answers alone ends it."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import anyio
import pytest

from middleware import HookContext, Middleware, ReplyRequest
from shell.agent import Agent, AssistantMessage, TextBlock, ToolResultMessage, tool
from shell.core.events import (
    Event,
    ModelCallStart,
    ReplyEnd,
    ReplyStart,
    TextBlockDelta,
    ToolCallEnd,
    ToolExecutionEnd,
    ToolExecutionStart,
)
from shell.providers.scripted import ScriptedModel
from tests.helpers import Seen, calls, collect, history_is_valid, kinds, of

ran: list[str] = []


@tool
def delete_everything(path: str) -> str:
    """Delete a tree."""
    ran.append(path)
    return "deleted"


@tool
async def slow_write(path: str) -> str:
    """Write slowly."""
    ran.append(f"start {path}")
    await anyio.sleep(30)
    return "written"


class StopAtDanger(Middleware):
    """Returns early at a dangerous ToolCallEnd (the issue's guard)."""

    async def on_reply(self, ctx: HookContext, request: ReplyRequest, next: Any) -> AsyncIterator[Event]:
        async for event in next(request):
            yield event
            if isinstance(event, ToolCallEnd) and event.name == "delete_everything":
                return


@pytest.mark.anyio
async def test_a_layer_that_returns_early_ends_the_reply_there() -> None:
    ran.clear()
    model = ScriptedModel([calls(("delete_everything", {"path": "/"})), "deleted it all"])
    seen = Seen()
    agent = Agent(model, tools=[delete_everything], middleware=[seen, StopAtDanger()])
    with anyio.fail_after(5):
        events = await collect(agent)
    assert ran == []  # the tool never ran
    assert len(model.requests) == 1  # and the model was not called again
    assert not of(events, ToolExecutionStart)
    end = events[-1]
    assert isinstance(end, ReplyEnd) and end.stop_reason == "stopped"
    assert history_is_valid(agent.messages)
    # the reply was cut before the call landed: the history keeps what was said, no call
    assert not any(isinstance(m, ToolResultMessage) and not m.is_error for m in agent.messages)
    # the layer outside the one that returned still saw the reply end, and finished
    assert isinstance(seen.events[-1], ReplyEnd) and seen.events[-1].stop_reason == "stopped"
    assert seen.finished
    assert (await collect(agent, "again"))[-1].stop_reason == "end_turn"  # type: ignore[union-attr]


@pytest.mark.anyio
async def test_returning_early_while_a_tool_runs_cancels_it() -> None:
    ran.clear()

    class StopWhenItStarts(Middleware):
        async def on_reply(self, ctx: HookContext, request: ReplyRequest, next: Any) -> AsyncIterator[Event]:
            async for event in next(request):
                yield event
                if isinstance(event, ToolExecutionStart):
                    return

    agent = Agent(
        ScriptedModel([calls(("slow_write", {"path": "a"}), ("slow_write", {"path": "b"})), "x"]),
        tools=[slow_write],
        middleware=[StopWhenItStarts()],
    )
    with anyio.fail_after(3):
        events = await collect(agent)
    assert ran == ["start a"]  # the second, mutating call never started
    assert events[-1].stop_reason == "stopped"  # type: ignore[union-attr]
    assert history_is_valid(agent.messages)
    ends = of(events, ToolExecutionEnd)
    assert {e.call_id for e in ends} == {"call_0_slow_write", "call_1_slow_write"}


class Canned(Middleware):
    """Answers without calling next (AgentScope's short-circuit)."""

    async def on_reply(self, ctx: HookContext, request: ReplyRequest, next: Any) -> AsyncIterator[Event]:
        for event in await_free_answer(ctx, "I can answer that myself."):
            yield event


def await_free_answer(ctx: HookContext, text: str) -> list[Event]:
    from shell.core.events import TextBlockEnd, TextBlockStart

    block = f"{ctx.reply_id}.canned"
    return [TextBlockStart(block), TextBlockDelta(block, text), TextBlockEnd(block, text)]


@pytest.mark.anyio
async def test_a_layer_that_never_calls_next_answers_alone() -> None:
    model = ScriptedModel(["never used"])
    seen = Seen()
    agent = Agent(model, middleware=[seen, Canned()])
    with anyio.fail_after(2):  # it used to hang forever
        events = await collect(agent, "question")
    assert model.requests == []
    assert kinds(events)[0] == "ReplyStart" and kinds(events)[-1] == "ReplyEnd"
    end = events[-1]
    assert isinstance(end, ReplyEnd) and end.message is not None
    assert end.message.text == "I can answer that myself." and end.stop_reason == "stopped"
    assert [type(m).__name__ for m in agent.messages] == ["UserMessage", "AssistantMessage"]
    assert isinstance(seen.events[0], ReplyStart) and isinstance(seen.events[-1], ReplyEnd)


@pytest.mark.anyio
async def test_a_coroutine_layer_can_answer_alone_with_plain_text() -> None:
    class Cached(Middleware):
        async def on_reply(self, ctx: HookContext, request: ReplyRequest, next: Any) -> str:
            return "from the cache"

    agent = Agent(ScriptedModel([]), middleware=[Cached()])
    events = await collect(agent)
    assert events[-1].message.text == "from the cache"  # type: ignore[union-attr]
    assert "".join(e.delta for e in of(events, TextBlockDelta)) == "from the cache"


@pytest.mark.anyio
async def test_the_core_advances_only_as_the_outermost_layer_pulls() -> None:
    """Nothing of the reply runs while the consumer holds an event."""
    model = ScriptedModel(["one", "two"])
    agent = Agent(model, tools=[delete_everything])
    stream = agent.reply("go")
    first = await stream.__anext__()
    assert isinstance(first, ReplyStart)
    await anyio.sleep(0.05)  # a core running ahead would have called the model by now
    assert model.requests == []
    second = await stream.__anext__()
    assert isinstance(second, ModelCallStart) and len(model.requests) == 1
    await stream.aclose()
    assert not agent.busy and history_is_valid(agent.messages)


@pytest.mark.anyio
async def test_a_cancel_while_blocked_ends_the_reply_through_every_layer() -> None:
    """Esc from another task while the model streams: on_reply layers see ReplyEnd(cancelled)."""
    seen = Seen()
    agent = Agent(ScriptedModel(["a b c d e f g h"], chunk_size=2, delay=0.05), middleware=[seen])
    events: list[Event] = []
    streaming = anyio.Event()

    async def consume() -> None:
        async for event in agent.reply("go"):
            events.append(event)
            if isinstance(event, TextBlockDelta):
                streaming.set()

    with anyio.fail_after(3):
        async with anyio.create_task_group() as tg:
            tg.start_soon(consume)
            await streaming.wait()
            await anyio.sleep(0.01)  # the consumer is back inside the reply, waiting
            agent.cancel()
    assert events[-1].stop_reason == "cancelled"  # type: ignore[union-attr]
    assert isinstance(seen.events[-1], ReplyEnd) and seen.events[-1].stop_reason == "cancelled"
    last = agent.messages[-1]
    assert isinstance(last, AssistantMessage) and last.stop_reason == "cancelled" and last.text


@pytest.mark.anyio
async def test_a_stuck_layer_is_cut_off_after_the_grace_period() -> None:
    class Stuck(Middleware):
        async def on_reply(self, ctx: HookContext, request: ReplyRequest, next: Any) -> AsyncIterator[Event]:
            async for event in next(request):
                if isinstance(event, ReplyEnd):
                    await anyio.sleep(60)  # never lets the end through
                yield event

    agent = Agent(ScriptedModel(["hello there"], delay=0.05), middleware=[Stuck()], cancel_grace=0.2)
    events: list[Event] = []
    streaming = anyio.Event()

    async def consume() -> None:
        async for event in agent.reply("go"):
            events.append(event)
            if isinstance(event, TextBlockDelta):
                streaming.set()

    with anyio.fail_after(3):
        async with anyio.create_task_group() as tg:
            tg.start_soon(consume)
            await streaming.wait()
            await anyio.sleep(0.01)  # the consumer is back inside the reply, waiting
            agent.cancel()
    assert isinstance(events[-1], ReplyEnd) and events[-1].stop_reason == "cancelled"
    assert not agent.busy and history_is_valid(agent.messages)


def test_reply_text_block_message_is_stable() -> None:
    assert AssistantMessage((TextBlock("x"),)).text == "x"
