"""``watch``: a streaming onion hook that only observes, written as a plain ``def``.

What a middleware author relies on: the watcher sees every item in layer order
(inner first, among generator layers too), the items are not changed, ``end`` is
called once with what ended the stream, a retry calls the hook again, its errors
are the middleware's, and switches and stats work as for any layer."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import anyio
import pytest

from middleware import HookContext, Middleware, ReplyCancelled, watch
from shell.agent import Agent, AssistantMessage, ModelRequest
from shell.core.events import ErrorEvent, Event, ReplyEnd, ReplyStart, TextBlockDelta
from shell.core.model import ModelChunk, ModelError, TextDelta
from shell.providers.scripted import ScriptedModel
from tests.helpers import collect, of

pytestmark = pytest.mark.anyio

LOG: list[tuple[str, Any]] = []


def text_of(item: Any) -> Any:
    return getattr(item, "text", None) or getattr(item, "delta", None) or type(item).__name__


class Watcher(Middleware):
    """Watches one streaming hook; logs each item and how the stream ended."""

    def __init__(self, name: str, hook: str = "on_model_call", fail_each: bool = False) -> None:
        self.name = name
        self.hook = hook
        self.fail_each = fail_each
        self.ends: list[BaseException | None] = []
        self.items: list[Any] = []

    def seen(self, item: Any) -> None:
        if self.fail_each and self.items:
            raise ValueError("watcher broke")
        self.items.append(item)
        LOG.append((self.name, text_of(item)))

    def ended(self, error: BaseException | None) -> None:
        self.ends.append(error)

    def _watch(self, hook: str, request: Any, next: Any) -> Any:
        return watch(next(request), self.seen, end=self.ended) if hook == self.hook else next(request)

    def on_model_call(self, ctx: HookContext, request: Any, next: Any) -> Any:
        return self._watch("on_model_call", request, next)

    def on_reply(self, ctx: HookContext, request: Any, next: Any) -> Any:
        return self._watch("on_reply", request, next)


class Logging(Middleware):
    """A generator layer, for order: logs each chunk on its way out."""

    def __init__(self, name: str) -> None:
        self.name = name

    async def on_model_call(
        self, ctx: HookContext, request: ModelRequest, next: Any
    ) -> AsyncIterator[ModelChunk]:
        async for chunk in next(request):
            LOG.append((self.name, text_of(chunk)))
            yield chunk


async def test_watchers_see_every_item_inner_first_and_change_nothing() -> None:
    LOG.clear()
    a, b, c = Watcher("a"), Watcher("b"), Watcher("c")
    agent = Agent(ScriptedModel(["one two"], chunk_size=4), middleware=[a, b, Logging("gen"), c])
    events = await collect(agent)
    plain = await collect(Agent(ScriptedModel(["one two"], chunk_size=4)))
    assert [e.delta for e in of(events, TextBlockDelta)] == [e.delta for e in of(plain, TextBlockDelta)]
    deltas = [text for name, text in LOG if name == "c" and text in ("one ", "two")]
    assert deltas == ["one ", "two"]
    first = LOG.index(("c", "one "))
    assert LOG[first : first + 4] == [("c", "one "), ("gen", "one "), ("b", "one "), ("a", "one ")]
    assert a.items == b.items == c.items and len(a.items) == len(LOG) // 4
    assert a.ends == b.ends == c.ends == [None]  # once, when the stream finished
    assert agent.messages[-1].text == "one two"


async def test_a_retry_calls_the_watching_hook_again_and_the_first_ends_with_its_error() -> None:
    class Fallback(Middleware):
        async def on_model_call(
            self, ctx: HookContext, request: ModelRequest, next: Any
        ) -> AsyncIterator[Any]:
            try:
                async for chunk in next(request):
                    yield chunk
            except ModelError:
                async for chunk in next(request.override(model=ScriptedModel(["backup"]))):
                    yield chunk

    w = Watcher("w")
    agent = Agent(ScriptedModel([ModelError("down")]), middleware=[Fallback(), w])
    await collect(agent)
    assert len(w.ends) == 2 and isinstance(w.ends[0], ModelError) and w.ends[1] is None
    assert "".join(text_of(i) for i in w.items if isinstance(i, TextDelta)) == "backup"  # the second attempt
    assert agent.messages[-1].text == "backup"


async def test_an_error_in_each_or_end_is_the_middlewares() -> None:
    broken = Watcher("Broken", fail_each=True)
    events = await collect(Agent(ScriptedModel(["one two three"], chunk_size=4), middleware=[broken]))
    error = of(events, ErrorEvent)[0]
    assert error.source == "Broken" and "watcher broke" in error.error
    assert isinstance(broken.ends[0], ValueError)  # it ended with its own error

    ok, broken = Watcher("Fine"), Watcher("Outer", fail_each=True)
    events = await collect(Agent(ScriptedModel(["one two three"], chunk_size=4), middleware=[broken, ok]))
    assert of(events, ErrorEvent)[0].source == "Outer"  # two watchers in a row: still the right one
    assert isinstance(ok.ends[0], GeneratorExit) and isinstance(broken.ends[0], ValueError)

    class BadEnd(Watcher):
        def ended(self, error: BaseException | None) -> None:
            raise RuntimeError("end broke")

    agent = Agent(ScriptedModel(["fine"]), middleware=[BadEnd("BadEnd")])
    events = await collect(agent)
    error = of(events, ErrorEvent)[0]
    assert error.source == "BadEnd" and "end broke" in error.error
    assert agent.middleware.stats("BadEnd").hooks["on_model_call"].errors == 1


class SlowModel:
    name = "slow"

    async def stream(self, request: ModelRequest) -> AsyncIterator[ModelChunk]:
        for word in ("one ", "two ", "three"):
            yield TextDelta(word)
            await anyio.sleep(0.05)


async def test_a_cancel_reaches_end_as_reply_cancelled() -> None:
    w = Watcher("w")
    agent = Agent(SlowModel(), middleware=[w])
    events = []
    async for event in agent.reply("go"):
        events.append(event)
        if isinstance(event, TextBlockDelta):
            agent.cancel()
    assert events[-1].stop_reason == "cancelled"  # type: ignore[union-attr]
    assert len(w.ends) == 1 and isinstance(w.ends[0], ReplyCancelled)


async def test_an_outer_layer_that_stops_early_ends_an_inner_watcher_with_generator_exit() -> None:
    class StopAtFirstDelta(Middleware):
        async def on_reply(self, ctx: HookContext, request: Any, next: Any) -> AsyncIterator[Event]:
            async for event in next(request):
                yield event
                if isinstance(event, TextBlockDelta):
                    return

    w = Watcher("w", hook="on_reply")
    agent = Agent(ScriptedModel(["one two three"], chunk_size=4), middleware=[StopAtFirstDelta(), w])
    events = await collect(agent)
    assert events[-1].stop_reason == "stopped"  # type: ignore[union-attr]
    assert len(w.ends) == 1 and isinstance(w.ends[0], GeneratorExit)


async def test_an_on_reply_watcher_sees_reply_start_first_and_reply_end_last() -> None:
    class Cache(Middleware):
        async def on_reply(self, ctx: HookContext, request: Any, next: Any) -> str:
            return "from the cache"  # answers alone, without ReplyStart or ReplyEnd

    w = Watcher("w", hook="on_reply")
    agent = Agent(ScriptedModel(["never asked"]), middleware=[w, Cache()])
    events = await collect(agent)
    assert isinstance(w.items[0], ReplyStart) and isinstance(w.items[-1], ReplyEnd)
    assert w.ends == [None]
    assert isinstance(events[-1], ReplyEnd)
    assert isinstance(agent.messages[-1], AssistantMessage)
    assert agent.messages[-1].text == "from the cache"  # kept in the history with the input


async def test_a_watcher_switched_off_is_skipped_and_back_on_watches_again() -> None:
    w = Watcher("w")
    agent = Agent(ScriptedModel(["a", "b"]), middleware=[w])
    agent.middleware.set_enabled("w", False)
    await collect(agent)
    assert w.items == [] and w.ends == []
    agent.middleware.set_enabled("w", True)
    await collect(agent)
    assert w.ends == [None] and "b" in [text_of(i) for i in w.items]


async def test_watchers_work_with_stats_read_and_count_their_calls() -> None:
    a, b = Watcher("a"), Watcher("b")
    agent = Agent(ScriptedModel(["one two"], chunk_size=4), middleware=[a, b])
    stats = agent.middleware.stats("a")  # from now on each layer is timed
    await collect(agent)
    assert a.items == b.items and len(a.items) > 2
    assert stats.hooks["on_model_call"].calls == 1
    assert agent.middleware.stats("b").hooks["on_model_call"].calls == 1


async def test_a_coroutine_layer_outside_a_watcher_still_gets_the_message() -> None:
    got: list[str] = []

    class Awaiting(Middleware):
        async def on_model_call(self, ctx: HookContext, request: ModelRequest, next: Any) -> Any:
            message = await next()
            got.append(message.text)
            return message

    w = Watcher("w")
    events = await collect(Agent(ScriptedModel(["hello there"], chunk_size=3), middleware=[Awaiting(), w]))
    assert got == ["hello there"]
    assert len(of(events, TextBlockDelta)) == 4  # still streamed chunk by chunk
    assert "".join(i.text for i in w.items if isinstance(i, TextDelta)) == "hello there"


async def test_watch_over_any_async_iterator_and_closed_early() -> None:
    async def numbers() -> AsyncIterator[int]:
        for n in range(5):
            yield n

    seen: list[int] = []
    ends: list[BaseException | None] = []
    assert [n async for n in watch(numbers(), seen.append, end=ends.append)] == [0, 1, 2, 3, 4]
    assert seen == [0, 1, 2, 3, 4] and ends == [None]

    seen.clear()
    ends.clear()
    items = watch(numbers(), seen.append, end=ends.append)
    assert await items.__anext__() == 0
    await items.aclose()  # type: ignore[attr-defined]
    await items.aclose()  # type: ignore[attr-defined]  # twice: ends once
    assert seen == [0] and len(ends) == 1 and isinstance(ends[0], GeneratorExit)
