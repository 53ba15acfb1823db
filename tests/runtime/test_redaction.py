"""Errors and notices reach every front end with this environment's secrets redacted,
once, in the runtime (the line mode and headless redacted; the TUI and ACP did not)."""

from __future__ import annotations

from pathlib import Path

import pytest

from shell.config import Settings
from shell.core.events import ErrorEvent
from shell.core.model import ModelError
from shell.providers.scripted import ScriptedModel
from shell.runtime import RuntimeOptions, ShellRuntime

KEY = "sk-test-abcdefghijklmnopqrstuvwxyz0123"


@pytest.mark.anyio
async def test_an_error_quoting_a_key_is_redacted_before_any_front_end_sees_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("AGENT_SHELL_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    failing = ModelError(f"401 from https://api.example/v1?key={KEY}: bad key {KEY}", provider="openai")
    rt = ShellRuntime.create(
        RuntimeOptions(cwd=str(tmp_path), record=False),
        settings=Settings(path=tmp_path / "none.toml"),
        model=ScriptedModel([failing]),
    )
    errors = [e async for e in rt.reply("hi") if isinstance(e, ErrorEvent)]
    await rt.aclose()
    assert errors and all(KEY not in e.error for e in errors)
    assert "401 from https://api.example/v1?key=" in errors[0].error
