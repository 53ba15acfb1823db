"""/rewind past a command's ``git commit -a`` puts git's index back too (finding B1):
the branch and the files went back, but the commit's change stayed staged, and the
next plain ``git commit`` recorded the undone change again. Real bubblewrap, real git."""

from __future__ import annotations

from pathlib import Path

import pytest

from shell.rewind import apply_rewind, plan_rewind
from shell.sessions import SessionStore
from tests.sessions.test_git_history_budget import _session
from tests.sessions.test_git_history_kept import _git, _repo

pytestmark = pytest.mark.anyio

COMMIT_A = "echo more >> a.txt && git commit -qam second && echo ok"


async def test_a_rewound_commit_a_leaves_only_what_was_staged_before_it(
    tmp_path: Path, store: SessionStore
) -> None:
    ws = _repo(tmp_path)
    (ws / "b.txt").write_text("staged by the user\n")
    _git(ws, "add", "b.txt")  # staged before the message: the commit takes it, the rewind gives it back
    old = _git(ws, "rev-parse", "HEAD").strip()
    rt, _ = await _session(ws, [COMMIT_A])
    assert _git(ws, "rev-parse", "HEAD").strip() != old
    plan = plan_rewind(rt, 1)
    assert "index put back" in plan.describe(), plan.describe()
    outcome = apply_rewind(rt, plan, "files").describe()
    assert _git(ws, "rev-parse", "refs/heads/main").strip() == old, outcome
    assert "index put back as it was before that message" in outcome, outcome
    assert "git reset -q" not in outcome, outcome
    assert _git(ws, "status", "--porcelain") == "A  b.txt\n"  # a.txt's change is not staged any more
    assert _git(ws, "diff", "--cached", "--name-only") == "b.txt\n"
    _git(ws, "commit", "-qm", "the user's next commit")
    assert _git(ws, "show", "--name-only", "--format=", "HEAD") == "b.txt\n"  # the undone change is not in it


async def test_an_index_changed_since_by_the_user_is_left_and_said(
    tmp_path: Path, store: SessionStore
) -> None:
    ws = _repo(tmp_path)
    rt, _ = await _session(ws, [COMMIT_A])
    (ws / "c.txt").write_text("the user's own\n")
    _git(ws, "add", "c.txt")  # after the command: the index is not what it left
    outcome = apply_rewind(rt, plan_rewind(rt, 1), "files").describe()
    assert "index left as it is" in outcome and "git reset -q" in outcome, outcome
    assert "c.txt" in _git(ws, "diff", "--cached", "--name-only")  # the user's staging is not lost


async def test_a_command_that_only_stages_has_its_staging_undone(tmp_path: Path, store: SessionStore) -> None:
    ws = _repo(tmp_path)
    rt, _ = await _session(ws, ["echo new > d.txt && git add d.txt && echo ok"])
    assert _git(ws, "diff", "--cached", "--name-only") == "d.txt\n"
    outcome = apply_rewind(rt, plan_rewind(rt, 1), "files").describe()
    assert "index put back" in outcome, outcome
    assert not (ws / "d.txt").exists() and _git(ws, "status", "--porcelain") == ""
