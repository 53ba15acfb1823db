"""Ctrl+C in the line mode while a permission check runs (finding T5): the check runs
in a worker thread, so the signal ends the turn at once instead of after the check;
the abandoned check runs nothing, and the next message is answered."""

from __future__ import annotations

import os
import signal
import sys
import threading
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest

from middleware.human_in_the_loop import Verdict
from shell.core.tools import Tool

from ..tui.test_permissions_tui import call
from .test_plain import line_mode

pytestmark = pytest.mark.anyio
WAIT = 15.0
"""Seconds the held check waits at most (on the old code it held the loop this long)."""


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals")
async def test_ctrl_c_ends_the_turn_while_the_permission_check_still_runs(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    started, release, running = threading.Event(), threading.Event(), threading.Event()
    async with line_mode(tmp_path, [call("run_shell", command="touch ran.txt"), "next answer"]) as d:
        real = d.runtime.permissions._decide

        def slow(tool: Tool, args: Mapping[str, Any]) -> Verdict:
            running.set()
            started.set()
            try:
                release.wait(WAIT)
                return real(tool, args)
            finally:
                running.clear()

        monkeypatch.setattr(d.runtime.permissions, "_decide", slow)
        try:
            await d.send("go\r")
            await d.until(started.is_set)
            await d.wait_for("checking permission…")  # said after half a second
            said = next(line for line in d.text.splitlines() if "checking permission…" in line)
            assert said.startswith("run_shell") and "touch ran.txt" in said, said
            os.kill(os.getpid(), signal.SIGINT)
            await d.wait_for("cancelled", timeout=30)
            assert running.is_set(), "the turn ended only once the check had"
            release.set()
            await d.until(lambda: not running.is_set())
            await d.send("again\r", then="next answer")
            await d.send("/quit\r")
        finally:
            release.set()
    assert d.result == [0]
    assert not (tmp_path / "ran.txt").exists()
