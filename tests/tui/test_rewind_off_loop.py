"""``/rewind N files`` in the TUI puts files and the repository's history back in a
worker thread: with the hash checks a rewind of a big repository takes seconds, and
the screen must stay live meanwhile (typing, Esc)."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

import pytest

from shell.config import Settings
from shell.core.messages import AssistantMessage, TextBlock, ToolCallBlock
from shell.providers.scripted import ScriptedModel
from shell.runtime import RuntimeOptions, ShellRuntime
from shell.tui.app import AgentShellApp

from .helpers import SIZE, send, wait_for

pytestmark = pytest.mark.anyio


@pytest.fixture(autouse=True)
def _data(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AGENT_SHELL_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("TERM", "xterm-256color")


async def test_the_screen_takes_keys_while_a_rewind_puts_files_back(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import shell.rewind

    real, where = shell.rewind.apply_rewind, []
    release = threading.Event()

    def slow(runtime: Any, plan: Any, what: Any) -> Any:
        where.append(threading.current_thread() is threading.main_thread())
        release.wait(timeout=20)  # on the event loop, the keys below wait this long and the test fails
        return real(runtime, plan, what)

    monkeypatch.setattr(shell.rewind, "apply_rewind", slow)
    ws = tmp_path / "ws"
    ws.mkdir()
    (ws / "a.txt").write_text("original")
    call = AssistantMessage((TextBlock("Writing."), ToolCallBlock("w1", "write_file",
                                                                  {"path": "a.txt", "content": "one"})))
    rt = ShellRuntime.create(RuntimeOptions(cwd=str(ws), permission_mode="bypass"),
                             settings=Settings(path=ws / "none.toml"), model=ScriptedModel([call, "Done."]))
    app = AgentShellApp(runtime=rt)
    async with app.run_test(size=SIZE) as pilot:
        await send(pilot, "make it one")
        await wait_for(pilot, lambda: not app.busy and (ws / "a.txt").read_text() == "one")
        app.run_worker(app.run_command_line("/rewind 1 files"), group="rewind")
        await wait_for(pilot, lambda: bool(where))
        assert where == [False]
        await pilot.press("x")
        await wait_for(pilot, lambda: app.prompt.text == "x")
        assert not release.is_set() and (ws / "a.txt").read_text() == "one"
        release.set()
        await wait_for(pilot, lambda: (ws / "a.txt").read_text() == "original")
