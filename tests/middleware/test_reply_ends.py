"""Every ``on_reply`` layer sees ``ReplyStart`` first and ``ReplyEnd`` last, wherever the
layer that breaks the rule sits. Its output is checked in one of three places, and each
must give the same result: by the consumer (the outermost layer: no guard on the way),
by a guard step (a generator layer outside it), or by the wrapper that is there anyway
(stats read, so items are timed; or a coroutine layer outside awaiting ``next``)."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from typing import Any

import anyio
import pytest

from middleware import HookContext, Middleware, ReplyRequest
from shell.agent import Agent, AssistantMessage
from shell.core.events import (
    ErrorEvent,
    Event,
    Notice,
    ReplyEnd,
    ReplyStart,
    TextBlockDelta,
    TextBlockEnd,
    TextBlockStart,
)
from shell.providers.scripted import ScriptedModel
from tests.helpers import Seen, collect, history_is_valid, of


class Awaits(Middleware):
    """An outer coroutine layer: its ``await next()`` streams the items through."""

    def __init__(self) -> None:
        self.result: Any = "not yet"

    async def on_reply(self, ctx: HookContext, request: ReplyRequest, next: Any) -> Any:
        self.result = await next(request)
        return self.result


class Closing(Middleware):
    """A layer under test: ``closed`` tells that its generator was closed or ended."""

    def __init__(self) -> None:
        self.closed = False


class ReturnsEarly(Closing):
    async def on_reply(self, ctx: HookContext, request: ReplyRequest, next: Any) -> AsyncIterator[Event]:
        try:
            async for event in next(request):
                yield event
                if isinstance(event, TextBlockDelta):
                    return
        finally:
            self.closed = True


class AnswersAlone(Closing):
    async def on_reply(self, ctx: HookContext, request: ReplyRequest, next: Any) -> AsyncIterator[Event]:
        try:
            block = f"{ctx.reply_id}.own"
            for event in (TextBlockStart(block), TextBlockDelta(block, "mine"), TextBlockEnd(block, "mine")):
                yield event
        finally:
            self.closed = True


class YieldsAfterEnd(Closing):
    async def on_reply(self, ctx: HookContext, request: ReplyRequest, next: Any) -> AsyncIterator[Event]:
        try:
            async for event in next(request):
                yield event
            yield Notice("info", "one more thing")
        finally:
            self.closed = True


class Raises(Closing):
    async def on_reply(self, ctx: HookContext, request: ReplyRequest, next: Any) -> AsyncIterator[Event]:
        try:
            async for event in next(request):
                if isinstance(event, TextBlockDelta):
                    raise ValueError("broken on purpose")
                yield event
        finally:
            self.closed = True


class RaisesFirst(Closing):
    """Fails before it calls ``next``: the loop never took the user's message."""

    async def on_reply(self, ctx: HookContext, request: ReplyRequest, next: Any) -> AsyncIterator[Event]:
        try:
            raise RuntimeError("boom")
            yield  # an async generator
        finally:
            self.closed = True


class Slow(Closing):
    """Passes everything through; the model is slow enough to cancel it mid-stream."""

    async def on_reply(self, ctx: HookContext, request: ReplyRequest, next: Any) -> AsyncIterator[Event]:
        try:
            async for event in next(request):
                yield event
        finally:
            self.closed = True


PLACES = ["outermost", "inside a generator", "inside a coroutine", "outermost, stats read", "stats read"]


def build(place: str, layer: Middleware, model: ScriptedModel) -> tuple[Agent, Seen | None, Awaits | None]:
    seen = Seen() if "generator" in place or place == "stats read" else None
    awaits = Awaits() if "coroutine" in place else None
    outer: list[Middleware] = [m for m in (seen, awaits) if m is not None]
    agent = Agent(model, middleware=[*outer, layer])
    if "stats read" in place:
        agent.middleware.stats(layer.name)  # someone looked: every layer's items are timed
    return agent, seen, awaits


def assert_bracketed(events: list[Event]) -> None:
    assert isinstance(events[0], ReplyStart)
    assert isinstance(events[-1], ReplyEnd)
    assert len(of(events, ReplyStart)) == 1 and len(of(events, ReplyEnd)) == 1


@pytest.mark.anyio
@pytest.mark.parametrize("place", PLACES)
async def test_a_layer_that_returns_early_ends_the_reply_for_everyone_outside(place: str) -> None:
    model = ScriptedModel(["one two three four", "never asked"], chunk_size=4)
    layer = ReturnsEarly()
    agent, seen, awaits = build(place, layer, model)
    with anyio.fail_after(5):
        events = await collect(agent)
    assert_bracketed(events)
    end = events[-1]
    assert isinstance(end, ReplyEnd) and end.stop_reason == "stopped"
    assert len(of(events, TextBlockDelta)) == 1  # nothing after the point it stopped
    assert len(model.requests) == 1 and history_is_valid(agent.messages)
    assert layer.closed
    if seen is not None:
        assert isinstance(seen.events[0], ReplyStart) and isinstance(seen.events[-1], ReplyEnd)
        assert seen.events[-1].stop_reason == "stopped" and seen.finished
    if awaits is not None:
        assert isinstance(awaits.result, AssistantMessage)  # what the reply said, up to the stop
    again = await collect(agent, "again")  # the next reply starts from a valid history
    assert_bracketed(again)
    assert len(model.requests) == 2


@pytest.mark.anyio
@pytest.mark.parametrize("place", PLACES)
async def test_a_layer_that_answers_alone_gets_a_reply_start_before_its_answer(place: str) -> None:
    model = ScriptedModel(["never asked"])
    layer = AnswersAlone()
    agent, seen, _ = build(place, layer, model)
    with anyio.fail_after(5):
        events = await collect(agent, "question")
    assert_bracketed(events)
    assert model.requests == []
    end = events[-1]
    assert isinstance(end, ReplyEnd) and end.stop_reason == "stopped"
    assert end.message is not None and end.message.text == "mine"
    assert [type(m).__name__ for m in agent.messages] == ["UserMessage", "AssistantMessage"]
    assert layer.closed
    if seen is not None:
        assert isinstance(seen.events[0], ReplyStart) and isinstance(seen.events[-1], ReplyEnd)


@pytest.mark.anyio
@pytest.mark.parametrize("place", PLACES)
async def test_what_a_layer_yields_after_the_reply_end_comes_before_the_one_end(place: str) -> None:
    layer = YieldsAfterEnd()
    agent, seen, _ = build(place, layer, ScriptedModel(["hello"]))
    with anyio.fail_after(5):
        events = await collect(agent)
    assert_bracketed(events)
    assert isinstance(events[-2], Notice) and events[-2].text == "one more thing"
    assert events[-1].stop_reason == "end_turn"  # type: ignore[attr-defined]
    assert events[-1].message.text == "hello"  # type: ignore[attr-defined]
    assert history_is_valid(agent.messages) and layer.closed
    if seen is not None:  # the layer outside sees a ReplyEnd last, after the extra event
        assert isinstance(seen.events[-1], ReplyEnd) and isinstance(seen.events[-2], Notice)


@pytest.mark.anyio
@pytest.mark.parametrize("place", PLACES)
async def test_a_layer_that_raises_mid_stream_is_named_and_the_reply_ends(place: str) -> None:
    layer = Raises()
    agent, _, _ = build(place, layer, ScriptedModel(["one two three"], chunk_size=4))
    with anyio.fail_after(5):
        events = await collect(agent)
    errors = of(events, ErrorEvent)
    assert [e.source for e in errors] == ["Raises"] and "broken on purpose" in errors[0].error
    end = events[-1]
    assert isinstance(end, ReplyEnd) and end.stop_reason == "error"
    assert isinstance(events[0], ReplyStart) and len(of(events, ReplyEnd)) == 1
    assert history_is_valid(agent.messages) and layer.closed


@pytest.mark.anyio
@pytest.mark.parametrize("place", PLACES)
async def test_a_layer_that_raises_before_next_gives_the_users_message_back(place: str) -> None:
    """The user's words are never lost to a middleware's failure, nor glued to their
    next message (finding E1): no answer came, so the message stays out of the history
    and the error carries it back (the front ends put it back in the prompt); the error
    names the layer with the way to switch it off, and says the message was taken back."""
    layer = RaisesFirst()
    model = ScriptedModel(["answered"])
    agent, _, _ = build(place, layer, model)
    with anyio.fail_after(5):
        events = await collect(agent, "my precious message")
    assert isinstance(events[-1], ReplyEnd) and len(of(events, ReplyEnd)) == 1
    errors = of(events, ErrorEvent)
    assert [e.source for e in errors] == ["RaisesFirst"]
    assert "/middleware RaisesFirst off" in errors[0].error and "taken back" in errors[0].error
    assert [m.text for m in errors[0].withdrawn] == ["my precious message"]  # type: ignore[attr-defined]
    assert agent.messages == [] and layer.closed


@pytest.mark.anyio
@pytest.mark.parametrize("place", PLACES)
async def test_a_cancel_mid_stream_ends_the_reply_through_every_layer_and_closes_them(place: str) -> None:
    layer = Slow()
    agent, seen, _ = build(place, layer, ScriptedModel(["a b c d e f g h i j"], chunk_size=2, delay=0.05))
    events: list[Event] = []
    streaming = anyio.Event()

    async def consume() -> None:
        async for event in agent.reply("go"):
            events.append(event)
            if isinstance(event, TextBlockDelta):
                streaming.set()

    with anyio.fail_after(5):
        async with anyio.create_task_group() as tg:
            tg.start_soon(consume)
            await streaming.wait()
            await anyio.sleep(0.01)  # the consumer is back inside the reply, waiting
            agent.cancel()
    assert_bracketed(events)
    assert events[-1].stop_reason == "cancelled"  # type: ignore[attr-defined]
    assert layer.closed and not agent.busy and history_is_valid(agent.messages)
    if seen is not None:
        assert isinstance(seen.events[-1], ReplyEnd) and seen.events[-1].stop_reason == "cancelled"


@pytest.mark.anyio
@pytest.mark.parametrize("make", [ReturnsEarly, AnswersAlone, YieldsAfterEnd])
async def test_switching_the_outer_layer_off_mid_reply_keeps_the_ends_checked(
    make: Callable[[], Closing],
) -> None:
    """The layer outside switched off during a reply: that reply completes as it was
    entered (a guard between them); the next has the layer outermost (the consumer
    checks it), and both end alike."""
    outer, layer = Seen(), make()
    agent = Agent(ScriptedModel(["one two three", "four five six"], chunk_size=4), middleware=[outer, layer])
    before: list[Event] = []
    with anyio.fail_after(5):
        async for event in agent.reply("hi"):
            before.append(event)
            agent.middleware.set_enabled("Seen", False)
        after = await collect(agent, "again")
    for events in (before, after):
        assert_bracketed(events)
    assert [type(e).__name__ for e in before] == [type(e).__name__ for e in after]
    assert isinstance(outer.events[0], ReplyStart) and isinstance(outer.events[-1], ReplyEnd)
    assert history_is_valid(agent.messages)
