"""A slow permission check does not freeze the TUI (finding T5: a regex that backtracked
on a model's command held the event loop, so Esc and Ctrl+Q did nothing). The check
runs in a worker thread: while it runs the prompt takes keys, Esc ends the turn at
once, the abandoned check's verdict runs nothing, and the next message is answered."""

from __future__ import annotations

import threading
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest

from middleware.human_in_the_loop import Verdict
from shell.core.messages import AssistantMessage, ToolResultMessage
from shell.core.tools import Tool
from shell.tui.app import AgentShellApp

from .helpers import SIZE, wait_for
from .test_permissions_tui import call, runtime

pytestmark = pytest.mark.anyio
WAIT = 15.0
"""Seconds the held check waits at most (on the old code it held the loop this long)."""


async def test_esc_ends_the_turn_while_the_permission_check_still_runs(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    turns = [call("run_shell", command="touch ran.txt"), "Second answer."]
    rt = runtime(tmp_path, turns, permission_mode="bypass")  # the check would allow it
    started, release, running = threading.Event(), threading.Event(), threading.Event()
    real = rt.permissions._decide

    def slow(tool: Tool, args: Mapping[str, Any]) -> Verdict:
        running.set()
        started.set()
        try:
            release.wait(WAIT)  # a check that takes long (a big repository, a slow disk, a pattern)
            return real(tool, args)
        finally:
            running.clear()

    monkeypatch.setattr(rt.permissions, "_decide", slow)
    app = AgentShellApp(runtime=rt)
    try:
        async with app.run_test(size=SIZE) as pilot:
            await wait_for(pilot, lambda: app.ready)
            app.start_reply("go")
            await wait_for(pilot, started.is_set)
            await pilot.press(*"abc")  # the screen takes keys while the check runs
            await wait_for(pilot, lambda: app.prompt.text == "abc")
            assert running.is_set()
            await pilot.press("escape")
            await wait_for(pilot, lambda: not app.busy)
            assert running.is_set(), "the turn ended only once the check had"
            release.set()  # the abandoned check ends now: its "allow" runs nothing
            await wait_for(pilot, lambda: not running.is_set())
            cut = rt.agent.messages[-1]
            assert isinstance(cut, (AssistantMessage, ToolResultMessage))
            app.prompt.text = ""
            app.start_reply("and now?")
            await wait_for(pilot, lambda: not app.busy and rt.agent.messages[-1].text == "Second answer.")
    finally:
        release.set()
    assert not (rt.workspace.root / "ran.txt").exists()
