"""TUI tests keep their theme choice in a temporary file, never the user's config."""

from __future__ import annotations

from pathlib import Path

import pytest


@pytest.fixture(autouse=True)
def _isolated_prefs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AGENT_SHELL_TUI_PREFS", str(tmp_path / "tui.json"))
    monkeypatch.setenv("AGENT_SHELL_CONFIG_DIR", str(tmp_path / "config"))


@pytest.fixture(autouse=True)
def _no_typing_guard(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> None:
    """Pilot presses come at once; the typing guard (tested on its own, with the
    ``typing_guard`` marker) would swallow them."""
    if request.node.get_closest_marker("typing_guard") is None:
        from shell.tui.screens.approval import ApprovalScreen

        monkeypatch.setattr(ApprovalScreen, "GUARD_S", 0.0)
