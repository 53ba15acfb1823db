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


@pytest.mark.anyio
async def test_the_commands_changes_are_scanned_and_recorded_off_the_event_loop(tmp_path: Path) -> None:
    """A command that made 30,000 files has 60,000 checkpoint records to write: done on
    the event loop, the screen froze for minutes and Esc did nothing (J9)."""
    import threading

    capture = WorkspaceCapture(tmp_path)
    loop_thread = threading.current_thread()
    recorded_on: list[threading.Thread] = []

    class Recording(_Changes):
        def shell_ran(self, command: str, *, sandboxed: bool, files: Sequence[Any] | None,
                      note: str = "") -> None:
            recorded_on.append(threading.current_thread())
            super().shell_ran(command, sandboxed=sandboxed, files=files, note=note)

    changes = Recording()

    async def run() -> str:
        (tmp_path / "made.txt").write_text("new\n")
        return "done"

    assert await watched(run, "make", changes, capture) == "done"  # type: ignore[arg-type]
    assert [f.path.name for f in changes.files] == ["made.txt"]
    assert recorded_on and recorded_on[0] is not loop_thread


def test_a_scan_out_of_time_inside_one_huge_folder_stops_there(tmp_path: Path,
                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    """The walk looks at the clock between folders only, so one folder of 30,000 files
    was read to its end (10 s under load) whatever the budget; the scan stops in it."""
    import types

    from shell.tools import capture as capture_module

    (tmp_path / "many").mkdir()
    for i in range(600):
        (tmp_path / "many" / f"f{i:03}.txt").write_text("needle")
    start = capture_module.time.monotonic()  # the walk's own clock stays real, far from its deadline
    ticks = iter(range(10_000))
    clock = types.SimpleNamespace(monotonic=lambda: start + 100.0 * next(ticks),
                                  time_ns=capture_module.time.time_ns)
    monkeypatch.setattr(capture_module, "time", clock)
    snap = WorkspaceCapture(tmp_path, budget=60.0).snapshot()
    assert not snap.complete
    assert len(snap.files) < 600
    assert snap.why.startswith(CUT_NOTE) and "under many/" in snap.why


def test_kept_content_is_whole_even_when_the_file_grew_after_its_stat(tmp_path: Path) -> None:
    """The capture reads a file by the size its stat gave; a file that grew in between
    is still kept whole (a rewind writes back what is kept), and the limit still holds."""
    import os

    from shell.tools.capture import _read_up_to

    data = os.urandom(300_000)
    (tmp_path / "grew.bin").write_bytes(data)
    fd = os.open(tmp_path / "grew.bin", os.O_RDONLY)
    try:
        assert _read_up_to(fd, 10, 1_000_000) == data
        os.lseek(fd, 0, os.SEEK_SET)
        assert _read_up_to(fd, 300_000, 100_001) == data[:100_001]
    finally:
        os.close(fd)
