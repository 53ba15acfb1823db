"""The ACP permission adapter on its own: which options a request gets, and what
each answer (with or without the client's ``_meta``) decides."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from shell.acp.permissions import AcpPolicy, tool_kind
from shell.core.approvals import ApprovalRequest
from shell.core.messages import ToolCallBlock


def request(name: str, args: dict[str, Any], allowed: tuple[Any, ...] = ("approve", "edit", "reject")) -> Any:
    return ApprovalRequest(ToolCallBlock("c1", name, args), None, dict(args), allowed, "")


def policy(tmp_path: Path, mode: str = "default") -> AcpPolicy:
    state: dict[str, Any] = {}
    return AcpPolicy(tmp_path, lambda: state, mode)


def test_meta_can_edit_the_arguments_or_give_the_reason(tmp_path: Path) -> None:
    p = policy(tmp_path)
    req = request("write_file", {"path": "a.txt", "content": "a"})
    edited = p.decide(req, "allow_once", {"agent-shell": {"args": {"path": "b.txt", "content": "b"}}})
    assert edited.type == "edit" and edited.args == {"path": "b.txt", "content": "b"}
    reason = p.decide(req, "reject_once", {"agent-shell": {"message": "use b.txt"}})
    assert reason.type == "reject" and reason.message == "use b.txt"
    plain = p.decide(req, "allow_always", None)
    assert plain.type == "approve" and plain.always


def test_an_edit_is_refused_where_the_request_allows_none(tmp_path: Path) -> None:
    p = policy(tmp_path)
    req = request("write_file", {"path": "a.txt", "content": "a"}, ("approve", "reject"))
    decision = p.decide(req, "allow_once", {"agent-shell": {"args": {"path": "/etc/passwd", "content": ""}}})
    assert decision.type == "approve" and decision.args is None


def test_unknown_and_cancelled_answers_reject(tmp_path: Path) -> None:
    p = policy(tmp_path)
    req = request("run_shell", {"command": "ls"})
    assert p.decide(req, None).type == "reject"
    assert p.decide(req, "yes-please").type == "reject"
    assert p.rejected_tools == []


def test_reject_always_becomes_a_deny_entry(tmp_path: Path) -> None:
    p = policy(tmp_path)
    req = request("run_shell", {"command": "ls"})
    p.decide(req, "reject_always")
    assert p.rejected_tools == ["run_shell"]
    again = p.automatic(request("run_shell", {"command": "pwd"}))
    assert again is not None and again.type == "reject"


def test_kinds_by_tool(tmp_path: Path) -> None:
    assert [
        tool_kind(None, n) for n in ("read_file", "grep", "edit_file", "run_shell", "fetch_url", "x__y")
    ] == [
        "read",
        "search",
        "edit",
        "execute",
        "fetch",
        "other",
    ]
