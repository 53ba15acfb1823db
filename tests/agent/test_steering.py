"""``Agent.steer``: a message given while a reply runs reaches the model at the next tool
boundary of the same reply, before its next model call, announced where it landed."""

from __future__ import annotations

from contextlib import aclosing

import anyio
import pytest

from shell.agent import Agent, AssistantMessage, ToolCallBlock, ToolResultMessage, UserMessage, tool
from shell.core.events import (
    Event,
    ModelCallStart,
    ReplyEnd,
    Steered,
    TextBlockDelta,
    ToolExecutionEnd,
    ToolExecutionStart,
)
from shell.providers.scripted import ScriptedModel
from tests.helpers import history_is_valid

pytestmark = pytest.mark.anyio


def calling(*names: str) -> AssistantMessage:
    return AssistantMessage(tuple(ToolCallBlock(f"c{i}", n, {}) for i, n in enumerate(names)))


def slow_tool(gate: anyio.Event, name: str = "slow") -> object:
    @tool(name=name, read_only=True)
    async def slow() -> str:
        """Waits until the test lets it finish."""
        await gate.wait()
        return "slow result"

    return slow


async def test_a_steer_during_a_tool_reaches_the_next_model_call() -> None:
    gate = anyio.Event()
    model = ScriptedModel([calling("slow"), "Done, using the other file."])
    agent = Agent(model, tools=[slow_tool(gate)])  # type: ignore[list-item]
    seen: list[Event] = []
    async with aclosing(agent.reply("read the file")) as events:
        async for event in events:
            seen.append(event)
            if isinstance(event, ToolExecutionStart):
                assert agent.steer("use the other file")
                gate.set()
    second = model.requests[1].messages
    assert isinstance(second[-2], ToolResultMessage) and second[-1] == UserMessage("use the other file")
    order = [type(e).__name__ for e in seen if isinstance(e, (ToolExecutionEnd, Steered, ModelCallStart))]
    assert order == ["ModelCallStart", "ToolExecutionEnd", "Steered", "ModelCallStart"]
    landed = next(e for e in seen if isinstance(e, Steered))
    assert landed.message.text == "use the other file" and landed.reply_id == seen[0].reply_id
    assert isinstance(seen[-1], ReplyEnd) and seen[-1].stop_reason == "end_turn"
    assert agent.messages[3] == UserMessage("use the other file") and history_is_valid(agent.messages)
    assert agent.take_steering() == []


async def test_a_reply_about_to_end_goes_on_for_the_steer() -> None:
    model = ScriptedModel(["a long answer " * 20, "Adjusted."], delay=0.001)
    agent = Agent(model)
    async with aclosing(agent.reply("explain")) as events:
        async for event in events:
            if isinstance(event, TextBlockDelta) and not agent.steering and len(model.requests) == 1:
                agent.steer("shorter, please")
            end = event
    assert len(model.requests) == 2
    assert model.requests[1].messages[-1] == UserMessage("shorter, please")
    assert isinstance(end, ReplyEnd) and end.message is not None and end.message.text == "Adjusted."


async def test_a_steer_waits_for_the_whole_tool_batch() -> None:
    gate = anyio.Event()
    model = ScriptedModel([calling("slow", "other"), "Both done."])
    agent = Agent(model, tools=[slow_tool(gate), slow_tool(gate, "other")])  # type: ignore[list-item]
    async with aclosing(agent.reply("go")) as events:
        async for event in events:
            if isinstance(event, ToolExecutionStart) and event.name == "slow":
                agent.steer("and then stop")
                gate.set()
    roles = [m.role for m in model.requests[1].messages]
    assert roles == ["user", "assistant", "tool", "tool", "user"]


async def test_nothing_to_steer_and_what_a_cancelled_reply_leaves() -> None:
    agent = Agent(ScriptedModel(["hi"]))
    assert not agent.steer("no reply runs")
    gate = anyio.Event()
    model = ScriptedModel([calling("slow"), "never"])
    agent = Agent(model, tools=[slow_tool(gate)])  # type: ignore[list-item]
    async with aclosing(agent.reply("go")) as events:
        async for event in events:
            if isinstance(event, ToolExecutionStart):
                agent.steer("too late")
                agent.cancel()
            end = event
    assert isinstance(end, ReplyEnd) and end.stop_reason == "cancelled"
    assert len(model.requests) == 1
    assert UserMessage("too late") not in agent.messages and history_is_valid(agent.messages)
    assert agent.take_steering() == [UserMessage("too late")]  # the front end sends it as a message


async def test_no_steer_when_no_model_call_is_left() -> None:
    gate = anyio.Event()
    gate.set()
    agent = Agent(ScriptedModel([calling("slow"), "x"]), tools=[slow_tool(gate)], max_rounds=1)  # type: ignore[list-item]
    async with aclosing(agent.reply("go")) as events:
        async for event in events:
            if isinstance(event, ToolExecutionStart):
                agent.steer("unheard")
            end = event
    assert isinstance(end, ReplyEnd) and end.stop_reason == "max_rounds"
    assert agent.take_steering() == [UserMessage("unheard")]
