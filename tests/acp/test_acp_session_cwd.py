"""Each ACP session's DynamicSystemPrompt says that session's cwd (finding B8): one agent
process serves sessions of several projects, and every one was told the directory the
editor started the agent in."""

from __future__ import annotations

from pathlib import Path

import pytest

from shell.acp.server import AcpServer
from shell.config import Settings
from shell.providers.scripted import ScriptedModel
from shell.runtime import RuntimeOptions

pytestmark = pytest.mark.anyio


async def test_two_sessions_in_one_process_each_say_their_own_directory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("AGENT_SHELL_CONFIG_DIR", str(tmp_path / "config"))
    monkeypatch.setenv("AGENT_SHELL_DATA_DIR", str(tmp_path / "data"))
    started, one, two = (tmp_path / n for n in ("started", "one", "two"))
    for folder in (started, one, two):
        folder.mkdir()
    monkeypatch.chdir(started)
    server = AcpServer(RuntimeOptions(record=False, middleware_on=["DynamicSystemPrompt"]),
                       Settings(path=tmp_path / "none.toml"))
    for folder in (one, two):
        runtime, _ = server._runtime(str(folder), [])
        model = runtime.agent.model = ScriptedModel(["ok"])
        [e async for e in runtime.reply("hi")]
        context = model.requests[0].system_prompt.split("## Current Context\n", 1)[1]
        assert f"Working directory: {folder.resolve()}" in context
        assert str(started) not in model.requests[0].system_prompt
