"""The workspace fence: escapes are refused unless the user approves them through ask."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from shell.core.approvals import ApprovalDecision
from shell.core.messages import ToolCallBlock
from shell.core.tools import ToolContext
from shell.tools.workspace import OutsideWorkspaceError, Workspace

from .conftest import Recorder

pytestmark = pytest.mark.anyio


@pytest.fixture
def outside(tmp_path: Path) -> Path:
    secret = tmp_path / "outside"
    secret.mkdir()
    (secret / "secret.txt").write_text("top secret\n")
    return secret


ESCAPES = ["../outside/secret.txt", "ABSOLUTE", "link/secret.txt"]


def _escape(path: str, outside: Path, workspace: Workspace) -> str:
    (workspace.root / "link").symlink_to(outside, target_is_directory=True)
    return str(outside / "secret.txt") if path == "ABSOLUTE" else path


@pytest.mark.parametrize("path", ESCAPES)
async def test_escapes_are_refused_without_approval(
    path: str, outside: Path, workspace: Workspace, call: Any, recorder: Recorder
) -> None:
    path = _escape(path, outside, workspace)
    with pytest.raises(OutsideWorkspaceError) as info:
        await call("read_file", path=path)
    message = str(info.value)
    assert "outside the workspace" in message
    assert message.startswith("The user rejected the call to read_file")
    assert "not there" in message  # the user's reason reaches the model
    request = recorder.asked[0]
    assert request.args == {"path": str(outside / "secret.txt")}
    assert request.allowed_decisions == ("approve", "edit", "reject")
    assert "outside the workspace" in request.description
    assert request.tool is not None and request.tool.name == "read_file"
    assert workspace.approved_dirs == frozenset()


@pytest.mark.parametrize("path", ESCAPES)
async def test_escapes_run_with_an_approving_ask_and_are_remembered(
    path: str, outside: Path, workspace: Workspace, call: Any, recorder: Recorder
) -> None:
    path = _escape(path, outside, workspace)
    recorder.answer = "approve"
    result = await call("read_file", path=path)
    assert "top secret" in result.text
    assert len(recorder.asked) == 1
    assert workspace.approved_files == {outside / "secret.txt"}
    assert workspace.approved_dirs == frozenset()  # never the parent directory
    await call("read_file", path=str(outside / "secret.txt"))
    assert len(recorder.asked) == 1  # the file stays approved for the session
    assert "exactly that file" in recorder.asked[0].description


async def test_approving_a_file_does_not_approve_its_neighbours(
    tmp_path: Path, workspace: Workspace, call: Any, recorder: Recorder
) -> None:
    """The old fence approved the parent: one file in / opened all of /."""
    (tmp_path / "notes.txt").write_text("fine\n")
    (tmp_path / "id_rsa").write_text("KEY\n")
    recorder.answer = "approve"
    await call("read_file", path=str(tmp_path / "notes.txt"))
    recorder.answer = "reject"
    with pytest.raises(OutsideWorkspaceError):
        await call("read_file", path=str(tmp_path / "id_rsa"))
    with pytest.raises(OutsideWorkspaceError):
        await call("list_dir", path=str(tmp_path))
    assert len(recorder.asked) == 3


async def test_approving_a_directory_covers_what_is_in_it(
    outside: Path, workspace: Workspace, call: Any, recorder: Recorder
) -> None:
    recorder.answer = "approve"
    await call("list_dir", path=str(outside))
    assert "that directory and everything in it" in recorder.asked[0].description
    assert workspace.approved_dirs == {outside}
    await call("read_file", path=str(outside / "secret.txt"))
    assert len(recorder.asked) == 1


async def test_the_user_may_choose_a_containing_directory(outside: Path, workspace: Workspace) -> None:
    chosen: list[Any] = []

    async def ask(request: Any) -> ApprovalDecision:
        chosen.append(request)
        return ApprovalDecision.edit({"path": str(outside)})

    ctx = ToolContext(ToolCallBlock("c1", "read_file", {}), lambda _: None, ask)
    await workspace.check(str(outside / "secret.txt"), ctx)
    assert workspace.approved_dirs == {outside}
    (outside / "other.txt").write_text("o")
    await workspace.check(str(outside / "other.txt"), ctx)
    assert len(chosen) == 1

    async def elsewhere(request: Any) -> ApprovalDecision:
        return ApprovalDecision.edit({"path": str(outside.parent / "unrelated")})

    (outside.parent / "unrelated").mkdir()
    ctx = ToolContext(ToolCallBlock("c2", "read_file", {}), lambda _: None, elsewhere)
    with pytest.raises(OutsideWorkspaceError, match="does not contain it"):
        await workspace.check(str(outside.parent / "x.txt"), ctx)


async def test_write_outside_needs_approval(outside: Path, call: Any, recorder: Recorder) -> None:
    with pytest.raises(OutsideWorkspaceError):
        await call("write_file", path=str(outside / "new.txt"), content="x")
    assert not (outside / "new.txt").exists()
    recorder.answer = "approve"
    await call("write_file", path=str(outside / "new.txt"), content="x")
    assert (outside / "new.txt").read_text() == "x"


async def test_an_edit_decision_is_not_an_approval(outside: Path, workspace: Workspace) -> None:
    async def ask(request: Any) -> ApprovalDecision:
        return ApprovalDecision.edit({"path": "inside.txt"})

    ctx = ToolContext(ToolCallBlock("c1", "read_file", {}), lambda _: None, ask)
    with pytest.raises(OutsideWorkspaceError):
        await workspace.check(str(outside / "secret.txt"), ctx)


async def test_nothing_but_a_decision_approves(outside: Path, workspace: Workspace) -> None:
    async def ask(request: Any) -> object:
        return "approve"  # a string is not a decision: only ApprovalDecision("approve") counts

    ctx = ToolContext(ToolCallBlock("c1", "read_file", {}), lambda _: None, ask)
    with pytest.raises(OutsideWorkspaceError):
        await workspace.check(str(outside), ctx)
    with pytest.raises(OutsideWorkspaceError, match="no one could be asked"):
        await workspace.check(str(outside), None)


async def test_inside_paths_never_ask(workspace: Workspace, call: Any, recorder: Recorder) -> None:
    (workspace.root / "sub").mkdir()
    (workspace.root / "sub" / "f.txt").write_text("ok\n")
    await call("read_file", path="sub/../sub/f.txt")
    await call("read_file", path=str(workspace.root / "sub" / "f.txt"))
    assert recorder.asked == []


async def test_symlink_inside_the_workspace_is_fine(workspace: Workspace, call: Any) -> None:
    (workspace.root / "real.txt").write_text("r\n")
    (workspace.root / "alias.txt").symlink_to("real.txt")
    assert "r" in (await call("read_file", path="alias.txt")).text


def test_root_defaults_to_the_current_directory(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    assert Workspace().root == tmp_path.resolve()
    with pytest.raises(NotADirectoryError):
        Workspace(tmp_path / "missing")
