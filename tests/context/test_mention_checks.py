"""The line mode and ``-p`` check a message's ``@`` files off the loop and under the
tool calls' time limit: a check past it fails closed (the file is not attached, the
message not sent) and says why, where it ran on the loop for as long as it took and
then sent the file."""

from __future__ import annotations

import io
import threading
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest

from middleware import human_in_the_loop
from middleware.human_in_the_loop import Verdict
from shell.config import Settings
from shell.core.tools import Tool
from shell.frontend.exits import EXIT_USAGE
from shell.headless import run_headless
from shell.providers.scripted import ScriptedModel
from shell.runtime import RuntimeOptions, ShellRuntime
from tests.plain.test_plain import line_mode

pytestmark = pytest.mark.anyio
WAIT = 10.0


def held_read_checks(rt: ShellRuntime, monkeypatch: pytest.MonkeyPatch) -> threading.Event:
    """Hold every ``read_file`` check of ``rt``'s policy until the returned event is set."""
    release = threading.Event()
    real = rt.permissions._decide

    def slow(tool: Tool, args: Mapping[str, Any]) -> Verdict:
        if tool.name == "read_file":
            release.wait(WAIT)
        return real(tool, args)

    monkeypatch.setattr(rt.permissions, "_decide", slow)
    return release


async def test_the_line_mode_refuses_an_at_file_whose_check_takes_too_long(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(human_in_the_loop, "CHECK_SECONDS", 0.2)
    (tmp_path / "notes.md").write_text("hi\n")
    async with line_mode(tmp_path, ["never"]) as d:
        release = held_read_checks(d.runtime, monkeypatch)
        try:
            await d.send("summarise @notes.md\r", then="Not sent")
            await d.wait_for("took too long")
            assert not release.is_set()
        finally:
            release.set()
        await d.send("\x03")  # the message came back to the prompt: Ctrl+C clears it
        await d.send("/quit\r")
    assert "@notes.md: not attached: the permission check took too long (over 0.2 s)" in d.text
    assert d.runtime.agent.messages == []


async def test_a_p_prompts_at_file_whose_check_takes_too_long_is_not_sent(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(human_in_the_loop, "CHECK_SECONDS", 0.2)
    (tmp_path / "notes.md").write_text("hi\n")
    rt = ShellRuntime.create(RuntimeOptions(cwd=str(tmp_path), record=False),
                             settings=Settings(path=tmp_path / "none.toml"), model=ScriptedModel(["never"]))
    release = held_read_checks(rt, monkeypatch)
    err = io.StringIO()
    try:
        code = await run_headless(rt, "summarise @notes.md", out=io.StringIO(), err=err)
    finally:
        release.set()
    assert code == EXIT_USAGE and rt.agent.messages == []
    said = err.getvalue()
    assert "not sent: @notes.md: not attached: the permission check took too long (over 0.2 s)" in said
