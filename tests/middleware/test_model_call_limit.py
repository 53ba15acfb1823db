"""ModelCallLimit: run and thread scopes, graceful end, error."""

from __future__ import annotations

import pytest

from middleware.model_call_limit import ModelCallLimit
from shell.agent import AssistantMessage, ToolCallBlock, ToolResultMessage, tool
from shell.agent.loop import Agent
from shell.core.events import ErrorEvent, Event, ReplyEnd
from shell.providers.scripted import ScriptedModel

pytestmark = pytest.mark.anyio


@tool(read_only=True)
def ping() -> str:
    """Ping."""
    return "pong"


def looping_model() -> ScriptedModel:
    """A model that calls a tool forever."""
    counter = iter(range(1000))
    return ScriptedModel(
        [lambda request: AssistantMessage((ToolCallBlock(f"c{next(counter)}", "ping", {}),))], loop=True
    )


async def run(agent: Agent, text: str = "go") -> list[Event]:
    return [e async for e in agent.reply(text)]


def end_of(events: list[Event]) -> ReplyEnd:
    end = events[-1]
    assert isinstance(end, ReplyEnd)
    return end


async def test_run_limit_ends_the_reply_gracefully() -> None:
    model = looping_model()
    agent = Agent(model, tools=[ping], middleware=[ModelCallLimit(run_limit=2)])
    events = await run(agent)
    assert len(model.requests) == 2
    end = end_of(events)
    assert end.stop_reason == "stopped"
    assert end.message is not None
    assert end.message.text == "Model call limits exceeded: run limit (2/2). Stopping here."
    assert not any(isinstance(e, ErrorEvent) for e in events)
    # The history is valid: both calls answered, the notice last.
    assert sum(isinstance(m, ToolResultMessage) for m in agent.messages) == 2
    assert agent.messages[-1] == end.message


async def test_run_limit_resets_every_reply() -> None:
    model = ScriptedModel(["one", "two", "three"])
    mw = ModelCallLimit(run_limit=1)
    agent = Agent(model, middleware=[mw])
    for text in ("one", "two", "three"):
        end = end_of(await run(agent))
        assert end.stop_reason == "end_turn" and end.message is not None and end.message.text == text
    assert agent.session_state["ModelCallLimit"] == {"thread_count": 3}


async def test_thread_limit_counts_across_replies() -> None:
    model = ScriptedModel([AssistantMessage((ToolCallBlock("c1", "ping", {}),)), "first", "second"])
    agent = Agent(model, tools=[ping], middleware=[ModelCallLimit(thread_limit=3)])
    assert end_of(await run(agent)).stop_reason == "end_turn"  # two calls
    assert end_of(await run(agent)).stop_reason == "end_turn"  # the third
    end = end_of(await run(agent))
    assert end.stop_reason == "stopped"
    assert end.message is not None and "thread limit (3/3)" in end.message.text
    assert len(model.requests) == 3


async def test_both_limits_reported() -> None:
    model = ScriptedModel(["a"])
    agent = Agent(model, middleware=[ModelCallLimit(thread_limit=1, run_limit=1)])
    agent.session_state["ModelCallLimit"] = {"thread_count": 1}
    end = end_of(await run(agent))
    assert end.message is not None
    assert end.message.text.startswith("Model call limits exceeded: thread limit (1/1).")
    assert model.requests == []


async def test_error_behavior_raises_and_names_the_middleware() -> None:
    model = looping_model()
    agent = Agent(model, tools=[ping], middleware=[ModelCallLimit(run_limit=1, exit_behavior="error")])
    events = await run(agent)
    errors = [e for e in events if isinstance(e, ErrorEvent)]
    assert len(errors) == 1 and errors[0].source == "ModelCallLimit"
    assert "run limit (1/1)" in errors[0].error
    assert type(errors[0].exception).__name__ == "ModelCallLimitExceededError"
    assert end_of(events).stop_reason == "error"
    assert len(model.requests) == 1


def test_validation() -> None:
    with pytest.raises(ValueError):
        ModelCallLimit(run_limit=1, exit_behavior="continue")  # type: ignore[arg-type]
    with pytest.raises(ValueError):
        ModelCallLimit(run_limit=-1)
