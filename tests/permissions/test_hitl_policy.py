"""HumanInTheLoop with the policy, through a real Agent: deny reaches the model,
ask carries the reason, the diff and the rule "always" would keep, plan mode
tells the model it is planning."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from middleware.human_in_the_loop import HumanInTheLoop
from shell.agent import ApprovalDecision, ApprovalRequest, AssistantMessage, ToolCallBlock, ToolResultMessage
from shell.agent.loop import Agent
from shell.permissions.policy import PermissionPolicy
from shell.permissions.rules import parse_rules
from shell.providers.scripted import ScriptedModel
from shell.tools.builtin import builtin_tools
from shell.tools.workspace import Workspace

pytestmark = pytest.mark.anyio


def make(tmp_path: Path, turns: list[Any], answers: list[ApprovalDecision], **kw: Any) -> tuple[
        Agent, list[ApprovalRequest], PermissionPolicy]:
    asked: list[ApprovalRequest] = []

    async def ask(request: ApprovalRequest) -> ApprovalDecision:
        asked.append(request)
        return answers.pop(0)

    rules, _ = parse_rules(kw.pop("rules", {}), "user")
    state: dict[str, Any] = {}
    policy = PermissionPolicy(tmp_path, user_rules=rules, session_state=lambda: state, **kw)
    agent = Agent(ScriptedModel(turns), tools=builtin_tools(Workspace(tmp_path)),
                  middleware=[HumanInTheLoop(policy=policy)], ask=ask)
    return agent, asked, policy


def call(name: str, **args: Any) -> AssistantMessage:
    return AssistantMessage((ToolCallBlock("c1", name, args),))


def result(agent: Agent) -> ToolResultMessage:
    return next(m for m in agent.messages if isinstance(m, ToolResultMessage))


async def test_a_denied_call_never_asks_and_the_model_reads_why(tmp_path: Path) -> None:
    agent, asked, _ = make(tmp_path, [call("run_shell", command="ls; rm -rf x"), "ok"], [],
                           rules={"deny": ["run_shell(rm *)"]})
    [e async for e in agent.reply("go")]
    assert asked == []
    assert result(agent).is_error and "deny run_shell(rm *)" in str(result(agent).content)


async def test_a_file_edit_asks_with_its_diff_and_always_keeps_the_rule(tmp_path: Path) -> None:
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "a.md").write_text("one\ntwo\n")
    turns = [call("edit_file", path="docs/a.md", old_string="two", new_string="TWO"), "ok",
             call("write_file", path="docs/b.md", content="x"), "ok"]
    kept = ("edit_file(docs/**)", "write_file(docs/**)")
    agent, asked, policy = make(tmp_path, turns, [ApprovalDecision.approve(always=True, rules=kept)])
    [e async for e in agent.reply("go")]
    [request] = asked
    assert "-two" in request.preview and "+TWO" in request.preview
    assert request.suggested_rules == ("edit_file(docs/**)",)
    assert "edit_file changes files" in request.reason
    assert (tmp_path / "docs" / "a.md").read_text() == "one\nTWO\n"
    [e async for e in agent.reply("again")]  # the kept rule allows the next edit unasked
    assert len(asked) == 1 and (tmp_path / "docs" / "b.md").read_text() == "x"
    assert {r.rule.text for r in policy.listed()} == {"edit_file(docs/**)", "write_file(docs/**)"}


async def test_plan_mode_tells_the_model_and_refuses_writes(tmp_path: Path) -> None:
    model = ScriptedModel([call("write_file", path="a", content="x"), "plan: ..."])
    policy = PermissionPolicy(tmp_path, mode="plan")
    agent = Agent(model, tools=builtin_tools(Workspace(tmp_path)), middleware=[HumanInTheLoop(policy=policy)])
    [e async for e in agent.reply("go")]
    assert "plan mode" in model.requests[0].system_prompt.lower()
    assert not (tmp_path / "a").exists()
    assert "Plan mode" in str(result(agent).content)


async def test_arguments_edited_in_the_approval_are_judged_by_deny_rules_again(tmp_path: Path) -> None:
    """`run ls` asks; the user (or whoever shares the screen) edits it into `rm -rf
    src`, which a deny rule forbids: it does not run, and the reason says which rule.
    An edit into something that would only ask runs: the user just approved it."""
    (tmp_path / "src").mkdir()
    turns = [call("run_shell", command="ls"), "ok", call("run_shell", command="ls"), "ok"]
    answers = [ApprovalDecision.edit({"command": "rm -rf src", "timeout": 30}),
               ApprovalDecision.edit({"command": "touch made", "timeout": 30})]
    agent, asked, _ = make(tmp_path, turns, answers, rules={"deny": ["run_shell(rm:*)"]})
    [e async for e in agent.reply("go")]
    assert len(asked) == 1 and (tmp_path / "src").is_dir()
    denied = result(agent)
    assert denied.is_error and "as you edited it is denied" in str(denied.content)
    assert "deny run_shell(rm:*)" in str(denied.content)
    [e async for e in agent.reply("again")]
    assert len(asked) == 2 and (tmp_path / "made").exists()
