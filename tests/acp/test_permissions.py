"""The ACP permission adapter over the real policy: which options a request gets,
and what each answer (with or without the client's ``_meta``) decides."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from shell.acp.permissions import MODE_IDS, AcpPermissions, tool_kind
from shell.core.approvals import ApprovalRequest
from shell.core.messages import ToolCallBlock
from shell.permissions.policy import PermissionPolicy


def request(
    name: str,
    args: dict[str, Any],
    rules: tuple[str, ...] = (),
    allowed: tuple[Any, ...] = ("approve", "edit", "reject"),
) -> Any:
    return ApprovalRequest(
        ToolCallBlock("c1", name, args), None, dict(args), allowed, "", suggested_rules=rules
    )


@pytest.fixture
def acp(tmp_path: Path) -> AcpPermissions:
    return AcpPermissions(PermissionPolicy(tmp_path, load_project=False), tmp_path)


def test_the_modes_are_the_policys(acp: AcpPermissions) -> None:
    assert MODE_IDS == ("default", "plan", "accept-edits", "auto", "bypass")
    acp.set_mode("acceptEdits")
    assert acp.policy.mode == "accept-edits"
    with pytest.raises(ValueError, match="unknown permission mode"):
        acp.set_mode("yolo-max")


def test_always_is_offered_only_with_rules_to_keep(acp: AcpPermissions, tmp_path: Path) -> None:
    with_rules = acp.options(request("run_shell", {"command": "ls"}, ("run_shell(ls:*)",)))
    assert [o[2] for o in with_rules] == ["allow_once", "allow_always", "reject_once", "reject_always"]
    assert with_rules[1][1] == "Always allow run_shell(ls:*) in this session"
    without = acp.options(request("run_shell", {"command": "rm -rf x > y"}))
    assert [o[2] for o in without] == ["allow_once", "reject_once"]
    outside = acp.options(
        request("read_file", {"path": "/etc/hosts"}, ("read_file(/etc/*)",), ("approve", "reject"))
    )
    assert [o[2] for o in outside] == ["allow_once", "reject_once"], "a path question has no 'always'"


def test_meta_can_edit_the_arguments_or_give_the_reason(acp: AcpPermissions) -> None:
    req = request("write_file", {"path": "a.txt", "content": "a"}, ("write_file(a.txt)",))
    edited = acp.decide(req, "allow_once", {"agent-shell": {"args": {"path": "b.txt", "content": "b"}}})
    assert edited.type == "edit" and edited.args == {"path": "b.txt", "content": "b"}
    reason = acp.decide(req, "reject_once", {"agent-shell": {"message": "use b.txt"}})
    assert reason.type == "reject" and reason.message == "use b.txt"
    always = acp.decide(req, "allow_always", None)
    assert always.type == "approve" and always.always and always.rules == ("write_file(a.txt)",)


def test_an_edit_is_refused_where_the_request_allows_none(acp: AcpPermissions) -> None:
    req = request("write_file", {"path": "a.txt", "content": "a"}, allowed=("approve", "reject"))
    decision = acp.decide(
        req, "allow_once", {"agent-shell": {"args": {"path": "/etc/passwd", "content": ""}}}
    )
    assert decision.type == "approve" and decision.args is None


def test_unknown_and_cancelled_answers_reject_and_keep_nothing(acp: AcpPermissions) -> None:
    req = request("run_shell", {"command": "ls"}, ("run_shell(ls:*)",))
    assert acp.decide(req, None).type == "reject"
    assert acp.decide(req, "yes-please").type == "reject"
    assert acp.policy.session_rules() == []


def test_reject_always_becomes_a_deny_rule_of_the_policy(acp: AcpPermissions) -> None:
    from shell.core.tools import tool

    req = request("run_shell", {"command": "ls -la"}, ("run_shell(ls:*)",))
    decision = acp.decide(req, "reject_always")
    assert decision.type == "reject" and "run_shell(ls:*)" in (decision.message or "")

    @tool(name="run_shell", kind="execute")
    def run_shell(command: str) -> str:
        """Run."""
        return ""

    verdict = acp.policy.decide(run_shell, {"command": "ls -l"})
    assert verdict.action == "deny"
    assert acp.policy.decide(run_shell, {"command": "pwd"}).action == "ask"


def test_kinds_by_tool_and_by_name() -> None:
    names = ("read_file", "grep", "edit_file", "run_shell", "fetch_url", "write_todos", "x__y")
    assert [tool_kind(None, n) for n in names] == [
        "read",
        "search",
        "edit",
        "execute",
        "fetch",
        "think",
        "other",
    ]


def test_the_question_shows_a_padded_commands_tail_next_to_its_head() -> None:
    """An editor's code block does not wrap: 400 blanks would push ``--upload-pack`` out
    of sight, so the question counts them (J12) and keeps the tail on the line."""
    from shell.acp.permissions import approval_text

    command = "git fetch origin" + " " * 400 + "--upload-pack='touch x'"
    text = approval_text(request("run_shell", {"command": command}))
    assert "command: git fetch origin \u27e8400 blanks\u27e9 --upload-pack='touch x'" in text
