"""Onion hooks in either style the seeds use, checked when the stack is built, and
every error inside a middleware named after it."""

from __future__ import annotations

import subprocess
import sys
import threading
import time
from collections.abc import AsyncIterator
from typing import Any

import anyio
import pytest

from middleware import HookContext, Middleware, MiddlewareStack, ToolCallContext, ToolRequest
from shell.agent import Agent, AssistantMessage, ModelRequest, ToolResult, tool
from shell.core.events import ErrorEvent, ModelCallStart, ReplyEnd, TextBlockDelta, ToolExecutionEnd
from shell.core.model import ModelChunk, ModelError, TextDelta
from shell.providers.scripted import ScriptedModel
from tests.helpers import calls, collect, of


class AgentScopeTiming(Middleware):
    """``result = await next_handler(); ...; return result``, with ``next()`` bare."""

    def __init__(self) -> None:
        self.seen: list[tuple[str, str]] = []

    async def on_model_call(self, ctx: HookContext, request: ModelRequest, next: Any) -> Any:
        result = await next()
        self.seen.append((request.model.name, result.text))
        return result


@pytest.mark.anyio
async def test_a_coroutine_on_model_call_streams_and_gets_the_message() -> None:
    timing = AgentScopeTiming()
    agent = Agent(ScriptedModel(["hello world"], chunk_size=2), middleware=[timing])
    events = await collect(agent)
    assert len(of(events, TextBlockDelta)) == 6  # streamed chunk by chunk, not in one piece
    assert timing.seen == [("scripted", "hello world")]
    assert events[-1].stop_reason == "end_turn"  # type: ignore[union-attr]


def test_a_coroutine_layer_streams_on_a_thread_other_than_the_one_that_imported_it() -> None:
    """Finding R5: the TUI and the line mode build the runtime in a worker thread and
    reply on another; every coroutine-style onion failed there with "'_thread._local'
    object has no attribute 'coro'". Here the reply runs on a fresh thread, as theirs."""
    timing = AgentScopeTiming()
    agent = Agent(ScriptedModel(["hello world"], chunk_size=2), middleware=[timing])
    got: list[Any] = []

    def reply_elsewhere() -> None:
        got.append(anyio.run(collect, agent))

    thread = threading.Thread(target=reply_elsewhere)
    thread.start()
    thread.join()
    events = got[0]
    assert of(events, ErrorEvent) == []
    assert len(of(events, TextBlockDelta)) == 6  # still streamed chunk by chunk
    assert timing.seen == [("scripted", "hello world")]


class SlowModel:
    """Says its first word, then waits for the test to have seen it (``go_on``)."""

    name = "slow"

    def __init__(self) -> None:
        self.produced = 0
        self.go_on = anyio.Event()

    async def stream(self, request: ModelRequest) -> AsyncIterator[ModelChunk]:
        for word in ("one ", "two ", "three"):
            self.produced += 1
            yield TextDelta(word)
            await self.go_on.wait()


@pytest.mark.anyio
async def test_items_pass_a_coroutine_layer_live() -> None:
    """The first word reaches the consumer while the model waits to go on: a layer
    that held the stream back until the model ended would wait for ever (failing after
    30 s). (The model slept 50 ms instead, which a loaded machine could outlast, and
    the assert sat in an ``if`` that no delta at all skipped.)"""
    model = SlowModel()
    agent = Agent(model, middleware=[AgentScopeTiming()])
    produced_at_each_delta: list[int] = []
    with anyio.fail_after(30):
        async for event in agent.reply("go"):
            if isinstance(event, TextBlockDelta):
                produced_at_each_delta.append(model.produced)
                model.go_on.set()
    assert produced_at_each_delta[:1] == [1]  # the first word came before the model went on
    assert len(produced_at_each_delta) == 3


class Fallback(Middleware):
    """AgentScope's ModelFallbackMiddleware, coroutine style."""

    def __init__(self, fallback: Any) -> None:
        self._fallback = fallback

    async def on_model_call(self, ctx: HookContext, request: ModelRequest, next: Any) -> Any:
        try:
            return await next()
        except Exception:
            return await next(model=self._fallback)


@pytest.mark.anyio
async def test_coroutine_fallback_catches_the_model_error_and_names_the_model_that_answered() -> None:
    primary = ScriptedModel([ModelError("down", provider="p")])
    primary.name = "primary"
    backup = ScriptedModel(["from the backup"])
    backup.name = "backup"
    agent = Agent(primary, middleware=[Fallback(backup)])
    events = await collect(agent)
    assert events[-1].stop_reason == "end_turn"  # type: ignore[union-attr]
    assert agent.messages[-1].text == "from the backup"  # type: ignore[union-attr]
    assert [e.model for e in of(events, ModelCallStart)] == ["scripted:primary", "scripted:backup"]


class Broken(Middleware):
    async def on_model_call(self, ctx: HookContext, request: ModelRequest, next: Any) -> Any:
        await next()
        raise ValueError("my own bug")


@pytest.mark.anyio
async def test_an_error_in_a_coroutine_layer_is_the_middlewares() -> None:
    events = await collect(Agent(ScriptedModel(["hi"]), middleware=[Broken()]))
    error = of(events, ErrorEvent)[0]
    assert error.source == "Broken" and "my own bug" in error.error
    assert "/middleware Broken off" in error.error


class ReturnsJunk(Middleware):
    async def on_model_call(self, ctx: HookContext, request: ModelRequest, next: Any) -> Any:
        await next()
        return AssistantMessage(())  # a different answer after the real one streamed


@pytest.mark.anyio
async def test_a_different_answer_after_streaming_is_the_middlewares_error() -> None:
    events = await collect(Agent(ScriptedModel(["hi"]), middleware=[ReturnsJunk()]))
    error = of(events, ErrorEvent)[0]
    assert error.source == "ReturnsJunk" and "after_model_response" in error.error


@pytest.mark.anyio
async def test_a_coroutine_layer_answers_alone_with_plain_text() -> None:
    class Cache(Middleware):
        async def on_model_call(self, ctx: HookContext, request: ModelRequest, next: Any) -> Any:
            return "cached answer"

    model = ScriptedModel([])
    events = await collect(Agent(model, middleware=[Cache()]))
    assert model.requests == [] and events[-1].message.text == "cached answer"  # type: ignore[union-attr]


@pytest.mark.anyio
async def test_both_styles_nest_in_one_onion() -> None:
    order: list[str] = []

    class Gen(Middleware):
        async def on_model_call(self, ctx: HookContext, request: ModelRequest, next: Any) -> Any:
            order.append("gen pre")
            async for chunk in next(request):
                yield chunk
            order.append("gen post")

    class Coro(Middleware):
        async def on_model_call(self, ctx: HookContext, request: ModelRequest, next: Any) -> Any:
            order.append("coro pre")
            result = await next(request)
            order.append("coro post")
            return result

    agent = Agent(ScriptedModel(["x"]), middleware=[Gen(), Coro()])
    assert (await collect(agent))[-1].stop_reason == "end_turn"  # type: ignore[union-attr]
    assert order == ["gen pre", "coro pre", "coro post", "gen post"]


@pytest.mark.anyio
async def test_on_acting_as_a_generator_yields_its_result() -> None:
    @tool(read_only=True)
    def ping() -> str:
        """Ping."""
        return "pong"

    class Shout(Middleware):
        async def on_acting(self, ctx: ToolCallContext, request: ToolRequest, next: Any) -> Any:
            async for result in next():
                yield ToolResult(result.text.upper())

    agent = Agent(ScriptedModel([calls(("ping", {})), "ok"]), tools=[ping], middleware=[Shout()])
    events = await collect(agent)
    assert of(events, ToolExecutionEnd)[0].result.text == "PONG"


# -- shapes are checked when the stack is built -------------------------------------------


def test_a_plain_generator_hook_is_refused_naming_middleware_and_hook() -> None:
    class Wrong(Middleware):
        def on_model_call(self, ctx: Any, request: Any, next: Any) -> Any:  # a sync generator
            yield from ()

    with pytest.raises(TypeError, match=r"Middleware 'Wrong': on_model_call is a plain generator"):
        MiddlewareStack([Wrong()])


def test_a_hook_with_the_wrong_parameters_is_refused() -> None:
    class Wrong(Middleware):
        async def on_acting(self, ctx: Any) -> Any:  # no request, no next
            return None

    with pytest.raises(TypeError, match=r"'Wrong': on_acting must take \(ctx, request, next\)"):
        Agent(ScriptedModel([]), middleware=[Wrong()])


def test_an_async_generator_where_one_value_is_returned_is_refused() -> None:
    class Wrong(Middleware):
        async def before_tool_call(self, ctx: Any) -> Any:
            yield None

    with pytest.raises(TypeError, match="before_tool_call is an async generator"):
        MiddlewareStack([Wrong()])


@pytest.mark.anyio
async def test_sync_hooks_are_fine_where_one_value_is_returned() -> None:
    class Sync(Middleware):
        def transform_system_prompt(self, ctx: Any, prompt: str) -> str:
            return prompt + " (sync)"

    model = ScriptedModel(["ok"])
    await collect(Agent(model, system_prompt="base", middleware=[Sync()]))
    assert model.requests[0].system_prompt == "base (sync)"


@pytest.mark.anyio
async def test_next_takes_keyword_overrides() -> None:
    class Cold(Middleware):
        async def on_model_call(self, ctx: HookContext, request: ModelRequest, next: Any) -> Any:
            return await next(options={"temperature": 0})

    model = ScriptedModel(["ok"])
    await collect(Agent(model, middleware=[Cold()]))
    assert model.requests[0].options == {"temperature": 0}


# -- built-ins from the package ---------------------------------------------------------


def test_every_builtin_imports_from_the_package_lazily() -> None:
    import middleware
    from middleware.registry import builtin_middleware

    for name, cls in builtin_middleware().items():
        assert getattr(middleware, cls.__name__) is cls, name
    code = "import sys, middleware; print(sorted(m for m in sys.modules if m.startswith('middleware.')))"
    loaded = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert "middleware.tts" not in loaded and "middleware.human_in_the_loop" not in loaded
    started = time.perf_counter()
    from middleware import HumanInTheLoop, Tracing  # noqa: F401

    assert time.perf_counter() - started < 5
    with pytest.raises(AttributeError):
        middleware.NoSuchMiddleware  # noqa: B018


@pytest.mark.anyio
async def test_an_error_event_ends_the_reply_when_a_layer_fails_before_next() -> None:
    class Early(Middleware):
        async def on_reply(self, ctx: HookContext, request: Any, next: Any) -> Any:
            raise RuntimeError("before anything")

    events = await collect(Agent(ScriptedModel(["x"]), middleware=[Early()]))
    assert of(events, ErrorEvent)[0].source == "Early"
    assert isinstance(events[-1], ReplyEnd) and events[-1].stop_reason == "error"
