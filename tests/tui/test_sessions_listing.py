"""``/sessions`` reads whole at 60 columns and at 200: every session's title, id, date
and count on screen. A row was id, date, count and title on one line, which the code
block cut at the window's edge: at 60 columns no title was shown at all."""

from __future__ import annotations

import json
import os
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from shell.config import Settings
from shell.providers.scripted import ScriptedModel
from shell.runtime import RuntimeOptions, ShellRuntime
from shell.sessions import SessionStore, format_sessions
from shell.tui.app import AgentShellApp

from .helpers import frame_drawn, send, wait_for
from .test_cancel_note import screen_text

TITLES = ["Fix the flaky test in the parser module and explain why it failed", "hi",
          "Refactor the session store so listing stays fast with a thousand sessions"]
AT = 1736078400  # 2025-01-05 12:00 UTC: an earlier year, so the date shows as "Jan 05  2025"


@pytest.fixture
def sessions(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """Three saved sessions of the workspace, with fixed dates in UTC."""
    monkeypatch.setenv("AGENT_SHELL_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("AGENT_SHELL_CONFIG_DIR", str(tmp_path / "config"))
    monkeypatch.setenv("TZ", "UTC")
    time.tzset()
    ws = tmp_path / "ws"
    ws.mkdir()
    root = SessionStore().ensure()
    for n, title in enumerate(TITLES):
        session_id = f"2025010{n + 1}-10120{n}-abc12{n}"
        records: list[dict[str, Any]] = [
            {"kind": "header", "version": 1, "id": session_id, "created": "2025-01-01T00:00:00+00:00",
             "cwd": str(ws), "model": "scripted"},
            {"kind": "message", "message": {"role": "user", "content": title}},
            *[{"kind": "message", "message": {"role": "assistant", "content": "ok"}}] * (n * 60),
        ]
        path = root / f"{session_id}.jsonl"
        path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
        os.utime(path, (AT + n * 3600, AT + n * 3600))
    yield ws
    monkeypatch.delenv("TZ")
    time.tzset()


def _app(ws: Path) -> AgentShellApp:
    runtime = ShellRuntime.create(RuntimeOptions(cwd=str(ws)), settings=Settings(path=ws / "none.toml"),
                                  model=ScriptedModel([]))
    return AgentShellApp(runtime=runtime)


async def _listed(app: AgentShellApp, pilot: Any) -> None:
    await wait_for(pilot, lambda: app.ready)
    await send(pilot, "/sessions")
    await wait_for(pilot, lambda: "Jan 05  2025" in screen_text(app))
    await frame_drawn(pilot)  # the whole listing laid out and drawn, not only its last line


@pytest.mark.anyio
@pytest.mark.parametrize("size", [(60, 24), (200, 24)])
async def test_every_title_id_date_and_count_is_on_screen(sessions: Path, size: tuple[int, int]) -> None:
    listing = format_sessions(SessionStore().list(str(sessions)))
    assert all(len(line) <= 52 for line in listing.splitlines())
    app = _app(sessions)
    async with app.run_test(size=size) as pilot:
        await _listed(app, pilot)
        shown = [" ".join(line.split()) for line in screen_text(app).splitlines()]
    for line in listing.splitlines():  # each line of the listing, whole, on a line of the screen
        assert " ".join(line.split()) in shown, (line, shown)
    words = " ".join(shown)
    for n, title in enumerate(TITLES):
        assert title in words  # wrapped, not cut
        assert f"2025010{n + 1}-10120{n}-abc12{n}" in words
    assert "1 msg " in words + " " and "61 msgs" in words and "121 msgs" in words and "Jan 05 2025" in words


def test_the_sessions_listing_at_60_columns(snap_compare: Any, sessions: Path) -> None:
    app = _app(sessions)

    async def run_before(pilot: Any) -> None:
        await _listed(app, pilot)
        app.prompt.cursor_blink = False

    assert snap_compare(app, terminal_size=(60, 20), run_before=run_before)


@pytest.mark.anyio
async def test_the_conversation_going_on_is_marked_in_the_listing(sessions: Path) -> None:
    settings = Settings(path=sessions / "none.toml")
    options = RuntimeOptions(cwd=str(sessions))
    runtime = ShellRuntime.create(options, settings=settings, model=ScriptedModel(["Hi."]))
    app = AgentShellApp(runtime=runtime)
    async with app.run_test(size=(80, 40)) as pilot:
        await wait_for(pilot, lambda: app.ready)
        await send(pilot, "a new question")
        await wait_for(pilot, lambda: not app.busy and len(app.agent.messages) == 2)
        await send(pilot, "/sessions")
        await wait_for(pilot, lambda: "Jan 05  2025" in screen_text(app))
        lines = [" ".join(line.split()) for line in screen_text(app).splitlines()]
        recorder = runtime.session_recorder
        assert recorder is not None
    marked = [i for i, line in enumerate(lines) if line == "(this conversation)"]
    assert len(marked) == 1, lines
    assert recorder.session_id in lines[marked[0] - 1]
