"""ACP: the editor is sent every text delta as it comes, so after ``session/cancel`` the
history (the model's next request, a loaded session) holds exactly the text the
editor was sent, and nothing streams to it after the cancel."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import anyio
import pytest
from acp.schema import AgentMessageChunk, TextContentBlock

from shell.acp.session import AcpSession
from shell.config import Settings
from shell.core.messages import AssistantMessage
from shell.providers.scripted import ScriptedModel
from shell.runtime import RuntimeOptions, ShellRuntime

pytestmark = pytest.mark.anyio


class Editor:
    """The editor's side: counts the text it was sent; cancels after ``cut`` chunks."""

    def __init__(self, cut: int) -> None:
        self.cut = cut
        self.chunks: list[str] = []
        self.after_cancel: list[str] = []
        self.session: AcpSession | None = None

    async def session_update(self, session_id: str, update: Any) -> None:
        if isinstance(update, AgentMessageChunk) and isinstance(update.content, TextContentBlock):
            if self.session is not None and self.session.cancel_requested:
                self.after_cancel.append(update.content.text)
            self.chunks.append(update.content.text)
            if len(self.chunks) == self.cut:
                assert self.session is not None
                self.session.cancel()  # what session/cancel does, as the chunk arrives


async def test_after_a_cancel_the_history_holds_what_the_editor_was_sent(tmp_path: Path) -> None:
    text = "".join(f"<{i}>" for i in range(2000))
    runtime = ShellRuntime.create(
        RuntimeOptions(cwd=str(tmp_path), record=False), settings=Settings(path=tmp_path / "none.toml"),
        model=ScriptedModel([text], delay=0, chunk_size=7),
    )
    editor = Editor(cut=40)
    session = editor.session = AcpSession("s1", runtime, editor, None, models=lambda: [])
    with anyio.fail_after(30):
        response = await session.prompt([TextContentBlock(type="text", text="go")])
    assert response.stop_reason == "cancelled"
    kept = runtime.agent.messages[-1]
    assert isinstance(kept, AssistantMessage) and kept.stop_reason == "cancelled"
    assert kept.text == "".join(editor.chunks) and len(editor.chunks) == 40
    assert editor.after_cancel == []
