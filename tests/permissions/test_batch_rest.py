""""The rest of this batch" (finding F12): one answer for the later calls of a model
turn, through a real Agent with the real policy. Approving the rest never skips the
policy: deny rules, the workspace fence, the runs-later guard and secret files judge
every later call as if it were asked alone; only the routine question of the same
tool is covered, and never in another turn. Rejecting the rest refuses every later
call with a refusal the model reads."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from middleware.human_in_the_loop import HumanInTheLoop
from shell.agent import ApprovalDecision, ApprovalRequest, AssistantMessage, ToolCallBlock, ToolResultMessage
from shell.agent.loop import Agent
from shell.core.approvals import rest_refusal, rest_rejection
from shell.core.events import ApprovalResolved, Event
from shell.frontend.approval import choices, rest_counts
from shell.permissions.policy import PermissionPolicy
from shell.permissions.rules import parse_rules
from shell.providers.scripted import ScriptedModel
from shell.tools.builtin import builtin_tools
from shell.tools.workspace import Workspace

pytestmark = pytest.mark.anyio


class Setup:
    def __init__(self, root: Path, turns: list[Any], answers: dict[str, ApprovalDecision], **kw: Any) -> None:
        self.root = root
        self.asked: list[ApprovalRequest] = []
        self.answers = answers
        rules, _ = parse_rules(kw.pop("rules", {}), "user")
        state: dict[str, Any] = {}
        ws = Workspace(root)
        self.policy = PermissionPolicy(root, user_rules=rules, session_state=lambda: state,
                                       load_project=False, **kw)
        self.policy.fence = ws
        self.agent = Agent(ScriptedModel(turns), tools=builtin_tools(ws),
                           middleware=[HumanInTheLoop(policy=self.policy)], ask=self.ask)

    async def ask(self, request: ApprovalRequest) -> ApprovalDecision:
        self.asked.append(request)
        return self.answers.get(request.call.id, ApprovalDecision.approve())

    async def reply(self, text: str = "go") -> list[Event]:
        return [e async for e in self.agent.reply(text)]

    def results(self) -> dict[str, ToolResultMessage]:
        return {m.call_id: m for m in self.agent.messages if isinstance(m, ToolResultMessage)}


def write(call_id: str, path: str) -> ToolCallBlock:
    return ToolCallBlock(call_id, "write_file", {"path": path, "content": f"{call_id}\n"})


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    (tmp_path / "ws" / ".git" / "hooks").mkdir(parents=True)
    (tmp_path / "ws" / "secret").mkdir()
    return tmp_path / "ws"


async def test_approve_the_rest_still_runs_every_later_call_through_the_policy(ws: Path) -> None:
    outside = ws.parent / "outside.txt"
    batch = AssistantMessage((
        write("w1", "a.txt"),
        write("w2", "b.txt"),
        write("w3", ".git/hooks/pre-commit"),  # runs later as the user: asked on its own
        write("w4", "secret/x.txt"),  # a deny rule: refused, never asked
        write("w5", str(outside)),  # outside the workspace: asked on its own
        ToolCallBlock("r1", "run_shell", {"command": "echo hi"}),  # another tool: asked
        write("w6", "c.txt"),
    ))
    setup = Setup(ws, [batch, "ok", AssistantMessage((write("w7", "d.txt"),)), "done"],
                  {"w1": ApprovalDecision.approve(rest=True), "w3": ApprovalDecision.reject(),
                   "w5": ApprovalDecision.reject(), "r1": ApprovalDecision.reject()},
                  rules={"deny": ["write_file(secret/**)"]})
    events = await setup.reply()
    assert [r.call.id for r in setup.asked] == ["w1", "w3", "w5", "r1"]
    first = setup.asked[0]
    assert first.routine and first.batch is not None
    place = first.batch
    assert (place.index, place.size, place.later, place.later_same_tool) == (0, 7, 6, 5)
    assert rest_counts(first) == (5, 6) and {c.key for c in choices(first)} >= {"Y", "N"}
    assert not setup.asked[1].routine and "Y" not in {c.key for c in choices(setup.asked[1])}
    assert not setup.asked[2].routine and "outside the workspace" in setup.asked[2].reason
    results = setup.results()
    assert (ws / "a.txt").read_text() == "w1\n" and (ws / "b.txt").read_text() == "w2\n"
    assert (ws / "c.txt").read_text() == "w6\n"
    assert not (ws / ".git" / "hooks" / "pre-commit").exists() and not outside.exists()
    assert results["w4"].is_error and "deny write_file(secret/**)" in str(results["w4"].content)
    assert not (ws / "secret" / "x.txt").exists()
    covered = [e.call_id for e in events if isinstance(e, ApprovalResolved) and e.decision.rest]
    assert covered == ["w1", "w2", "w6"]  # the conversation shows who decided
    await setup.reply("again")  # the next turn's call is asked again: a batch's answer ends with it
    assert [r.call.id for r in setup.asked][-1] == "w7"


async def test_reject_the_rest_refuses_every_later_call_with_a_message(ws: Path) -> None:
    batch = AssistantMessage((
        write("w1", "a.txt"),
        ToolCallBlock("r1", "read_file", {"path": "a.txt"}),  # the policy allows it: still refused
        write("w2", "b.txt"),
        ToolCallBlock("s1", "run_shell", {"command": "echo hi"}),
    ))
    setup = Setup(ws, [batch, "ok", AssistantMessage((write("w3", "c.txt"),)), "done"], {})
    setup.answers["w1"] = rest_rejection(ApprovalRequest(batch.tool_calls[0], None, {}), "wrong plan")
    await setup.reply()
    assert [r.call.id for r in setup.asked] == ["w1"]
    results = setup.results()
    assert all(r.is_error for r in results.values()) and len(results) == 4
    assert "Their reason: wrong plan" in str(results["w1"].content)
    assert str(results["r1"].content) == rest_refusal("read_file")
    assert str(results["s1"].content) == rest_refusal("run_shell")
    assert not any((ws / n).exists() for n in ("a.txt", "b.txt"))
    await setup.reply("again")
    assert [r.call.id for r in setup.asked] == ["w1", "w3"] and (ws / "c.txt").exists()


async def test_a_rest_answer_to_a_special_question_approves_that_call_alone(ws: Path) -> None:
    batch = AssistantMessage((write("w1", ".git/hooks/pre-commit"), write("w2", "a.txt"),
                              write("w3", "b.txt")))
    setup = Setup(ws, [batch, "ok"], {"w1": ApprovalDecision.approve(rest=True)})
    await setup.reply()
    assert [r.call.id for r in setup.asked] == ["w1", "w2", "w3"]
    assert rest_counts(setup.asked[0]) == (0, 2)  # not offered: Y is for routine questions only


async def test_what_the_policy_calls_routine(ws: Path) -> None:
    tools = {t.name: t for t in builtin_tools(Workspace(ws))}
    policy = PermissionPolicy(ws, load_project=False)
    policy.fence = Workspace(ws)
    shell, write_file = tools["run_shell"], tools["write_file"]
    assert policy.decide(shell, {"command": "ls"}).routine
    assert not policy.decide(shell, {"command": "curl x", "network": True}).routine
    assert not policy.decide(shell, {"command": "cat .env"}).routine  # names a secret file
    assert policy.decide(write_file, {"path": "a.txt", "content": ""}).routine
    assert not policy.decide(write_file, {"path": str(ws.parent / "b"), "content": ""}).routine
    assert not policy.decide(write_file, {"path": ".envrc", "content": ""}).routine
    assert not policy.decide(tools["read_file"], {"path": ".env"}).routine
    rules = parse_rules({"ask": ["write_file"]}, "user")[0]
    asks = PermissionPolicy(ws, load_project=False, user_rules=rules)
    assert not asks.decide(write_file, {"path": "a.txt", "content": ""}).routine  # a rule that asks


class Prompts:
    """The line mode's questions, answered from a script."""

    def __init__(self, key: str, reason: str = "") -> None:
        self.pressed, self.reason_said, self.offered, self.said = key, reason, "", []

    async def key(self, request: ApprovalRequest, offered: list[Any]) -> str | None:
        self.offered = "".join(c.key for c in offered)
        return self.pressed

    async def reason(self, request: ApprovalRequest) -> str | None:
        return self.reason_said

    async def edited(self, request: ApprovalRequest) -> str | None:
        return None

    async def rules(self, request: ApprovalRequest) -> Any:
        return None

    def say(self, text: str, level: str = "info") -> None:
        self.said.append(text)


async def test_the_line_mode_answers_for_the_rest_with_the_same_keys() -> None:
    from shell.core.approvals import BatchPlace
    from shell.frontend.approval import decide

    call = ToolCallBlock("c2", "write_file", {"path": "a", "content": ""})
    later = ((2, write("c3", "b")), (4, write("c5", "c")))
    request = ApprovalRequest(call, None, dict(call.args), batch=BatchPlace("r:1", 1, 5, later), routine=True)
    prompts = Prompts("Y")
    assert await decide(request, prompts) == ApprovalDecision.approve(rest=True)
    assert prompts.offered == "yenYN" and "the 2 write_file calls listed" in prompts.said[-1]
    prompts = Prompts("N", "no")
    decision = await decide(request, prompts)
    assert decision is not None and decision.type == "reject" and decision.rest
    assert "Their reason: no" in str(decision.message) and "the 3 calls after it" in prompts.said[-1]
    alone = ApprovalRequest(call, None, dict(call.args), batch=BatchPlace("r:1", 4, 5), routine=True)
    prompts = Prompts("y")
    await decide(alone, prompts)
    assert prompts.offered == "yen"  # the last call of its batch: no rest to answer for
