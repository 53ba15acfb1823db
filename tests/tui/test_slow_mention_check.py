"""A slow permission check of an ``@`` file does not freeze the TUI: the check that says
whether ``@notes.md`` may be attached (``policy.decide`` for ``read_file``) ran on the
event loop before the message was sent, so one slow check held the keys and Esc as the
tool calls' checks did before finding T5. It runs the way theirs does now: off the loop,
stopped by Esc, refused past the time limit, and the message is not sent without it."""

from __future__ import annotations

import threading
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest

from middleware import human_in_the_loop
from middleware.human_in_the_loop import Verdict
from shell.core.tools import Tool
from shell.runtime import ShellRuntime
from shell.tui.app import AgentShellApp
from shell.tui.widgets.notice_line import NoticeLine

from .helpers import SIZE, wait_for
from .test_permissions_tui import runtime

pytestmark = pytest.mark.anyio
WAIT = 15.0
"""Seconds the held check waits at most (on the old code it held the loop this long)."""


class SlowReadCheck:
    """``policy._decide`` that holds every ``read_file`` check until ``release``."""

    def __init__(self, rt: ShellRuntime) -> None:
        self.real = rt.permissions._decide
        self.started, self.release = threading.Event(), threading.Event()

    def __call__(self, tool: Tool, args: Mapping[str, Any]) -> Verdict:
        if tool.name == "read_file":
            self.started.set()
            self.release.wait(WAIT)  # a slow disk, a big repository, a pattern that backtracks
        return self.real(tool, args)


def notices(app: AgentShellApp) -> str:
    return "\n".join(n.text for n in app.query(NoticeLine))


def slow_app(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[AgentShellApp, SlowReadCheck]:
    rt = runtime(tmp_path, ["The notes say hi."])
    (rt.workspace.root / "notes.md").write_text("hi\n")
    check = SlowReadCheck(rt)
    monkeypatch.setattr(rt.permissions, "_decide", check)
    return AgentShellApp(runtime=rt), check


async def test_keys_and_esc_stay_live_while_an_at_files_check_runs(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    app, check = slow_app(tmp_path, monkeypatch)
    try:
        async with app.run_test(size=SIZE) as pilot:
            await wait_for(pilot, lambda: app.ready)
            app.start_reply("summarise @notes.md")
            await wait_for(pilot, check.started.is_set)
            await pilot.press(*"abc")  # the prompt takes keys while the check runs
            await wait_for(pilot, lambda: app.prompt.text == "abc")
            assert app.busy and not check.release.is_set()
            await pilot.press("escape")  # stops the check: the message is not sent, and comes back
            await wait_for(pilot, lambda: not app.busy and "summarise @notes.md" in app.prompt.text)
            assert "@notes.md: not attached: its permission check was stopped" in notices(app)
            assert app.prompt.text == "summarise @notes.md\n\nabc"  # back, before what was typed since
    finally:
        check.release.set()
    assert app.runtime.agent.messages == []  # nothing went to the model


async def test_an_at_file_whose_check_takes_too_long_is_not_attached_and_the_user_is_told(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(human_in_the_loop, "CHECK_SECONDS", 0.2)
    app, check = slow_app(tmp_path, monkeypatch)
    try:
        async with app.run_test(size=SIZE) as pilot:
            await wait_for(pilot, lambda: app.ready)
            app.start_reply("summarise @notes.md")
            await wait_for(pilot, lambda: not app.busy and app.prompt.text == "summarise @notes.md")
            assert not check.release.is_set()  # refused while the check still ran: fail closed
            said = notices(app)
            assert "@notes.md: not attached: the permission check took too long (over 0.2 s)" in said
    finally:
        check.release.set()
    assert app.runtime.agent.messages == []
