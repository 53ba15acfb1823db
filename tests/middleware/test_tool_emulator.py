"""LLMToolEmulator: listed tools are answered by a model and never run."""

from __future__ import annotations

import pytest

from middleware.tool_emulator import LLMToolEmulator
from shell.agent import AssistantMessage, ModelError, ToolCallBlock, ToolResultMessage, UserMessage, tool
from shell.agent.loop import Agent
from shell.core.events import Event, ToolExecutionEnd
from shell.providers.scripted import ScriptedModel

pytestmark = pytest.mark.anyio

ran: list[str] = []


@tool(read_only=True)
def get_weather(city: str) -> str:
    """Current weather for a city."""
    ran.append("get_weather")
    return "real weather"


@tool
def send_email(to: str, body: str) -> str:
    """Send an email."""
    ran.append("send_email")
    return "sent"


@pytest.fixture(autouse=True)
def _reset() -> None:
    ran.clear()


def calls(*blocks: ToolCallBlock) -> AssistantMessage:
    return AssistantMessage(blocks)


async def run(agent: Agent) -> list[Event]:
    return [e async for e in agent.reply("go")]


def results(agent: Agent) -> dict[str, ToolResultMessage]:
    return {m.name: m for m in agent.messages if isinstance(m, ToolResultMessage)}


async def test_listed_tool_is_emulated_other_runs() -> None:
    emulator = ScriptedModel(['  {"temp_c": 21, "sky": "clear"}  '])
    main = ScriptedModel(
        [
            calls(
                ToolCallBlock("a", "get_weather", {"city": "Lyon"}),
                ToolCallBlock("b", "send_email", {"to": "x@y.z", "body": "hi"}),
            ),
            "done",
        ]
    )
    agent = Agent(
        main,
        tools=[get_weather, send_email],
        middleware=[LLMToolEmulator(tools=["get_weather"], model=emulator)],
    )
    events = await run(agent)
    assert ran == ["send_email"]
    got = results(agent)
    assert got["get_weather"].text == '{"temp_c": 21, "sky": "clear"}'
    assert got["send_email"].text == "sent"
    ends = {e.call_id: e for e in events if isinstance(e, ToolExecutionEnd)}
    assert ends["a"].result.details == {"emulated": True}
    prompt = emulator.requests[0].messages[0]
    assert isinstance(prompt, UserMessage)
    for part in ("get_weather", "Current weather for a city.", '"city": "Lyon"', '"type": "string"'):
        assert part in prompt.text
    assert "stand in for a software tool" in emulator.requests[0].system_prompt


async def test_none_emulates_every_tool_with_the_agents_model() -> None:
    call = ToolCallBlock("a", "send_email", {"to": "a", "body": "b"})
    main = ScriptedModel([calls(call), "Sent (200)", "ok"])
    agent = Agent(main, tools=[send_email], middleware=[LLMToolEmulator()])
    await run(agent)
    assert ran == []
    assert results(agent)["send_email"].text == "Sent (200)"
    assert len(main.requests) == 3


async def test_empty_list_emulates_nothing() -> None:
    main = ScriptedModel([calls(ToolCallBlock("a", "get_weather", {"city": "x"})), "ok"])
    agent = Agent(main, tools=[get_weather], middleware=[LLMToolEmulator(tools=[], model=ScriptedModel([]))])
    await run(agent)
    assert ran == ["get_weather"]


async def test_tool_objects_accepted_and_model_failure_is_a_tool_error() -> None:
    main = ScriptedModel([calls(ToolCallBlock("a", "get_weather", {"city": "x"})), "ok"])
    emulator = ScriptedModel([ModelError("no credit")])
    mw = LLMToolEmulator(tools=[get_weather], model=emulator)
    agent = Agent(main, tools=[get_weather], middleware=[mw])
    await run(agent)
    assert ran == []
    result = results(agent)["get_weather"]
    assert result.is_error and "no credit" in result.text


@pytest.mark.parametrize("typo", ["send_emial", "Send_Email ", "SEND_EMAIL"])
async def test_a_misspelt_tool_name_refuses_the_real_tool_it_looks_like(typo: str) -> None:
    """LLMToolEmulator(tools=["wirte"]) emulated nothing and the REAL tool ran,
    silently (finding V5): the user is told once, and the real tool the typo looks
    like is not run; the model reads why."""
    from shell.core.events import Notice

    main = ScriptedModel([calls(ToolCallBlock("a", "send_email", {"to": "x@y.z", "body": "hi"})), "done"])
    agent = Agent(main, tools=[get_weather, send_email],
                  middleware=[LLMToolEmulator(tools=[typo], model=ScriptedModel(["sent (emulated)"]))])
    events = await run(agent)
    assert ran == []
    result = results(agent)["send_email"]
    assert result.is_error and f"set to emulate {typo!r}" in result.text and "was not run" in result.text
    told = [e for e in events if isinstance(e, Notice)]
    assert [(n.level, n.source) for n in told] == [("warning", "LLMToolEmulator")]
    assert f"no tool is named {typo!r} (tools: get_weather, send_email)" in told[0].text
    assert f"{typo!r} looks like 'send_email'" in told[0].text


async def test_a_name_like_no_tool_is_said_once_and_other_tools_run() -> None:
    from shell.core.events import Notice

    main = ScriptedModel([calls(ToolCallBlock("a", "get_weather", {"city": "Lyon"})), "done",
                          calls(ToolCallBlock("b", "get_weather", {"city": "Oslo"})), "done"])
    emulator = LLMToolEmulator(tools=["later__mcp_tool"])
    agent = Agent(main, tools=[get_weather, send_email], middleware=[emulator])
    told = [e for e in await run(agent) + await run(agent) if isinstance(e, Notice)]
    assert ran == ["get_weather", "get_weather"]
    assert len(told) == 1 and "no tool is named 'later__mcp_tool'" in told[0].text
    assert "looks like" not in told[0].text
