"""Esc while a reply runs is handled before anything queued behind it (F9).

Under a flooding model the event loop always has stream work waiting; Esc is a
priority binding of the main screen, so the app runs the cancel as soon as it reads
the key instead of handing it down to the prompt first. The ``@`` picker keeps its
Esc (it closes, the reply goes on); a second Esc cancels.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from shell.core.messages import AssistantMessage
from shell.tui.widgets.assistant_message import AssistantMessage as AssistantWidget
from shell.tui.widgets.mention_picker import MentionPicker
from shell.tui.widgets.notice_line import NoticeLine

from .helpers import SIZE, cancelled_under_way, flood_app, frame_drawn, runtime_app, wait_for, workspace

pytestmark = pytest.mark.anyio


@pytest.fixture
def ws(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    return workspace(tmp_path, monkeypatch, {"src/button.py": "class Button: ...\n"})


async def test_esc_during_a_reply_closes_the_open_picker_first_then_cancels(ws: Path) -> None:
    app, _ = runtime_app(ws, ["word " * 20_000], delay=0.01, chunk_size=64)  # a minute of slow streaming
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: app.ready)
        assert app.runtime.file_index.wait(10)
        app.start_reply("go")
        await wait_for(pilot, lambda: bool(app.query(AssistantWidget)))
        await pilot.press(*"see @but")
        picker = app.query_one(MentionPicker)
        await wait_for(pilot, lambda: picker.open)
        await pilot.press("escape")
        assert not picker.open and app.busy  # the picker's Esc: the reply goes on
        await pilot.press("escape")
        await wait_for(pilot, lambda: not app.busy)
        last = app.agent.messages[-1]
        assert isinstance(last, AssistantMessage) and last.stop_reason == "cancelled"
        assert app.prompt.text == "see @but"  # what was typed stays


async def test_the_cancel_notice_is_the_last_thing_drawn_and_the_partial_reply_is_kept() -> None:
    flood = "\n\n".join("word " * 40 for _ in range(20_000))  # 4 MB, streamed without pause
    app, agent = flood_app(flood)
    async with app.run_test(size=SIZE) as pilot:
        widget = await cancelled_under_way(app, pilot)
        shown = widget.text
        conversation = app.conversation
        # the reply ends (not busy) a step before the notice's mount completes, under load
        await wait_for(pilot, lambda: isinstance(conversation.children[-1], NoticeLine))
        assert "Reply cancelled." in str(conversation.children[-1].text)
        assert conversation.children[-2] is widget
        await frame_drawn(pilot)  # all asked of the screen drawn: nothing more of the reply came
        assert widget.text == shown and widget.backlog == 0
        last = agent.messages[-1]
        assert isinstance(last, AssistantMessage) and last.stop_reason == "cancelled"
        assert flood.startswith(last.text) and len(last.text) >= len(shown.split("*(")[0].rstrip())
