"""The rewind capture's scan has a time budget: a workspace too deep or too big to
walk quickly gives the command's result back, with a note of what a rewind cannot
restore, instead of holding the session (J9)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

from shell.tools.capture import CUT_NOTE, NOT_SCANNED, WorkspaceCapture, watched


class _Changes:
    def __init__(self) -> None:
        self.notes: list[str] = []
        self.files: list[Any] = []

    def shell_ran(self, command: str, *, sandboxed: bool, files: Sequence[Any] | None,
                  note: str = "") -> None:
        self.notes.append(note)
        self.files.extend(files or ())


def test_a_scan_out_of_time_says_what_rewind_cannot_restore_and_invents_no_deletion(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("a\n")
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "b.txt").write_text("b\n")
    capture = WorkspaceCapture(tmp_path)
    before = capture.snapshot()
    assert before.complete and capture.cut == ""
    capture.budget = 0.0
    found = capture.changes_since(before)
    assert found == []  # a.txt and sub/b.txt were not seen, not deleted
    assert capture.cut.startswith(CUT_NOTE) and "under ./" in capture.cut and "0 s" in capture.cut


@pytest.mark.anyio
async def test_watched_records_the_cut_as_the_commands_note(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("a\n")
    capture = WorkspaceCapture(tmp_path)
    changes = _Changes()

    async def run() -> str:
        capture.budget = 0.0  # the command made the workspace too big to scan in time
        return "done"

    assert await watched(run, "make-deep", changes, capture) == "done"  # type: ignore[arg-type]
    assert changes.notes[0].startswith(CUT_NOTE)
    capture.budget = 5.0

    async def echo() -> str:
        return "ok"

    assert await watched(echo, "echo", changes, capture) == "ok"  # type: ignore[arg-type]
    assert changes.notes[1] == NOT_SCANNED


def test_rewind_says_what_a_cut_scan_could_not_restore() -> None:
    from shell.rewind import RewindPlan
    from shell.sessions.checkpoints import ShellRun, Turn

    cut = f"{CUT_NOTE} under x/x/ and after it: the workspace took more than 3 s to scan"
    plan = RewindPlan(Turn(1, "go", None, 0, "", 0), [], "", 0, commands=[
        ShellRun(1, "python3 mk.py", True, True, 0, cut, 1),
        ShellRun(1, "echo hi", True, True, 0, NOT_SCANNED, 2),
    ])
    text = plan.describe()
    assert f"Not all of it: {cut}." in text
    assert text.count("Not all of it") == 1
