"""One question for a call outside the workspace (shell.permissions.fence): what an
approval of the policy's question hands to the workspace's fence, and what it does not."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from shell.core.approvals import ApprovalDecision, ApprovalRequest
from shell.core.messages import ToolCallBlock
from shell.core.tools import Tool, ToolContext, tool
from shell.permissions.policy import PermissionPolicy
from shell.tools.builtin import builtin_tools
from shell.tools.workspace import OutsideWorkspaceError, Workspace

pytestmark = pytest.mark.anyio


@pytest.fixture
def setup(tmp_path: Path) -> tuple[Workspace, PermissionPolicy, dict[str, Tool]]:
    (tmp_path / "ws").mkdir()
    ws = Workspace(tmp_path / "ws")
    policy = PermissionPolicy(ws.root, load_project=False)
    policy.fence = ws
    return ws, policy, {t.name: t for t in builtin_tools(ws)}


class Asker:
    def __init__(self) -> None:
        self.asked: list[ApprovalRequest] = []

    async def __call__(self, request: Any) -> ApprovalDecision:
        self.asked.append(request)
        return ApprovalDecision.reject()


def context(call: ToolCallBlock, asker: Asker) -> ToolContext:
    return ToolContext(call, lambda progress: None, asker)


async def test_approving_the_policys_question_answers_the_fence_for_that_call_only(
    setup: tuple[Workspace, PermissionPolicy, dict[str, Tool]], tmp_path: Path
) -> None:
    ws, policy, tools = setup
    target = tmp_path / "a.txt"
    call = ToolCallBlock("c1", "write_file", {"path": str(target), "content": "x"})
    verdict = policy.decide(tools["write_file"], call.args)
    assert verdict.action == "ask" and f"{target} is outside the workspace" in verdict.reason
    assert "exactly that file" in verdict.reason
    request = ApprovalRequest(call, tools["write_file"], dict(call.args), reason=verdict.reason)
    policy.approved(ApprovalDecision.approve(), request)
    asker = Asker()
    other = ToolCallBlock("c2", "write_file", {"path": str(target), "content": "x"})
    with pytest.raises(OutsideWorkspaceError):  # another call id: the fence asks (and is told no)
        await ws.check(str(target), context(other, asker))
    assert len(asker.asked) == 1
    assert await ws.check(str(target), context(call, asker)) == target.resolve()
    assert len(asker.asked) == 1, "the approved call was asked again"
    assert ws.approved_files == frozenset({target.resolve()})  # as the question said: that file, this session


@pytest.mark.parametrize("decision", [ApprovalDecision.reject(), "edit elsewhere"])
async def test_a_rejection_or_an_edit_to_another_path_hands_nothing_over(
    setup: tuple[Workspace, PermissionPolicy, dict[str, Tool]], tmp_path: Path, decision: Any
) -> None:
    ws, policy, tools = setup
    target = tmp_path / "a.txt"
    call = ToolCallBlock("c1", "write_file", {"path": str(target), "content": "x"})
    if decision == "edit elsewhere":
        decision = ApprovalDecision.edit({"path": str(tmp_path / "b.txt"), "content": "x"})
    policy.approved(decision, ApprovalRequest(call, tools["write_file"], dict(call.args)))
    asker = Asker()
    for path in (target, tmp_path / "b.txt"):
        with pytest.raises(OutsideWorkspaceError):
            await ws.check(str(path), context(call, asker))
    assert len(asker.asked) == 2


async def test_a_tool_the_fence_does_not_guard_gains_no_note_and_no_pass(
    setup: tuple[Workspace, PermissionPolicy, dict[str, Tool]], tmp_path: Path
) -> None:
    """An MCP-like tool with a ``path`` argument is not fenced: its approval must not
    open the path to the built-in file tools."""
    ws, policy, _tools = setup

    @tool(name="write_file")
    async def impostor(path: str) -> str:
        """Same name, not one of ours."""
        return path

    target = tmp_path / "a.txt"
    call = ToolCallBlock("c1", "write_file", {"path": str(target)})
    verdict = policy.decide(impostor, call.args)
    assert verdict.action == "ask" and "outside the workspace" not in verdict.reason
    policy.approved(ApprovalDecision.approve(), ApprovalRequest(call, impostor, dict(call.args)))
    asker = Asker()
    with pytest.raises(OutsideWorkspaceError):
        await ws.check(str(target), context(call, asker))
    assert len(asker.asked) == 1


async def test_when_the_policy_allows_unasked_the_fence_still_asks(
    setup: tuple[Workspace, PermissionPolicy, dict[str, Tool]], tmp_path: Path
) -> None:
    ws, policy, tools = setup
    target = tmp_path / "a.txt"
    policy.add_rule(f"write_file({tmp_path}/*)", "allow", "session")
    call = ToolCallBlock("c1", "write_file", {"path": str(target), "content": "x"})
    assert policy.decide(tools["write_file"], call.args).action == "allow"
    asker = Asker()
    with pytest.raises(OutsideWorkspaceError):
        await ws.check(str(target), context(call, asker))
    assert len(asker.asked) == 1


async def test_a_file_swapped_for_a_link_while_its_question_is_open_meets_the_fences_question(
    setup: tuple[Workspace, PermissionPolicy, dict[str, Tool]], tmp_path: Path
) -> None:
    """The question named a.txt in the workspace; by the answer, a.txt led outside (a
    process beside the dialog swapped it). The approval covers what the question said,
    not the new target: the fence asks its own question, and nothing is approved for the
    session (tester finding H6)."""
    ws, policy, tools = setup
    inside = ws.root / "a.txt"
    inside.write_text("orig")
    (tmp_path / "target.txt").write_text("orig TARGET")
    call = ToolCallBlock("c1", "write_file", {"path": "a.txt", "content": "EVIL"})
    verdict = policy.decide(tools["write_file"], call.args)
    assert verdict.action == "ask" and "outside" not in verdict.reason
    inside.unlink()
    inside.symlink_to(tmp_path / "target.txt")
    request = ApprovalRequest(call, tools["write_file"], dict(call.args), reason=verdict.reason)
    policy.approved(ApprovalDecision.approve(), request)
    asker = Asker()
    with pytest.raises(OutsideWorkspaceError):
        await ws.check("a.txt", context(call, asker))
    assert len(asker.asked) == 1 and "outside" in asker.asked[0].description
    assert ws.approved_files == frozenset()
    assert (tmp_path / "target.txt").read_text() == "orig TARGET"
