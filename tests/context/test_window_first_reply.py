"""Summarization's fractions are sized by the model's real window from the first reply
(finding B12): the window was learnt by a background task that ``-p``'s first request
always beat, so a fraction trigger measured against a 128k guess, never summarised, and
the request overflowed a small local model."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import anyio
import pytest

from shell.config import ProviderSettings, Settings
from shell.core.events import Event, Notice
from shell.core.messages import AssistantMessage, TextBlock, UserMessage
from shell.runtime import RuntimeOptions, ShellRuntime
from tests.recording_server import Recorder, recording_server

pytestmark = pytest.mark.anyio


@pytest.fixture(autouse=True)
def isolated(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AGENT_SHELL_CONFIG_DIR", str(tmp_path / "config"))
    monkeypatch.setenv("AGENT_SHELL_DATA_DIR", str(tmp_path / "data"))


def summarising(server: Recorder, tmp_path: Path, models: dict[str, Any] | None = None) -> ShellRuntime:
    settings = Settings(providers={"openai": ProviderSettings(base_url=f"{server.base_url}/v1", api_key="k")},
                        extra={"models": models} if models else {})
    rt = ShellRuntime.create(
        RuntimeOptions(model="openai:test-model", cwd=str(tmp_path), record=False,
                       middleware_on=["Summarization"]),
        settings=settings,
    )
    summarization: Any = rt.agent.middleware.get("Summarization")
    summarization.keep = ("messages", 2)  # trigger: the default, 0.8 of the window
    for n in range(11):  # ~3,000 tokens: past 0.8 of 2,048, far below 0.8 of 128k
        rt.agent.messages += [UserMessage(f"Fact {n}: " + "lorem ipsum " * 80),
                              AssistantMessage((TextBlock(f"Noted fact {n}."),))]
    return rt


async def first_reply(rt: ShellRuntime) -> list[Event]:
    """As -p does it: start the runtime, send at once."""
    async with anyio.create_task_group() as tg:
        await rt.start(tg)
        events = [e async for e in rt.reply("One more fact please")]
        tg.cancel_scope.cancel()
    return events


async def test_the_servers_window_is_waited_for_before_the_first_reply(tmp_path: Path) -> None:
    with recording_server(Recorder(context_window=2048, model_id="/models/smol.gguf")) as server:
        rt = summarising(server, tmp_path)
        events = await first_reply(rt)
        chats = [p for p in server.paths if p.endswith("/chat/completions")]
        asked = server.paths.index("/props")
    assert asked < server.paths.index("/v1/chat/completions")
    assert len(chats) == 2  # the summary, then the reply
    assert any(isinstance(e, Notice) and e.text.startswith("Summarised") for e in events)
    assert len(rt.agent.messages) < 10


async def test_a_configured_window_applies_at_once(tmp_path: Path) -> None:
    with recording_server(Recorder()) as server:  # the server says no window
        rt = summarising(server, tmp_path, models={"test-model": {"context_window": 2048}})
        async with anyio.create_task_group() as tg:
            await rt.start(tg)
            assert getattr(rt.agent.model, "max_input_tokens", None) == 2048  # before any answer
            tg.cancel_scope.cancel()


async def test_a_guessed_window_is_said_once(tmp_path: Path) -> None:
    with recording_server(Recorder()) as server:  # no window anywhere
        rt = summarising(server, tmp_path)
        events = [*await first_reply(rt), *[e async for e in rt.reply("and another")]]
    guesses = [e for e in events if isinstance(e, Notice) and "guessed window of 128,000" in e.text]
    assert len(guesses) == 1 and guesses[0].level == "warning"
