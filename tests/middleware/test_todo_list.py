"""TodoList: the write_todos tool, its prompt, the session's list and the live event."""

from __future__ import annotations

from typing import Any

import pytest

from middleware.todo_list import DEFAULT_SYSTEM_PROMPT, TodoList
from shell.agent import AssistantMessage, ToolCallBlock, ToolResultMessage
from shell.agent.loop import Agent
from shell.core.events import CustomEvent, Event
from shell.providers.scripted import ScriptedModel

pytestmark = pytest.mark.anyio

PLAN = [
    {"content": "Read the file", "status": "completed"},
    {"content": "Fix the bug", "status": "in_progress"},
    {"content": "Run the tests", "status": "pending"},
]


def call(args: dict[str, Any], call_id: str = "c1") -> ToolCallBlock:
    return ToolCallBlock(call_id, "write_todos", args)


async def run(agent: Agent, text: str) -> list[Event]:
    return [e async for e in agent.reply(text)]


async def test_tool_offered_and_prompt_added() -> None:
    model = ScriptedModel(["ok"])
    agent = Agent(model, system_prompt="Base.", middleware=[TodoList()])
    await run(agent, "hi")
    request = model.requests[0]
    assert [t.name for t in request.tools] == ["write_todos"]
    assert request.system_prompt == f"Base.\n\n{DEFAULT_SYSTEM_PROMPT}"
    assert "status" in str(request.tools[0].parameters)


async def test_custom_prompt_and_description() -> None:
    model = ScriptedModel(["ok"])
    mw = TodoList(system_prompt="PLAN!", tool_description="Write todos.")
    agent = Agent(model, middleware=[mw])
    await run(agent, "hi")
    assert model.requests[0].system_prompt == "PLAN!"
    assert model.requests[0].tools[0].description == "Write todos."


async def test_write_todos_updates_session_state_and_emits() -> None:
    model = ScriptedModel([AssistantMessage((call({"todos": PLAN}),)), "Working on it."])
    mw = TodoList()
    agent = Agent(model, middleware=[mw])
    events = await run(agent, "fix the bug")
    todos_events = [e for e in events if isinstance(e, CustomEvent) and e.name == "todos"]
    assert [e.data for e in todos_events] == [PLAN]
    assert agent.session_state["TodoList"]["todos"] == PLAN
    assert mw.todos == PLAN
    result = next(m for m in agent.messages if isinstance(m, ToolResultMessage))
    assert not result.is_error
    assert "[x] Read the file" in result.text and "[~] Fix the bug" in result.text
    assert "[ ] Run the tests" in result.text


async def test_invalid_status_is_an_error_and_changes_nothing() -> None:
    bad = [{"content": "x", "status": "done"}]
    model = ScriptedModel([AssistantMessage((call({"todos": bad}),)), "sorry"])
    agent = Agent(model, middleware=[TodoList()])
    events = await run(agent, "go")
    assert not any(isinstance(e, CustomEvent) for e in events)
    result = next(m for m in agent.messages if isinstance(m, ToolResultMessage))
    assert result.is_error
    assert "todos" not in agent.session_state.get("TodoList", {})


async def test_parallel_calls_are_refused() -> None:
    model = ScriptedModel(
        [AssistantMessage((call({"todos": PLAN}, "a"), call({"todos": []}, "b"))), "ok"]
    )
    agent = Agent(model, middleware=[TodoList()])
    await run(agent, "go")
    results = [m for m in agent.messages if isinstance(m, ToolResultMessage)]
    assert len(results) == 2 and all(r.is_error for r in results)
    assert "once" in results[0].text


async def test_list_replaced_on_each_call_and_kept_per_session() -> None:
    second = [{"content": "Read the file", "status": "completed"}]
    model = ScriptedModel(
        [
            AssistantMessage((call({"todos": PLAN}),)),
            AssistantMessage((call({"todos": second}, "c2"),)),
            "done",
        ]
    )
    mw = TodoList()
    agent = Agent(model, middleware=[mw])
    await run(agent, "go")
    assert agent.session_state["TodoList"]["todos"] == second
    # Another agent (another session) with the same instance starts with no list.
    other = Agent(ScriptedModel(["hi"]), middleware=[mw])
    await run(other, "hello")
    assert "todos" not in other.session_state.get("TodoList", {})
