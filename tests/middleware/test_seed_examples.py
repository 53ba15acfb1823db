"""The seeds' own examples, ported: AgentScope's Timing, RateLimit, DynamicContext and
ModelFallback; CubePi's MaxTurns; an Eino-style tool filter; HPD's circuit breaker."""

from __future__ import annotations

import time
from collections.abc import AsyncIterator, Callable
from datetime import datetime
from typing import Any

import anyio
import pytest

from middleware import HookContext, Middleware, ToolCallContext, TurnAction
from shell.agent import Agent, AssistantMessage, Message, ModelRequest, ToolCallBlock, tool
from shell.core.events import ToolExecutionEnd
from shell.core.model import ChatModel, ModelChunk
from shell.providers.scripted import ScriptedModel
from tests.helpers import calls, collect, of


class TimingMiddleware(Middleware):
    """AgentScope: records the elapsed time of every model call."""

    def __init__(self) -> None:
        self.timings: list[tuple[str, float]] = []

    async def on_model_call(
        self, ctx: HookContext, request: ModelRequest, next: Any
    ) -> AsyncIterator[ModelChunk]:
        start = time.perf_counter()
        async for chunk in next(request):
            yield chunk
        self.timings.append((request.model.name, time.perf_counter() - start))


class RateLimitMiddleware(Middleware):
    """AgentScope: a minimum interval between two model calls."""

    def __init__(self, min_interval: float = 1.0) -> None:
        self._last_call = 0.0
        self._min_interval = min_interval

    async def on_model_call(
        self, ctx: HookContext, request: ModelRequest, next: Any
    ) -> AsyncIterator[ModelChunk]:
        wait = self._min_interval - (time.monotonic() - self._last_call)
        if wait > 0:
            await anyio.sleep(wait)
        self._last_call = time.monotonic()
        async for chunk in next(request):
            yield chunk


class DynamicContextMiddleware(Middleware):
    """AgentScope: injects real-time context into the system prompt."""

    def __init__(self, context_fn: Callable[[], str]) -> None:
        self._context_fn = context_fn

    async def transform_system_prompt(self, ctx: HookContext, prompt: str) -> str:
        return f"{prompt}\n\n## Current Context\n{self._context_fn()}"


class ModelFallbackMiddleware(Middleware):
    """AgentScope: switches to a fallback model when the primary fails."""

    def __init__(self, fallback_model: ChatModel) -> None:
        self._fallback = fallback_model

    async def on_model_call(
        self, ctx: HookContext, request: ModelRequest, next: Any
    ) -> AsyncIterator[ModelChunk]:
        try:
            async for chunk in next(request):
                yield chunk
        except Exception:
            async for chunk in next(request.override(model=self._fallback)):
                yield chunk


class MaxTurnsMiddleware(Middleware):
    """CubePi: end the run after ``max_turns`` turns."""

    def __init__(self, max_turns: int) -> None:
        self.max_turns = max_turns
        self.turns = 0

    async def should_stop_after_turn(self, ctx: HookContext) -> bool:
        self.turns += 1
        return self.turns >= self.max_turns


class ToolFilter(Middleware):
    """Eino BeforeModelRewriteState: offer only the tools that pass a predicate."""

    def __init__(self, keep: Callable[[str], bool]) -> None:
        self.keep = keep

    async def transform_context(self, ctx: HookContext, messages: list[Message]) -> list[Message]:
        ctx.tools = [t for t in ctx.tools if self.keep(t.name)]
        return messages


class CircuitBreaker(Middleware):
    """HPD BeforeToolExecution: stop repeated identical calls after ``limit``."""

    def __init__(self, limit: int = 3) -> None:
        self.limit = limit

    async def after_model_response(self, ctx: HookContext, response: AssistantMessage) -> TurnAction | None:
        counts: dict[str, int] = ctx.reply_state.setdefault("counts", {})
        for call in response.tool_calls:
            signature = f"{call.name}:{sorted(call.args.items())}"
            counts[signature] = counts.get(signature, 0) + 1
            if counts[signature] >= self.limit:
                from shell.core.events import Notice

                ctx.emit(Notice("warning", f"Stopping repeated calls to {call.name}", self.name))
                return TurnAction(decision="stop")
        return None


@tool(read_only=True)
def ping(host: str) -> str:
    """Ping a host."""
    return f"pong from {host}"


@tool
def rm(path: str) -> str:
    """Remove a file."""
    return f"removed {path}"


@pytest.mark.anyio
async def test_agentscope_timing() -> None:
    timing = TimingMiddleware()
    agent = Agent(
        ScriptedModel([calls(("ping", {"host": "a"})), "done"], delay=0.005),
        tools=[ping],
        middleware=[timing],
    )
    await collect(agent)
    assert [name for name, _ in timing.timings] == ["scripted", "scripted"]
    assert all(elapsed >= 0.005 for _, elapsed in timing.timings)


@pytest.mark.anyio
async def test_agentscope_rate_limit() -> None:
    model = ScriptedModel([calls(("ping", {"host": "a"})), calls(("ping", {"host": "b"})), "done"])
    agent = Agent(model, tools=[ping], middleware=[RateLimitMiddleware(min_interval=0.05)])
    start = time.monotonic()
    await collect(agent)
    assert len(model.requests) == 3
    assert time.monotonic() - start >= 0.1  # two waits between three calls


@pytest.mark.anyio
async def test_agentscope_dynamic_context() -> None:
    model = ScriptedModel(["ok"])
    stamp = datetime(2026, 11, 21, 9, 30).isoformat()
    agent = Agent(
        model, middleware=[DynamicContextMiddleware(lambda: f"Time: {stamp}")], system_prompt="Be brief."
    )
    await collect(agent)
    assert model.requests[0].system_prompt == "Be brief.\n\n## Current Context\nTime: 2026-11-21T09:30:00"


@pytest.mark.anyio
async def test_agentscope_model_fallback() -> None:
    primary = ScriptedModel([RuntimeError("primary is down")], name="primary")
    backup = ScriptedModel(["from the backup"], name="backup")
    agent = Agent(primary, middleware=[ModelFallbackMiddleware(backup)])
    events = await collect(agent)
    assert events[-1].stop_reason == "end_turn"  # type: ignore[union-attr]
    assert agent.messages[-1].text == "from the backup"  # type: ignore[union-attr]
    assert len(primary.requests) == len(backup.requests) == 1
    assert backup.requests[0].model is backup


@pytest.mark.anyio
async def test_cubepi_max_turns() -> None:
    model = ScriptedModel([calls(("ping", {"host": "a"}))], loop=True)
    agent = Agent(model, tools=[ping], middleware=[MaxTurnsMiddleware(2)])
    events = await collect(agent)
    assert len(model.requests) == 2
    assert events[-1].stop_reason == "stopped"  # type: ignore[union-attr]


@pytest.mark.anyio
async def test_eino_style_tool_filter_in_transform_context() -> None:
    model = ScriptedModel(["ok"])
    agent = Agent(model, tools=[ping, rm], middleware=[ToolFilter(lambda name: name != "rm")])
    await collect(agent)
    assert [t.name for t in model.requests[0].tools] == ["ping"]
    agent.middleware.set_enabled("ToolFilter", False)
    agent.model = model = ScriptedModel(["ok"])
    await collect(agent)
    assert [t.name for t in model.requests[0].tools] == ["ping", "rm"]


@pytest.mark.anyio
async def test_hpd_style_circuit_breaker() -> None:
    same = AssistantMessage((ToolCallBlock("c", "ping", {"host": "a"}),))
    model = ScriptedModel([same], loop=True)
    agent = Agent(model, tools=[ping], middleware=[CircuitBreaker(limit=3)])
    events = await collect(agent)
    assert len(model.requests) == 3
    assert len(of(events, ToolExecutionEnd)) == 2 + 1  # two ran, the third got a "did not run" result
    assert events[-1].stop_reason == "stopped"  # type: ignore[union-attr]
    assert any("Stopping repeated calls to ping" in getattr(e, "text", "") for e in events)


@pytest.mark.anyio
async def test_tool_context_sees_the_assistant_message() -> None:
    seen: list[str] = []

    class Inspect(Middleware):
        async def before_tool_call(self, ctx: ToolCallContext) -> None:
            seen.append(f"{ctx.tool.name} from {ctx.assistant_message.text!r} round {ctx.round}")

    agent = Agent(
        ScriptedModel([calls(("ping", {"host": "a"}), text="checking"), "ok"]),
        tools=[ping],
        middleware=[Inspect()],
    )
    await collect(agent)
    assert seen == ["ping from 'checking' round 0"]
