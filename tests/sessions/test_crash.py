"""SIGKILL a recording process at random moments: nothing it showed is lost.

Every message it had shown completely is in the session file; text in flight is
there up to what was shown one checkpoint interval (plus slack) before the last
event it recorded; tool results it had shown are kept rather than marked
interrupted; the file always loads into a valid history. Trials run in parallel batches to stay fast.
"""

from __future__ import annotations

import json
import random
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from shell.core.messages import AssistantMessage, ToolResultMessage, UserMessage
from shell.sessions import INTERRUPTED_RESULT, load_session
from tests.helpers import history_is_valid

from .crash_driver import CHECKPOINT_INTERVAL

TRIALS = 60
BATCH = 12
SLACK = 0.3
SEED = 2026
REPO = Path(__file__).parents[2]


def spawn(root: Path, trial: int) -> subprocess.Popen[bytes]:
    return subprocess.Popen(
        [sys.executable, "-m", "tests.sessions.crash_driver", str(root), f"trial{trial}", str(trial)],
        stdout=subprocess.PIPE, cwd=REPO,
    )


def shown_lines(raw: bytes) -> list[dict[str, Any]]:
    """The lines printed completely before the kill (a torn last line was not shown)."""
    return [json.loads(line) for line in raw.split(b"\n")[:-1] if line.strip()]


def check(root: Path, trial: int, lines: list[dict[str, Any]]) -> None:
    where = f"trial {trial}"
    path = root / f"trial{trial}.jsonl"
    if not path.exists():
        assert all(line["e"] == "ready" for line in lines), f"{where}: events shown but no file"
        return
    loaded = load_session(path)  # never raises
    assert history_is_valid(loaded.messages), where
    if not lines:
        return
    # The last line's event may have been recorded long before it was printed (a
    # process starved on a busy machine): time is read from the line before it,
    # printed before the last event was recorded, when a checkpoint was due.
    seen_at = lines[-2]["t"] if len(lines) > 1 else float("-inf")
    users = [m.text for m in loaded.messages if isinstance(m, UserMessage)]
    assert users == [line["text"] for line in lines if line["e"] == "user"][: len(users)], where
    assert len(users) == sum(line["e"] == "user" for line in lines), f"{where}: a shown prompt was lost"
    # text: all of it, in order, up to what was shown a checkpoint interval before the kill
    file_text = "".join(m.text for m in loaded.messages if isinstance(m, AssistantMessage))
    shown = "".join(line["text"] for line in lines if line["e"] == "text")
    old = "".join(
        line["text"] for line in lines
        if line["e"] == "text" and line["t"] <= seen_at - CHECKPOINT_INTERVAL - SLACK
    )
    assert file_text.startswith(old), f"{where}: lost shown text\nfile: {file_text!r}\nold:  {old!r}"
    assert shown.startswith(file_text) or file_text.startswith(shown), where
    # tool results that were shown are kept
    results = {m.call_id: m.text for m in loaded.messages if isinstance(m, ToolResultMessage)}
    for line in lines:
        if line["e"] == "result":
            assert results.get(line["call_id"]) == line["text"], f"{where}: result {line['call_id']} lost"
            assert results[line["call_id"]] != INTERRUPTED_RESULT
    # a reply shown as ended is complete in the file
    if any(line["e"] == "end" for line in lines):
        assert not isinstance(loaded.messages[1], UserMessage), where


@pytest.mark.slow
def test_sigkill_at_random_moments_loses_nothing_shown(tmp_path: Path) -> None:
    rng = random.Random(SEED)
    root = tmp_path / "sessions"
    root.mkdir()
    killed_mid_text = 0
    for first in range(0, TRIALS, BATCH):
        trials = list(range(first, min(first + BATCH, TRIALS)))
        procs = {t: spawn(root, t) for t in trials}
        for proc in procs.values():
            assert proc.stdout is not None
            assert b"ready" in proc.stdout.readline()
        start = time.monotonic()
        kill_at = {t: rng.uniform(0.0, 2.5) for t in trials}
        for t in sorted(trials, key=kill_at.__getitem__):
            time.sleep(max(0.0, start + kill_at[t] - time.monotonic()))
            procs[t].send_signal(signal.SIGKILL)
        for t, proc in procs.items():
            assert proc.stdout is not None
            out = proc.stdout.read()  # (not communicate: it would skip what readline buffered)
            proc.wait(timeout=30)
            lines = shown_lines(out)
            if lines and lines[-1]["e"] == "text":
                killed_mid_text += 1
            check(root, t, lines)
    assert killed_mid_text >= TRIALS // 5  # the kills did land mid-stream
