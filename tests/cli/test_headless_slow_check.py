"""Ctrl+C in headless mode (``-p``) while a permission check runs (finding T5: a check
that backtracked on the model's command held the event loop, and -p never ended).
The check runs in a worker thread: the signal ends the run at once, cancelled, and
the command the check was about does not run."""

from __future__ import annotations

import io
import os
import signal
import sys
import threading
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest

from middleware.human_in_the_loop import Verdict
from shell.config import Settings
from shell.core.tools import Tool
from shell.headless import EXIT_INTERRUPTED, run_headless
from shell.providers.scripted import ScriptedModel
from shell.runtime import RuntimeOptions, ShellRuntime
from tests.tui.test_permissions_tui import call

pytestmark = pytest.mark.anyio
WAIT = 15.0
"""Seconds the held check waits at most (on the old code it held the loop this long)."""


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals")
async def test_ctrl_c_ends_a_headless_run_while_the_permission_check_still_runs(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    runtime = ShellRuntime.create(
        RuntimeOptions(cwd=str(tmp_path), record=False, permission_mode="bypass"),
        settings=Settings(path=tmp_path / "none.toml"),
        model=ScriptedModel([call("run_shell", command="touch ran.txt"), "Done."]),
    )
    release, running = threading.Event(), threading.Event()
    real = runtime.permissions._decide

    def slow(tool: Tool, args: Mapping[str, Any]) -> Verdict:
        running.set()
        try:
            os.kill(os.getpid(), signal.SIGINT)  # Ctrl+C, pressed while the check runs
            release.wait(WAIT)
            return real(tool, args)
        finally:
            running.clear()

    monkeypatch.setattr(runtime.permissions, "_decide", slow)
    out = io.StringIO()
    try:
        code = await run_headless(runtime, "go", output_format="json", approve="always", out=out,
                                  err=io.StringIO())
        assert running.is_set(), "the run ended only once the check had"
    finally:
        release.set()
    assert code == EXIT_INTERRUPTED
    assert not (tmp_path / "ran.txt").exists()
