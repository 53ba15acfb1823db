"""The app on a whole ShellRuntime (as `agent-shell` runs it): welcome, sessions, resume."""

from __future__ import annotations

from pathlib import Path

import pytest

from shell.config import Settings
from shell.providers.scripted import ScriptedModel
from shell.runtime import RuntimeOptions, ShellRuntime
from shell.sessions import SessionStore, load_session
from shell.tui.app import AgentShellApp
from shell.tui.widgets.assistant_message import AssistantMessage as AssistantWidget

from .helpers import SIZE, send, wait_for

pytestmark = pytest.mark.anyio


def _runtime(tmp_path: Path, turns: list[str]) -> ShellRuntime:
    return ShellRuntime.create(
        RuntimeOptions(cwd=str(tmp_path)),
        settings=Settings(path=tmp_path / "none.toml"),
        model=ScriptedModel(turns),
    )


async def test_welcome_reply_recorded_and_resumed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AGENT_SHELL_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("AGENT_SHELL_CONFIG_DIR", str(tmp_path / "config"))
    runtime = _runtime(tmp_path, ["Saved for later."])
    app = AgentShellApp(runtime=runtime)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: len(app.query(AssistantWidget)) == 1)
        assert "agent-shell" in app.query_one(AssistantWidget).text  # the welcome
        await send(pilot, "remember this")
        await wait_for(pilot, lambda: not app.busy and len(app.query(AssistantWidget)) == 2)
        spent = (app.status.tokens_in, app.status.tokens_out)
        assert spent != (0, 0)
    [info] = SessionStore().list(str(tmp_path))
    loaded = load_session(info.path)
    assert [m.role for m in loaded.messages] == ["user", "assistant"]
    assert loaded.messages[-1].text == "Saved for later."  # type: ignore[union-attr]

    again = AgentShellApp(runtime=_runtime(tmp_path, ["ok"]))
    async with again.run_test(size=SIZE) as pilot:
        await send(pilot, f"/resume {info.id}")
        await wait_for(pilot, lambda: any(w.text == "Saved for later." for w in again.query(AssistantWidget)))
        assert [m.role for m in again.agent.messages] == ["user", "assistant"]
        assert (again.status.tokens_in, again.status.tokens_out) == spent  # the session's cost, resumed
