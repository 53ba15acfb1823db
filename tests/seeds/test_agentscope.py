"""AgentScope's middleware page, its examples ported: FullObservability, the execution
order, Timing, RateLimit, DynamicContext, ModelFallback. Each is the seed's code with
our names (``ctx, request, next`` for ``agent, input_kwargs, next_handler``;
``transform_system_prompt`` for ``on_system_prompt``; ``next(model=...)`` for
``next_handler(current_model=...)``)."""

from __future__ import annotations

import time
from datetime import datetime
from typing import Any

import anyio
import pytest

from middleware import Middleware
from shell.agent import Agent
from shell.core.model import ModelError
from shell.providers.scripted import ScriptedModel
from tests.helpers import collect, kinds

pytestmark = pytest.mark.anyio
printed: list[str] = []


class FullObservabilityMiddleware(Middleware):
    """Observe every middleware position at once, plus contribute a tool."""

    async def on_reply(self, ctx: Any, request: Any, next: Any) -> Any:
        printed.append(f"[reply] start for {ctx.agent.name}")
        async for item in next(request):
            yield item
        printed.append(f"[reply] end for {ctx.agent.name}")

    async def on_reasoning(self, ctx: Any, request: Any, next: Any) -> Any:
        printed.append("[reasoning] start")
        async for event in next(request):
            yield event
        printed.append("[reasoning] end")

    async def on_model_call(self, ctx: Any, request: Any, next: Any) -> Any:
        printed.append(f"[model_call] {request.model.name}")
        result = await next(request)
        printed.append("[model_call] done")
        return result

    async def on_compress_context(self, ctx: Any, request: Any, next: Any) -> None:
        printed.append(f"[compress_context] checking context for {ctx.agent.name}")
        await next(request)
        printed.append("[compress_context] done")

    async def transform_system_prompt(self, ctx: Any, current_prompt: str) -> str:
        printed.append(f"[system_prompt] length={len(current_prompt)}")
        return current_prompt

    async def list_tools(self) -> list[Any]:
        return []


async def test_full_observability_sees_every_position_in_lifecycle_order() -> None:
    printed.clear()
    agent = Agent(
        ScriptedModel(["hello"]), system_prompt="Be brief.", middleware=[FullObservabilityMiddleware()]
    )
    events = await collect(agent)
    assert printed == [
        "[reply] start for agent",
        "[compress_context] checking context for agent",
        "[compress_context] done",
        "[reasoning] start",
        "[system_prompt] length=9",
        "[model_call] scripted",
        "[model_call] done",
        "[reasoning] end",
        "[reply] end for agent",
    ]
    assert agent.messages[-1].text == "hello" and kinds(events)[-1] == "ReplyEnd"  # type: ignore[union-attr]


class Tap(Middleware):
    def __init__(self, name: str) -> None:
        self.name = name

    async def on_model_call(self, ctx: Any, request: Any, next: Any) -> Any:
        printed.append(f"{self.name} pre")
        async for chunk in next(request):
            printed.append(f"{self.name} event")
            yield chunk
        printed.append(f"{self.name} post")

    async def transform_system_prompt(self, ctx: Any, prompt: str) -> str:
        return f"{prompt} -> {self.name}"


async def test_execution_order_first_is_outermost_and_inner_sees_each_event_first() -> None:
    printed.clear()
    model = ScriptedModel(["hi"], chunk_size=100)  # one text chunk, then usage and stop
    await collect(Agent(model, system_prompt="original_prompt", middleware=[Tap("mw1"), Tap("mw2")]))
    events = ["mw2 event", "mw1 event"] * 3
    assert printed == ["mw1 pre", "mw2 pre", *events, "mw2 post", "mw1 post"]
    assert model.requests[0].system_prompt == "original_prompt -> mw1 -> mw2"  # transformers chain


class TimingMiddleware(Middleware):
    async def on_model_call(self, ctx: Any, request: Any, next: Any) -> Any:
        model_name = request.model.name
        start = time.time()

        result = await next()

        elapsed = time.time() - start
        printed.append(f"[timing] {ctx.agent.name} → {model_name}: {elapsed:.2f}s")
        return result


async def test_timing_records_the_elapsed_time_of_every_model_call() -> None:
    printed.clear()
    agent = Agent(ScriptedModel(["one", "two"], delay=0.06), middleware=[TimingMiddleware()])
    await collect(agent, "a")
    await collect(agent, "b")
    assert len(printed) == 2 and all(p.startswith("[timing] agent → scripted: ") for p in printed)
    assert all(float(p.rsplit(" ", 1)[1][:-1]) >= 0.1 for p in printed)  # the whole streamed call


class RateLimitMiddleware(Middleware):
    def __init__(self, min_interval: float = 1.0):
        self._last_call = 0.0
        self._min_interval = min_interval

    async def on_model_call(self, ctx: Any, request: Any, next: Any) -> Any:
        now = time.time()
        wait = self._min_interval - (now - self._last_call)
        if wait > 0:
            await anyio.sleep(wait)  # the seed's asyncio.sleep, so that trio runs it too
        self._last_call = time.time()
        return await next()


async def test_rate_limit_keeps_a_minimum_interval_between_model_calls() -> None:
    model = ScriptedModel(["a", "b", "c"])
    agent = Agent(model, middleware=[RateLimitMiddleware(min_interval=0.1)])
    started = time.monotonic()
    for prompt in ("1", "2", "3"):
        await collect(agent, prompt)
    assert time.monotonic() - started >= 0.2  # two waits between three calls
    assert len(model.requests) == 3


class DynamicContextMiddleware(Middleware):
    def __init__(self, context_fn: Any) -> None:
        self._context_fn = context_fn

    async def transform_system_prompt(self, ctx: Any, current_prompt: str) -> str:
        context = self._context_fn()
        return f"{current_prompt}\n\n## Current Context\n{context}"


async def test_dynamic_context_injects_real_time_context_into_the_system_prompt() -> None:
    model = ScriptedModel(["ok"])
    agent = Agent(
        model,
        system_prompt="You are a helpful assistant.",
        middleware=[DynamicContextMiddleware(lambda: f"Time: {datetime.now().isoformat()}")],
    )
    await collect(agent)
    prompt = model.requests[0].system_prompt
    assert prompt.startswith("You are a helpful assistant.\n\n## Current Context\nTime: ")
    assert datetime.fromisoformat(prompt.rsplit("Time: ", 1)[1]).year >= 2024


class ModelFallbackMiddleware(Middleware):
    def __init__(self, fallback_model: Any) -> None:
        self._fallback = fallback_model

    async def on_model_call(self, ctx: Any, request: Any, next: Any) -> Any:
        try:
            return await next()
        except Exception as e:
            printed.append(f"Primary model failed: {e}, switching to fallback")
            return await next(
                model=self._fallback,
            )


async def test_model_fallback_switches_to_the_fallback_when_the_primary_fails() -> None:
    printed.clear()
    fallback = ScriptedModel(["answered by the fallback"])
    agent = Agent(
        ScriptedModel([ModelError("503 overloaded")]), middleware=[ModelFallbackMiddleware(fallback)]
    )
    events = await collect(agent)
    assert printed == ["Primary model failed: 503 overloaded, switching to fallback"]
    assert events[-1].stop_reason == "end_turn"  # type: ignore[union-attr]
    assert agent.messages[-1].text == "answered by the fallback"  # type: ignore[union-attr]
    assert len(fallback.requests) == 1
