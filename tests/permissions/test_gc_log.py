"""A ``.git/gc.log`` a command writes: the user's git prints it raw at every ``git gc
--auto`` (escape sequences reach their terminal) and skips auto gc for a day. After
the command it is removed and said; one the user had before is left. Against the
real bubblewrap and git."""

from __future__ import annotations

import os
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from ..sandboxing import require_sandbox
from .later_ws import GIT_ENV, git, later_workspace, sh

pytestmark = pytest.mark.anyio

EVIL = "printf 'warning: \\033]8;;https://x.example\\033\\\\click\\033]8;;\\033\\\\ \\033[J\\n' > .git/gc.log"


@pytest.fixture
def ws(monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    yield from later_workspace(monkeypatch, ".agent-shell-test-gclog-")


def auto_gc(ws: Path) -> str:
    """What the user's own ``git gc --auto`` prints (forced due: gc.auto=1)."""
    done = subprocess.run(["git", "-c", "gc.auto=1", "-c", "gc.autoDetach=false", "gc", "--auto"], cwd=ws,
                          capture_output=True, text=True, env={**os.environ, **GIT_ENV})
    return done.stdout + done.stderr


async def test_a_gc_log_written_by_a_command_is_removed_and_said(ws: Path) -> None:
    require_sandbox()
    git(ws, "init", "-q")
    result = await sh(ws, EVIL + " && echo written")
    assert "written" in result.text
    assert not (ws / ".git" / "gc.log").exists()
    assert "removed .git/gc.log (it began: warning:" in result.text
    assert "\x1b" not in result.text
    assert "\x1b" not in auto_gc(ws)  # the user's git has nothing of it to print


async def test_a_gc_log_the_user_had_is_left(ws: Path) -> None:
    require_sandbox()
    git(ws, "init", "-q")
    (ws / ".git" / "gc.log").write_text("the user's own\n")
    result = await sh(ws, "git status --short; echo ok")
    assert (ws / ".git" / "gc.log").read_text() == "the user's own\n"
    assert "gc.log" not in result.text
