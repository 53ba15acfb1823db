"""A middleware that raises, at any hook and any point of it, ends the reply with an
``ErrorEvent`` naming it; with it switched off, the next reply works."""

from __future__ import annotations

import random
from collections.abc import AsyncIterator
from typing import Any

import anyio
import pytest

from middleware.base import Middleware
from shell.agent import Agent, AssistantMessage, TextBlock, ToolCallBlock
from shell.core.events import ErrorEvent, Event, ReplyEnd
from shell.core.tools import tool
from shell.providers.scripted import ScriptedModel
from tests.helpers import history_is_valid


class Boom(Exception):
    pass


@tool(read_only=True)
async def echo(text: str) -> str:
    """Echo."""
    await anyio.sleep(0.001)
    return text


STREAMING = ("on_reply", "on_reasoning", "on_model_call")
ONIONS = ("on_compress_context", "on_acting")
PLAIN = (
    "transform_system_prompt", "list_tools", "transform_context", "convert_to_llm",
    "after_model_response", "before_tool_call", "after_tool_call", "should_stop_after_turn",
)
CASES = (
    [(h, p) for h in STREAMING for p in ("before", "during", "after")]
    + [(h, p) for h in ONIONS for p in ("before", "after")]
    + [(h, "raise") for h in PLAIN]
)


def faulty(hook: str, phase: str, on_call: int) -> Middleware:
    """A middleware whose ``hook`` raises ``Boom`` at ``phase`` of its ``on_call``-th call."""
    state = {"calls": 0, "raised": False}

    def fire() -> None:
        state["raised"] = True
        raise Boom(f"{hook} {phase}")

    def due() -> bool:
        state["calls"] += 1
        return state["calls"] == on_call

    async def streaming(self: Any, ctx: Any, request: Any, next: Any) -> AsyncIterator[Any]:
        hit = due()
        if hit and phase == "before":
            fire()
        n = 0
        async for item in next(request):
            yield item
            n += 1
            if hit and phase == "during" and n == 1:
                fire()
        if hit and phase == "after":
            fire()

    async def onion(self: Any, ctx: Any, request: Any, next: Any) -> Any:
        hit = due()
        if hit and phase == "before":
            fire()
        result = await next(request)
        if hit and phase == "after":
            fire()
        return result

    def make_plain(default: Any) -> Any:
        if hook == "list_tools":
            def sync(self: Any) -> Any:
                if due():
                    fire()
                return ()
            return sync

        async def plain(self: Any, *args: Any) -> Any:
            if due():
                fire()
            return default(args)
        return plain

    defaults = {
        "transform_system_prompt": lambda a: a[1],
        "transform_context": lambda a: a[1],
        "convert_to_llm": lambda a: a[1],
        "after_model_response": lambda a: None,
        "before_tool_call": lambda a: None,
        "after_tool_call": lambda a: None,
        "should_stop_after_turn": lambda a: False,
    }
    if hook in STREAMING:
        method: Any = streaming
    elif hook in ONIONS:
        method = onion
    else:
        method = make_plain(defaults.get(hook, lambda a: None))
    cls = type("Faulty", (Middleware,), {hook: method, "name": "Faulty"})
    mw = cls()
    mw.state = state  # type: ignore[attr-defined]
    return mw


def turns() -> list[Any]:
    return [
        AssistantMessage(
            (TextBlock("calling"), ToolCallBlock("c1", "echo", {"text": "a"}),
             ToolCallBlock("c2", "echo", {"text": "b"}))
        ),
        "the answer",
    ]


async def run(agent: Agent, text: str) -> list[Event]:
    with anyio.fail_after(5):
        return [e async for e in agent.reply(text)]


def _case(hook: str, phase: str, on_call: int) -> Any:
    return pytest.param(hook, phase, on_call, id=f"{hook}-{phase}-{on_call}")


@pytest.mark.anyio
@pytest.mark.parametrize(("hook", "phase", "on_call"), [_case(h, p, n) for h, p in CASES for n in (1, 2)])
async def test_a_raising_middleware_is_named_and_can_be_switched_off(
    hook: str, phase: str, on_call: int
) -> None:
    mw = faulty(hook, phase, on_call)
    agent = Agent(ScriptedModel(turns(), delay=0.0005), tools=[echo], middleware=[mw])
    events = await run(agent, "go")
    end = events[-1]
    assert isinstance(end, ReplyEnd)
    assert history_is_valid(agent.messages)
    errors = [e for e in events if isinstance(e, ErrorEvent)]
    if mw.state["raised"]:  # type: ignore[attr-defined]
        assert end.stop_reason == "error", events
        assert [e.source for e in errors] == ["Faulty"], errors
        assert "Boom" in errors[0].error and "Faulty" in errors[0].error
    else:
        assert end.stop_reason == "end_turn" and not errors
    agent.middleware.set_enabled("Faulty", False)
    agent.model = ScriptedModel(turns())
    events = await run(agent, "again")
    end = events[-1]
    assert isinstance(end, ReplyEnd) and end.stop_reason == "end_turn", events
    assert not [e for e in events if isinstance(e, ErrorEvent)]
    assert history_is_valid(agent.messages)


@pytest.mark.anyio
async def test_random_hooks_random_points() -> None:
    rng = random.Random(7)
    for _ in range(60):
        hook, phase = rng.choice(CASES)
        mw = faulty(hook, phase, rng.randint(1, 2))
        agent = Agent(
            ScriptedModel(turns(), delay=rng.choice([0.0, 0.0005])), tools=[echo], middleware=[mw],
            tool_execution=rng.choice(["parallel", "sequential"]),
        )
        events = await run(agent, "go")
        assert isinstance(events[-1], ReplyEnd) and history_is_valid(agent.messages), (hook, phase)
        if mw.state["raised"]:  # type: ignore[attr-defined]
            assert [e.source for e in events if isinstance(e, ErrorEvent)] == ["Faulty"], (hook, phase)
        agent.middleware.set_enabled("Faulty", False)
        agent.model = ScriptedModel(["fine"])
        events = await run(agent, "again")
        assert isinstance(events[-1], ReplyEnd) and events[-1].stop_reason == "end_turn", (hook, phase)


@pytest.mark.anyio
async def test_a_raising_on_error_is_logged_not_raised() -> None:
    class BadObserver(Middleware):
        async def on_error(self, ctx: Any, error: BaseException, source: str) -> None:
            raise Boom("observer")

    agent = Agent(ScriptedModel([RuntimeError("provider down"), "ok"]), middleware=[BadObserver()])
    events = await run(agent, "go")
    end = events[-1]
    assert isinstance(end, ReplyEnd) and end.stop_reason == "error"
    assert [e.source for e in events if isinstance(e, ErrorEvent)] == ["model"]
    events = await run(agent, "again")
    assert isinstance(events[-1], ReplyEnd) and events[-1].stop_reason == "end_turn"
