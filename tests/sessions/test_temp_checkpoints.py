"""A `--no-session` run keeps its checkpoints (the user's prompts, file contents before
each edit) in a temporary folder: gone when it ends, however it ends."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from shell.sessions import tempcheckpoints


def _folders(base: Path) -> list[str]:
    return sorted(p.name for p in base.iterdir() if p.name.startswith(tempcheckpoints.PREFIX))


def test_a_killed_runs_folder_is_swept_by_the_next_start(tmp_path: Path,
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    """A run killed with SIGKILL never reaches close() nor atexit: its folder, holding
    the prompt, stayed in /tmp for good (2,127 of them in a day). The next start
    removes it, and leaves those of runs still going and other old names alone."""
    monkeypatch.setenv("TMPDIR", str(tmp_path))
    code = ("import sys, time; from shell.sessions.checkpoints import Checkpoints\n"
            "c = Checkpoints.temporary(); (c.root / 'log.jsonl').write_text('my secret prompt')\n"
            "print(c.root, flush=True); time.sleep(60)\n")
    child = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, text=True,
                             env={**os.environ, "TMPDIR": str(tmp_path)})
    assert child.stdout is not None
    killed = Path(child.stdout.readline().strip())
    live = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, text=True,
                            env={**os.environ, "TMPDIR": str(tmp_path)})
    assert live.stdout is not None
    running = Path(live.stdout.readline().strip())
    try:
        child.send_signal(signal.SIGKILL)
        child.wait()
        assert killed.exists()  # nothing of the killed run removed it
        recent_old_name = tmp_path / (tempcheckpoints.PREFIX + "abcd1234")
        recent_old_name.mkdir()
        removed = tempcheckpoints.sweep(str(tmp_path))
        assert removed == [killed] and not killed.exists()
        assert running.exists() and recent_old_name.exists()
        later = time.time() + tempcheckpoints.STALE_SECONDS + 60
        assert tempcheckpoints.sweep(str(tmp_path), now=later) == [recent_old_name]
    finally:
        live.kill()
        live.wait()


def test_a_run_that_ends_without_close_leaves_nothing(tmp_path: Path) -> None:
    code = ("from shell.sessions.checkpoints import Checkpoints\n"
            "c = Checkpoints.temporary(); (c.root / 'log.jsonl').write_text('x')\n"
            "raise SystemExit(3)\n")
    done = subprocess.run([sys.executable, "-c", code], env={**os.environ, "TMPDIR": str(tmp_path)})
    assert done.returncode == 3
    assert _folders(tmp_path) == []
