"""The session id and the command to come back, said on exit."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from shell.config import Settings
from shell.providers.scripted import ScriptedModel
from shell.runtime import RuntimeOptions, ShellRuntime


def runtime(ws: Path, turns: list[Any], **options: Any) -> ShellRuntime:
    opts = RuntimeOptions(cwd=str(ws), **options)
    return ShellRuntime.create(opts, settings=Settings(path=ws / "none.toml"), model=ScriptedModel(turns))



@pytest.mark.anyio
async def test_the_exit_hint(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AGENT_SHELL_DATA_DIR", str(tmp_path / "data"))
    rt = runtime(tmp_path, ["ok"])
    assert rt.resume_hint() == ""
    async for _ in rt.reply("hi"):
        pass
    assert rt.session_recorder is not None
    session = rt.session_recorder.session_id
    await rt.aclose()
    assert rt.resume_hint() == f"Session {session} saved. Resume it with: agent-shell --resume {session}"
    assert json.dumps(rt.resume_hint())
