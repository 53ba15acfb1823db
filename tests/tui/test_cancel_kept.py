"""What Esc keeps of text and thoughts the screen was still drawing: the history (the
model's next request, the saved session, a resumed view) holds what was drawn, as the
screen says, for a text block that had all arrived and for a thought alike."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from shell.agent import Agent
from shell.config import Settings
from shell.core.messages import AssistantMessage, TextBlock, ThinkingBlock
from shell.core.partial import CANCELLED_KEEP, cut_marker
from shell.providers.scripted import ScriptedModel
from shell.runtime import RuntimeOptions, ShellRuntime
from shell.sessions import load_session
from shell.tools.workspace import Workspace
from shell.tui.app import AgentShellApp
from shell.tui.entries import AssistantEntry, NoticeEntry, ThinkingEntry
from shell.tui.history import entries_from_messages
from shell.tui.mdsplit import cancel_note, thinking_cancel_note
from shell.tui.widgets.assistant_message import AssistantMessage as AnswerWidget
from shell.tui.widgets.thinking import ThinkingBlock as ThoughtWidget

from .helpers import SIZE, wait_for

pytestmark = pytest.mark.anyio


def recording_app(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, turn: Any, chunk_size: int, delay: float = 0
) -> AgentShellApp:
    monkeypatch.setenv("AGENT_SHELL_DATA_DIR", str(tmp_path / "data"))
    agent = Agent(ScriptedModel([turn], delay=delay, chunk_size=chunk_size))
    options = RuntimeOptions(record=True, cwd=str(tmp_path))
    runtime = ShellRuntime(agent, settings=Settings(), workspace=Workspace(tmp_path), options=options)
    return AgentShellApp(runtime=runtime)


def esc_when(app: AgentShellApp, ready: Any) -> Any:
    """A condition for ``wait_for`` that presses Esc (the main screen's action) the
    moment ``ready()`` holds, in the same step: a frame may not run in between."""
    def condition() -> bool:
        if app.busy and ready():
            app.main.action_cancel_reply()
            return True
        return False
    return condition


async def test_text_that_had_all_arrived_is_kept_as_far_as_it_was_drawn(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A reply sent as one piece has all arrived (its block ended) while the screen
    still draws it: Esc drops the rest from the screen, and the history kept all of
    it, as if the user had read it. Now it keeps what was drawn, marked cancelled."""
    text = "Start.\n\n" + "".join(f"Paragraph {i} says something.\n\n" for i in range(20_000))
    app = recording_app(tmp_path, monkeypatch, text, chunk_size=len(text))
    async with app.run_test(size=SIZE) as pilot:
        app.start_reply("go")

        def drawing_what_arrived() -> bool:  # the block has ended; its backlog is drawn
            renderer, widgets = app.renderer, app.query(AnswerWidget)
            if renderer is None or renderer.blocks or not widgets:
                return False
            widget = widgets.last()
            return widget.backlog > 10_000 and len(widget.text) - widget.backlog > 1000  # some drawn

        await wait_for(pilot, esc_when(app, drawing_what_arrived))
        await wait_for(pilot, lambda: not app.busy)
        widget = app.query(AnswerWidget).last()
        drawn = widget.received - widget.dropped
        assert widget.received == len(text) and 0 < drawn < len(text) // 2
        kept = app.runtime.agent.messages[-1]
        assert isinstance(kept, AssistantMessage) and kept.stop_reason == "cancelled"
        assert kept.text == text[:drawn]
        assert widget.text == kept.text + cancel_note(widget.dropped, drawn)  # the screen says the same
        recorder = app.runtime.session_recorder
        assert recorder is not None
    saved = load_session(recorder.path).messages[-1]
    assert isinstance(saved, AssistantMessage) and saved.text == text[:drawn]


async def test_a_thought_is_kept_as_far_as_it_was_drawn_and_says_it_was_cut(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Esc in a stream of thinking dropped the thought's undrawn part from the screen
    with no word, and the history kept all of it. Now the history, the session and a
    resumed view hold what was drawn, and the thought ends with a note."""
    thought = "".join(f"step {i} of the plan; " for i in range(20_000))
    turn = AssistantMessage((ThinkingBlock(thought), TextBlock("never shown")))
    app = recording_app(tmp_path, monkeypatch, turn, chunk_size=64, delay=0.005)
    async with app.run_test(size=SIZE) as pilot:
        app.start_reply("go")

        def undrawn_thought() -> bool:  # some of it drawn, more waiting for the next frame
            widgets = app.query(ThoughtWidget)
            return bool(widgets) and "step 5 " in widgets.last()._text and bool(widgets.last()._pending)

        await wait_for(pilot, esc_when(app, undrawn_thought))
        await wait_for(pilot, lambda: not app.busy)
        widget = app.query(ThoughtWidget).last()
        drawn = next(i for i, (a, b) in enumerate(zip(widget.text + "\0", thought, strict=False)) if a != b)
        assert 0 < drawn < CANCELLED_KEEP  # (a thought longer than that is capped, old or new)
        kept = app.runtime.agent.messages[-1]
        assert isinstance(kept, AssistantMessage) and kept.stop_reason == "cancelled"
        thinking = [b for b in kept.content if isinstance(b, ThinkingBlock)]
        assert [b.text for b in thinking] == [thought[:min(drawn, CANCELLED_KEEP)]]
        assert drawn == widget.received - widget.dropped and widget.dropped > 0
        assert widget.text == thought[:drawn] + thinking_cancel_note(widget.dropped, drawn)
        assert "cancelled" in str(widget.title)
        if drawn > CANCELLED_KEEP:  # a long thought: the history's marker says how much is left out
            assert kept.text == cut_marker(drawn - CANCELLED_KEEP).lstrip()
        recorder = app.runtime.session_recorder
        assert recorder is not None
    loaded = load_session(recorder.path)
    assert loaded.messages[-1] == kept
    entries = entries_from_messages(loaded.messages, loaded.outcomes)
    shown = [e.text for e in entries if isinstance(e, ThinkingEntry)]
    assert shown == [thought[:min(drawn, CANCELLED_KEEP)]]
    assert isinstance(entries[-1], NoticeEntry) and entries[-1].text == "Reply cancelled."
    assert "never shown" not in "".join(e.text for e in entries if isinstance(e, AssistantEntry))
