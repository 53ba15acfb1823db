"""A link in the rewind dialog's plan (a message's text can hold one) follows the one
policy of what a click opens: Textual's own Markdown opened any scheme unasked."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.widgets import Markdown

from shell.tui.app import AgentShellApp
from shell.tui.screens.rewind import RewindScreen

from .helpers import SIZE, send, wait_for
from .test_flow import runtime, write

pytestmark = pytest.mark.anyio


async def test_a_link_in_the_rewind_plan_asks_before_another_app_opens(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    ws = tmp_path / "ws"
    ws.mkdir()
    rt = runtime(ws, [write("a.txt", "one"), "First done."])
    app = AgentShellApp(runtime=rt)
    opened: list[str] = []
    monkeypatch.setattr("shell.tui.linkopen.open_in_browser", lambda url: opened.append(url))
    async with app.run_test(size=SIZE) as pilot:
        await send(pilot, "clone vscode://vscode.git/clone?url=x please")
        await wait_for(pilot, lambda: not app.busy and (ws / "a.txt").exists())
        await pilot.press("escape", "escape")
        await wait_for(pilot, lambda: isinstance(app.screen, RewindScreen))
        plan = app.screen.query_one("#plan", Markdown)
        plan.post_message(Markdown.LinkClicked(plan, "vscode://vscode.git/clone?url=x"))
        await wait_for(pilot, lambda: type(app.screen).__name__ == "OpenLinkScreen")
        await pilot.pause()
    assert opened == []
