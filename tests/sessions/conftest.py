"""Every session test writes under its own temporary data dir."""

from __future__ import annotations

from pathlib import Path

import pytest

from shell.sessions import SessionStore


@pytest.fixture
def store(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> SessionStore:
    monkeypatch.setenv("AGENT_SHELL_DATA_DIR", str(tmp_path / "data"))
    return SessionStore()
