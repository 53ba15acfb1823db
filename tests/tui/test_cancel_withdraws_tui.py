"""Esc before the model's first word takes the request back to the prompt (Y9): it is
not sent again glued to the next message; Esc mid-answer keeps the cut answer as shown,
sent with a note that it was interrupted (the engine's side: tests/agent/test_cancel_withdraws.py)."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Sequence

import pytest

from shell.agent import Agent
from shell.core.messages import AssistantMessage
from shell.core.model import ModelChunk, ModelRequest, StopChunk, TextDelta
from shell.core.partial import CUT_NOTES
from shell.providers.openai import to_openai_messages
from shell.tui.app import AgentShellApp
from shell.tui.entries import Entry, NoticeEntry
from shell.tui.history import entries_from_messages
from shell.tui.widgets.user_message import UserMessage

from .helpers import SIZE, notices, send, wait_for

pytestmark = pytest.mark.anyio


class SilentFirst:
    """Request number ``silent_at`` (the first by default) gets no word until it is
    cancelled; the others ``answer``."""

    name = "silent-first"

    def __init__(self, answer: str = "4", silent_at: int = 1) -> None:
        self.answer = answer
        self.silent_at = silent_at
        self.requests: list[ModelRequest] = []

    async def stream(self, request: ModelRequest) -> AsyncIterator[ModelChunk]:
        self.requests.append(request)
        if len(self.requests) == self.silent_at:
            await asyncio.Event().wait()
        yield TextDelta(self.answer)
        yield StopChunk("end_turn")


async def test_esc_before_the_first_word_gives_the_request_back_to_the_prompt() -> None:
    model = SilentFirst()
    app = AgentShellApp(Agent(model), model_label="silent")  # type: ignore[arg-type]
    async with app.run_test(size=SIZE) as pilot:
        await send(pilot, "write a haiku about the sea")
        await wait_for(pilot, lambda: app.busy and len(model.requests) == 1)
        await pilot.press("escape")
        await wait_for(pilot, lambda: not app.busy and "Your message is back in the prompt." in notices(app))
        assert app.prompt.text == "write a haiku about the sea"
        assert app.agent.messages == []
        app.prompt.text = ""
        await send(pilot, "What is 2+2?")
        await wait_for(pilot, lambda: not app.busy and len(model.requests) == 2)
    sent = to_openai_messages(model.requests[-1])
    assert [m["content"] for m in sent if m["role"] == "user"] == ["What is 2+2?"]


async def test_the_withdrawn_request_leaves_no_bubble_and_the_screen_reads_as_a_resumed_session() -> None:
    """The request went back to the prompt, out of the history and the session, but its
    bubble stayed on screen as if sent (and a resumed session then showed a different
    conversation): it goes with it."""
    model = SilentFirst(silent_at=2)
    app = AgentShellApp(Agent(model), model_label="silent")  # type: ignore[arg-type]
    async with app.run_test(size=SIZE) as pilot:
        await send(pilot, "What is 2+2?")
        await wait_for(pilot, lambda: not app.busy and len(model.requests) == 1)
        await send(pilot, "write a haiku about the sea")
        await wait_for(pilot, lambda: app.busy and len(model.requests) == 2)
        assert [w.text for w in app.query(UserMessage)] == ["What is 2+2?", "write a haiku about the sea"]
        await pilot.press("escape")
        await wait_for(pilot, lambda: not app.busy and "Your message is back in the prompt." in notices(app))
        assert app.prompt.text == "write a haiku about the sea"
        assert [w.text for w in app.query(UserMessage)] == ["What is 2+2?"]
        resumed = entries_from_messages(app.agent.messages)
        assert said(app.conversation.entries) == said(resumed) == [("UserEntry", "What is 2+2?"),
                                                                   ("AssistantEntry", "4")]


def said(entries: Sequence[Entry]) -> list[tuple[str, str]]:
    """The messages a conversation shows, in order (notices are what happened live)."""
    return [(type(e).__name__, getattr(e, "text", "")) for e in entries if not isinstance(e, NoticeEntry)]


class Counting:
    """Streams "one two three …" a word at a time, slowly enough to press Esc in."""

    name = "counting"

    def __init__(self) -> None:
        self.requests: list[ModelRequest] = []

    async def stream(self, request: ModelRequest) -> AsyncIterator[ModelChunk]:
        self.requests.append(request)
        if len(self.requests) > 1:
            yield TextDelta("ok")
        else:
            for word in ("one ", "two ", "three ", "four ", *["more "] * 500):
                yield TextDelta(word)
                await asyncio.sleep(0.02)
        yield StopChunk("end_turn")


async def test_esc_mid_answer_keeps_what_was_shown_and_the_model_reads_it_was_cut() -> None:
    model = Counting()
    app = AgentShellApp(Agent(model), model_label="counting")  # type: ignore[arg-type]
    async with app.run_test(size=SIZE) as pilot:
        await send(pilot, "count")
        await wait_for(pilot, lambda: "three" in "".join(
            getattr(w, "text", "") for w in app.query("AssistantMessage")))
        await pilot.press("escape")
        await wait_for(pilot, lambda: not app.busy)
        cut = app.agent.messages[-1]
        assert isinstance(cut, AssistantMessage) and cut.stop_reason == "cancelled"
        assert CUT_NOTES["cancelled"] not in cut.text  # the history keeps what was shown
        assert app.prompt.text == ""  # an answer had begun: nothing is given back
        await send(pilot, "go on")
        await wait_for(pilot, lambda: not app.busy and len(model.requests) == 2)
    sent = to_openai_messages(model.requests[-1])
    said = [m["content"] for m in sent if m["role"] == "assistant"]
    assert said == [cut.text + "\n\n" + CUT_NOTES["cancelled"]]
    assert [m["content"] for m in sent if m["role"] == "user"] == ["count", "go on"]


async def test_a_message_queued_before_the_esc_comes_back_after_the_request_it_followed() -> None:
    model = SilentFirst()
    app = AgentShellApp(Agent(model), model_label="silent")  # type: ignore[arg-type]
    async with app.run_test(size=SIZE) as pilot:
        await send(pilot, "first this")
        await wait_for(pilot, lambda: app.busy and len(model.requests) == 1)
        await send(pilot, "then that")  # Enter while the reply runs: queued (or steering)
        await wait_for(pilot, lambda: app.prompt.text == "")
        await pilot.press("escape")
        await wait_for(pilot, lambda: not app.busy and "Your message is back in the prompt." in notices(app))
        assert app.prompt.text == "first this\n\nthen that"
        assert app.agent.messages == []
