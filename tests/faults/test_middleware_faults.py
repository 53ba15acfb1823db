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


class Trigger:
    """Raises ``Boom`` at ``phase`` of the ``on_call``-th call of ``hook``."""

    def __init__(self, hook: str, phase: str, on_call: int) -> None:
        self.hook, self.phase, self.on_call = hook, phase, on_call
        self.state = {"calls": 0, "raised": False}

    def fire(self) -> None:
        self.state["raised"] = True
        raise Boom(f"{self.hook} {self.phase}")

    def due(self) -> bool:
        self.state["calls"] += 1
        return self.state["calls"] == self.on_call

    def at(self, hit: bool, phase: str) -> None:
        if hit and self.phase == phase:
            self.fire()


def _streaming(trigger: Trigger) -> Any:
    async def streaming(self: Any, ctx: Any, request: Any, next: Any) -> AsyncIterator[Any]:
        hit = trigger.due()
        trigger.at(hit, "before")
        n = 0
        async for item in next(request):
            yield item
            n += 1
            trigger.at(hit and n == 1, "during")
        trigger.at(hit, "after")

    return streaming


def _onion(trigger: Trigger) -> Any:
    async def onion(self: Any, ctx: Any, request: Any, next: Any) -> Any:
        hit = trigger.due()
        trigger.at(hit, "before")
        result = await next(request)
        trigger.at(hit, "after")
        return result

    return onion


PLAIN_RESULTS: dict[str, Any] = {
    "transform_system_prompt": lambda a: a[1],
    "transform_context": lambda a: a[1],
    "convert_to_llm": lambda a: a[1],
    "should_stop_after_turn": lambda a: False,
}
"""What a plain hook hands back when it does not raise (None for the rest)."""


def _plain(trigger: Trigger) -> Any:
    if trigger.hook == "list_tools":
        def sync(self: Any) -> Any:
            if trigger.due():
                trigger.fire()
            return ()
        return sync
    default = PLAIN_RESULTS.get(trigger.hook, lambda a: None)

    async def plain(self: Any, *args: Any) -> Any:
        if trigger.due():
            trigger.fire()
        return default(args)
    return plain


def faulty(hook: str, phase: str, on_call: int) -> Middleware:
    """A middleware whose ``hook`` raises ``Boom`` at ``phase`` of its ``on_call``-th call."""
    trigger = Trigger(hook, phase, on_call)
    make = _streaming if hook in STREAMING else _onion if hook in ONIONS else _plain
    cls = type("Faulty", (Middleware,), {hook: make(trigger), "name": "Faulty"})
    mw = cls()
    mw.state = trigger.state  # type: ignore[attr-defined]
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
    raised = 0
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
            raised += 1
            assert [e.source for e in events if isinstance(e, ErrorEvent)] == ["Faulty"], (hook, phase)
        agent.middleware.set_enabled("Faulty", False)
        agent.model = ScriptedModel(["fine"])
        events = await run(agent, "again")
        assert isinstance(events[-1], ReplyEnd) and events[-1].stop_reason == "end_turn", (hook, phase)
    assert raised >= 10  # the faults were met, not skipped (the check above ran)


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
