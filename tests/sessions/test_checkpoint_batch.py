"""A sandboxed command's checkpoint records reach the log together: one write and one
fsync for all of them, not two fsyncs per file it touched (a command that made 30,000
files spent minutes there, J9), and they read back as they were recorded."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest

from shell.sessions import checkpoints as checkpoints_module
from shell.sessions.checkpoints import ABSENT, Checkpoints, FileChange, ShellRun
from shell.tools.changes import CapturedFile


def test_a_commands_records_are_one_write_and_read_back_whole(tmp_path: Path,
                                                              monkeypatch: pytest.MonkeyPatch) -> None:
    cps = Checkpoints(tmp_path / "cp")
    cps.begin_turn("make files", offset=None, history_len=0)
    made = [CapturedFile(tmp_path / f"m/{i}.txt", None, None, after=b"needle") for i in range(500)]
    changed = CapturedFile(tmp_path / "old.txt", b"old\n", 0o644, after=b"new\n")
    gone = CapturedFile(tmp_path / "gone.txt", b"bye\n", 0o600, deleted=True)
    syncs: list[int] = []
    real_fsync = checkpoints_module.os.fsync
    monkeypatch.setattr(checkpoints_module.os, "fsync", lambda fd: (syncs.append(fd), real_fsync(fd))[1])
    cps.shell_ran("python3 mk.py", sandboxed=True, files=[*made, changed, gone], note="")
    log_syncs = len(syncs) - 2  # the two kept contents (blobs) are synced each, before the log
    assert log_syncs == 1

    again = Checkpoints(tmp_path / "cp")
    files = [r for r in again.records if isinstance(r, FileChange)]
    assert len(files) == 502
    assert {f.path for f in files if not f.existed} == {str(c.path) for c in made}
    old = next(f for f in files if f.path.endswith("old.txt"))
    assert old.before is not None and again.blob(old.before) == b"old\n" and old.mode == 0o644
    assert [r.files for r in again.records if isinstance(r, ShellRun)] == [502]
    assert again.left[str(tmp_path / "gone.txt")] == ABSENT
    assert again.left[str(tmp_path / "old.txt")] == hashlib.sha256(b"new\n").hexdigest()
    assert again.records == cps.records and again.left == cps.left
