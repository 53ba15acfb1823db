"""Git's files that steer what the user's *next* git command reaches: the shallow list
(finding A1), a linked worktree's ``gitdir`` (A4), an index entry that says a file is
unchanged (A2). A command in the sandbox may write the git directory; these are put
back, or refused, and said. Against the real bubblewrap and git."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from ..sandboxing import require_sandbox
from .later_ws import git, later_workspace, sh

pytestmark = pytest.mark.anyio


@pytest.fixture
def ws(monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    yield from later_workspace(monkeypatch, ".agent-shell-test-gitsteer-")


def _three_commits(ws: Path) -> list[str]:
    git(ws, "init", "-q", "-b", "main")
    for i in (1, 2, 3):
        (ws / f"f{i}.txt").write_text(f"v{i}\n")
        git(ws, "add", "-A")
        git(ws, "commit", "-qm", f"c{i}")
    return git(ws, "rev-list", "HEAD").split()


# -- A4: a linked worktree's admin files ---------------------------------------------------


@pytest.mark.parametrize("how", ["echo /tmp/gone/.git > .git/worktrees/feat/gitdir",
                                 "rm -f .git/worktrees/feat/gitdir"])
async def test_a_linked_worktrees_gitdir_cannot_be_rewritten(ws: Path, how: str) -> None:
    """Finding A4: ``gitdir`` pointed elsewhere (or removed) made the user's next ``git
    worktree prune`` delete the worktree's admin folder: its index with the staged
    work, its HEAD; the checkout was then "not a git repository"."""
    require_sandbox()
    _three_commits(ws)
    feat = ws.parent / "feat"
    git(ws, "worktree", "add", "-q", str(feat), "-b", "feat")
    (feat / "s.txt").write_text("staged work\n")
    git(feat, "add", "s.txt")
    admin = ws / ".git" / "worktrees" / "feat"
    was = (admin / "gitdir").read_bytes()
    result = await sh(ws, how)
    assert (admin / "gitdir").read_bytes() == was, result.text
    git(ws, "worktree", "prune", "--expire=now")
    assert admin.is_dir()
    assert "s.txt" in git(feat, "diff", "--cached", "--name-only")


async def test_the_worktrees_own_git_commands_still_work(ws: Path) -> None:
    """Read-only admin files leave what git writes for a linked worktree writable: its
    index, HEAD, a commit on its branch, a lock and unlock of another one."""
    require_sandbox()
    _three_commits(ws)
    git(ws, "worktree", "add", "-q", str(ws / "wt2"), "-b", "side")
    result = await sh(ws, "cd wt2 && echo x > n.txt && git add n.txt && git commit -qm side-commit && "
                          "git log -1 --format=%s && cd .. && git worktree lock --reason moving wt2")
    assert not result.is_error and "side-commit" in result.text, result.text
    assert "worktrees" not in result.text.split("side-commit", 1)[1], result.text
    assert (ws / ".git" / "worktrees" / "wt2" / "locked").read_text().strip() == "moving"


# -- A1: the shallow list -------------------------------------------------------------------


def _users_gc_keeps(ws: Path, commits: list[str]) -> None:
    """The user's own clean-up later: reflog expired, gc pruning now; every commit still there."""
    git(ws, "reflog", "expire", "--expire=now", "--all")
    git(ws, "gc", "-q", "--prune=now")
    for commit in commits:
        git(ws, "cat-file", "-e", commit)
    assert git(ws, "rev-list", "HEAD").split() == commits


async def test_a_shallow_list_a_command_writes_is_removed_and_said(ws: Path) -> None:
    """Finding A1: ``git rev-parse HEAD > .git/shallow`` made HEAD the start of history;
    the user's next ``git gc`` deleted every older commit."""
    require_sandbox()
    commits = _three_commits(ws)
    result = await sh(ws, "git rev-parse HEAD > .git/shallow && git log --oneline | wc -l")
    assert result.text.startswith("1"), result.text  # it did take, inside the sandbox
    assert not (ws / ".git" / "shallow").exists()
    assert "shallow list" in result.text and "removed" in result.text and commits[0][:12] in result.text
    _users_gc_keeps(ws, commits)


def _shallow_clone(ws: Path) -> tuple[Path, list[str]]:
    """``ws`` a clone of depth 1 of a three-commit repository kept inside it (``up/``)."""
    up = ws.parent / "up"
    up.mkdir()
    commits = _three_commits(up)
    git(ws.parent, "clone", "-q", "--depth=1", f"file://{up}", str(ws))
    moved = ws / "up"
    up.rename(moved)
    git(ws, "remote", "set-url", "origin", f"file://{moved}")
    (ws / ".git" / "info" / "exclude").write_text("up/\n")
    return moved, commits


async def test_a_changed_shallow_list_is_set_back(ws: Path) -> None:
    require_sandbox()
    _, commits = _shallow_clone(ws)
    git(ws, "fetch", "-q", "--depth=2", "origin")
    was = (ws / ".git" / "shallow").read_bytes()
    assert was.split() == [commits[1].encode()]
    result = await sh(ws, "git rev-parse HEAD >> .git/shallow && git log --oneline | wc -l")
    assert result.text.startswith("1"), result.text
    assert (ws / ".git" / "shallow").read_bytes() == was, result.text
    assert "set back as it was" in result.text and commits[0][:12] in result.text


async def test_git_fetch_deepen_and_unshallow_keep_their_shallow_list(ws: Path) -> None:
    """Git's own writes: each new entry lacks a parent here (fetch --depth), or entries
    only go (--unshallow). Kept, nothing said."""
    require_sandbox()
    _, commits = _shallow_clone(ws)
    result = await sh(ws, "git fetch -q --depth=2 origin && git rev-list HEAD | wc -l")
    assert not result.is_error and "shallow" not in result.text, result.text
    assert result.text.startswith("2")
    assert (ws / ".git" / "shallow").read_text().split() == [commits[1]]
    result = await sh(ws, "git fetch -q --unshallow origin && git rev-list HEAD | wc -l")
    assert not result.is_error and "shallow" not in result.text, result.text
    assert not (ws / ".git" / "shallow").exists()
    _users_gc_keeps(ws, commits)
