"""Whole agent turns through ScriptedModel with the built-in tools."""

from __future__ import annotations

from typing import Any

import pytest

from middleware.human_in_the_loop import HumanInTheLoop
from shell.agent.loop import Agent
from shell.core.approvals import ApprovalDecision, ApprovalRequest
from shell.core.events import (
    ApprovalRequested,
    Event,
    ReplyEnd,
    ToolExecutionEnd,
    ToolExecutionUpdate,
)
from shell.core.messages import AssistantMessage, ToolCallBlock, ToolResultMessage
from shell.providers.scripted import ScriptedModel
from shell.tools.builtin import builtin_tools
from shell.tools.workspace import Workspace

pytestmark = pytest.mark.anyio


def _call(name: str, **args: Any) -> AssistantMessage:
    return AssistantMessage((ToolCallBlock("c1", name, args),))


async def _turn(agent: Agent, text: str = "go") -> list[Event]:
    return [event async for event in agent.reply(text)]


async def test_an_approved_edit_carries_its_diff(workspace: Workspace) -> None:
    target = workspace.root / "hello.py"
    target.write_text('print("hello")\n')
    asked: list[ApprovalRequest] = []

    async def approve(request: ApprovalRequest) -> ApprovalDecision:
        asked.append(request)
        return ApprovalDecision.approve()

    model = ScriptedModel(
        [_call("edit_file", path="hello.py", old_string="hello", new_string="world"), "Done."]
    )
    agent = Agent(model, tools=builtin_tools(workspace), middleware=[HumanInTheLoop()], ask=approve)
    events = await _turn(agent, "say world")

    assert target.read_text() == 'print("world")\n'
    assert [r.call.name for r in asked] == ["edit_file"]  # HumanInTheLoop asked: edit_file is not read-only
    assert any(isinstance(e, ApprovalRequested) for e in events)
    [end] = [e for e in events if isinstance(e, ToolExecutionEnd)]
    assert not end.result.is_error
    diff = end.result.details["diff"]
    assert '-print("hello")' in diff and '+print("world")' in diff
    assert isinstance(events[-1], ReplyEnd) and events[-1].stop_reason == "end_turn"
    result = next(m for m in agent.messages if isinstance(m, ToolResultMessage))
    assert '+print("world")' in result.text  # the model sees the diff too


async def test_an_escape_goes_through_the_agents_ask(workspace: Workspace, tmp_path: Any) -> None:
    outside = tmp_path / "elsewhere.txt"
    outside.write_text("far away\n")
    read = _call("read_file", path=str(outside))
    model = ScriptedModel([read, "ok", read, "ok"])
    answers = ["reject", "approve"]

    async def ask(request: ApprovalRequest) -> ApprovalDecision:
        assert request.args == {"path": str(outside)}
        assert request.allowed_decisions == ("approve", "edit", "reject")
        return ApprovalDecision(answers.pop(0), message="stay inside")

    agent = Agent(model, tools=builtin_tools(workspace), ask=ask)
    [refused] = [e for e in await _turn(agent) if isinstance(e, ToolExecutionEnd)]
    assert refused.result.is_error and "outside the workspace" in refused.result.text
    assert "stay inside" in refused.result.text
    [allowed] = [e for e in await _turn(agent) if isinstance(e, ToolExecutionEnd)]
    assert not allowed.result.is_error and "far away" in allowed.result.text


async def test_without_anyone_to_ask_escapes_are_refused(workspace: Workspace, tmp_path: Any) -> None:
    model = ScriptedModel([_call("list_dir", path=str(tmp_path)), "ok"])
    agent = Agent(model, tools=builtin_tools(workspace))
    [end] = [e for e in await _turn(agent) if isinstance(e, ToolExecutionEnd)]
    assert end.result.is_error and "Refused" in end.result.text


async def test_run_shell_progress_becomes_update_events(workspace: Workspace) -> None:
    model = ScriptedModel([_call("run_shell", command="echo one; sleep 0.2; echo two"), "ok"])
    agent = Agent(model, tools=builtin_tools(workspace))
    events = await _turn(agent)
    updates = [e.progress for e in events if isinstance(e, ToolExecutionUpdate)]
    assert "".join(updates) == "one\ntwo\n" and len(updates) >= 2
    [end] = [e for e in events if isinstance(e, ToolExecutionEnd)]
    assert end.result.text.endswith("[exit code 0]")


async def test_a_schema_that_cannot_be_checked_fails_its_call_not_the_reply(workspace: Workspace) -> None:
    """A tool (from a plugin, say) whose schema is malformed: the other calls of the
    turn run and the reply goes on (it ended with "TypeError: 'int' object is not
    iterable" before)."""
    from shell.core.messages import ToolResult
    from shell.core.tools import Tool, ToolContext

    class Broken(Tool):
        async def run(self, args: dict[str, Any], context: ToolContext) -> ToolResult:
            return ToolResult("ran")

    class Raises(Broken):
        def validate(self, args: dict[str, Any]) -> dict[str, Any]:
            raise KeyError("its own check broke")

    schemas: list[dict[str, Any]] = [
        {"type": "object", "properties": {"a": {"type": 5}}},
        {"type": "object", "properties": {"a": {"type": ["string", {"x": 1}]}}, "required": 5},
        {"type": "object", "properties": ["a"]},
    ]
    tools = [Broken(f"b{i}", parameters=s) for i, s in enumerate(schemas)] + [Raises("raises")]
    calls = tuple(ToolCallBlock(f"c{i}", t.name, {"a": "x"}) for i, t in enumerate(tools))
    calls += (ToolCallBlock("cl", "list_dir", {}),)
    model = ScriptedModel([AssistantMessage(calls), "Done."])
    agent = Agent(model, tools=[*tools, *builtin_tools(workspace)])
    events = await _turn(agent)
    ends = {e.call_id: e.result for e in events if isinstance(e, ToolExecutionEnd)}
    assert [ends[f"c{i}"].text for i in range(3)] == ["ran"] * 3  # unchecked parts are left to the tool
    assert ends["c3"].is_error and ends["c3"].text.startswith(
        "The arguments of raises could not be checked: its own check failed "
        "(KeyError: 'its own check broke')."
    )
    assert not ends["cl"].is_error
    assert isinstance(events[-1], ReplyEnd) and events[-1].stop_reason == "end_turn"
