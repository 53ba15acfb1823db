"""ACP: the editor's Stop before the model's first word withdraws the request (Y9), as
Esc does in the TUI: the next prompt is sent alone, and the saved session (what
session/load replays) does not hold it."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import anyio
import pytest
from acp.schema import TextContentBlock

from shell.acp.session import AcpSession
from shell.config import Settings
from shell.core.messages import UserMessage
from shell.providers.openai import to_openai_messages
from shell.providers.scripted import ScriptedModel
from shell.runtime import RuntimeOptions, ShellRuntime
from shell.sessions import load_session

pytestmark = pytest.mark.anyio


class Editor:
    async def session_update(self, session_id: str, update: Any) -> None:
        pass


async def test_stop_before_the_first_word_withdraws_the_prompt(tmp_path: Path) -> None:
    model = ScriptedModel(["The sea...", "4"], delay=60, chunk_size=1000)
    runtime = ShellRuntime.create(
        RuntimeOptions(cwd=str(tmp_path), record=True), settings=Settings(path=tmp_path / "none.toml"),
        model=model,
    )
    session = AcpSession("s1", runtime, Editor(), None, models=lambda: [])
    responses: list[Any] = []

    async def prompt() -> None:
        responses.append(await session.prompt([TextContentBlock(type="text", text="write a haiku")]))

    with anyio.fail_after(30):
        async with anyio.create_task_group() as tg:
            tg.start_soon(prompt)
            while not model.requests:  # noqa: ASYNC110 (the model has the request, silent)
                await anyio.sleep(0.01)
            session.cancel()  # session/cancel: the editor's Stop
    assert responses[0].stop_reason == "cancelled"
    assert runtime.agent.messages == []
    model.delay = 0
    with anyio.fail_after(30):
        await session.prompt([TextContentBlock(type="text", text="What is 2+2?")])
    sent = to_openai_messages(model.requests[-1])
    assert [m["content"] for m in sent if m["role"] == "user"] == ["What is 2+2?"]
    recorder = runtime.session_recorder
    assert recorder is not None
    loaded = load_session(recorder.path)
    assert [m.text for m in loaded.messages if isinstance(m, UserMessage)] == ["What is 2+2?"]
