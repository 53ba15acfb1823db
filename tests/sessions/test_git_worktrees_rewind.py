"""Finding C17: a linked worktree's reflog and ORIG_HEAD (in ``.git/worktrees/NAME``), removed
by a command in auto mode, are kept with the history and ``/rewind`` puts them back; a
worktree gone since is not brought back. Real bubblewrap, real git."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from shell.rewind import apply_rewind, plan_rewind
from shell.sessions import SessionStore

from .test_git_history_kept import _git, _repo, _run

pytestmark = pytest.mark.anyio


def _worktree(tmp_path: Path) -> tuple[Path, Path, str]:
    ws = _repo(tmp_path)
    wt = tmp_path / "wt"
    _git(ws, "worktree", "add", "-q", "--detach", str(wt))
    (wt / "d.txt").write_text("d\n")
    _git(wt, "add", "d.txt")
    _git(wt, "commit", "-qm", "detached-work")
    return ws, wt, _git(wt, "rev-parse", "HEAD").strip()


async def test_a_worktrees_reflog_removed_is_said_and_rewind_puts_it_back(
    tmp_path: Path, store: SessionStore
) -> None:
    ws, wt, commit = _worktree(tmp_path)
    reflog = _git(wt, "reflog", "--format=%H %gs")
    admin = ws / ".git" / "worktrees" / "wt"
    rt, text = await _run(ws, "rm -rf .git/worktrees/wt/logs .git/worktrees/wt/ORIG_HEAD; echo y")
    assert not (admin / "logs" / "HEAD").exists()
    assert "ORIG_HEAD, logs/HEAD of the linked git worktree" in text, text
    assert "/rewind to before this message puts them back" in text, text
    plan = plan_rewind(rt, 1)
    assert "ORIG_HEAD, logs/HEAD of the linked worktree wt put back" in plan.describe()
    apply_rewind(rt, plan, "files")
    assert _git(wt, "reflog", "--format=%H %gs") == reflog
    assert commit in reflog and (admin / "ORIG_HEAD").is_file()


async def test_a_worktree_the_user_removed_since_is_not_brought_back(
    tmp_path: Path, store: SessionStore
) -> None:
    ws, wt, _ = _worktree(tmp_path)
    rt, _ = await _run(ws, "rm -rf .git/worktrees/wt/logs; echo y")
    shutil.rmtree(wt)
    _git(ws, "worktree", "prune", "--expire=now")  # the user's own clean-up, between messages
    apply_rewind(rt, plan_rewind(rt, 1), "files")
    assert not (ws / ".git" / "worktrees" / "wt").exists()


async def test_in_a_worktree_workspace_the_shared_history_is_kept_said_and_put_back(
    tmp_path: Path, store: SessionStore
) -> None:
    """The workspace is a linked worktree: the sandbox lets its git write the repository's
    objects, refs and reflogs (outside the workspace), and the history keep kept none of
    them: ``rm -rf`` of its objects and branch, and of its own HEAD and index, lost the
    branch's commits and left the workspace "not a git repository", with nothing said."""
    main = _repo(tmp_path)
    ws = tmp_path / "feature"
    _git(main, "worktree", "add", "-q", "-b", "feature", str(ws))
    (ws / "d.txt").write_text("d\n")
    _git(ws, "add", "d.txt")
    _git(ws, "commit", "-qm", "feat")
    log = _git(ws, "log", "--format=%H %s")
    rt, text = await _run(ws, 'C=$(git rev-parse --git-common-dir); G=$(git rev-parse --git-dir); '
                              'rm -rf "$C"/objects/?? "$C"/refs/heads/feature "$G/HEAD" "$G/index"; echo y')
    assert "HEAD, index of the linked git worktree ./ (this workspace)" in text, text
    assert "this command removed git history" in text and "refs/heads/feature" in text, text
    apply_rewind(rt, plan_rewind(rt, 1), "files")
    assert _git(ws, "log", "--format=%H %s") == log
    assert _git(ws, "status", "--porcelain") == ""
