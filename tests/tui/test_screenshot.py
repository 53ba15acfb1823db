"""The palette's "Screenshot" works where there is no Downloads folder (a server, a
container): Textual's own said only "Failed to save screenshot"."""

from __future__ import annotations

from pathlib import Path

import pytest

from shell.tui.app import AgentShellApp

from .helpers import SIZE, make_agent, wait_for

pytestmark = pytest.mark.anyio


def _offered(app: AgentShellApp, words: str) -> bool:
    """The command palette is open with a command holding ``words`` highlighted."""
    from textual.command import CommandList, CommandPalette

    screen = app.screen
    if not isinstance(screen, CommandPalette):
        return False
    found = screen.query_one(CommandList)
    if found.highlighted is None:
        return False
    return words in str(found.get_option_at_index(found.highlighted).prompt).lower()


async def test_a_screenshot_without_a_downloads_folder_goes_to_the_data_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.delenv("XDG_DOWNLOAD_DIR", raising=False)
    monkeypatch.setenv("AGENT_SHELL_DATA_DIR", str(tmp_path / "data"))
    agent, _ = make_agent(["hi"])
    app = AgentShellApp(agent, model_label="scripted")
    async with app.run_test(size=SIZE) as pilot:
        # Through the palette, as a user does: it calls deliver_screenshot, not the action.
        await pilot.press("ctrl+p")
        await pilot.pause()
        await pilot.press(*"screenshot")
        await wait_for(pilot, lambda: _offered(app, "screenshot"))  # the palette's search has found it
        await pilot.press("enter")
        shots = tmp_path / "data" / "screenshots"
        await wait_for(pilot, lambda: any(shots.glob("*.svg")) and bool(app._notifications))
        saved = next(shots.glob("*.svg"))
        assert saved.read_text(encoding="utf-8").startswith("<svg")
        assert any(str(saved) in str(n.message) for n in app._notifications)
