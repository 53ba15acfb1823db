"""A session holds a cancelled reply as the front end showed it: the partial message
cut to what was drawn, marked cancelled, the same as the next request carries."""

from __future__ import annotations

import pytest

from shell.agent import Agent
from shell.core.events import TextBlockDelta
from shell.core.messages import AssistantMessage
from shell.providers.scripted import ScriptedModel
from shell.sessions import SessionRecorder, SessionStore, load_session
from shell.sessions.redact import NO_REDACTION
from tests.helpers import history_is_valid

pytestmark = pytest.mark.anyio


async def test_a_resumed_session_holds_what_was_shown(store: SessionStore) -> None:
    """The session is written from the history: the partial message as the front end
    showed it, marked cancelled, and the next reply's request carries the same."""
    text = "First line of the answer.\nSecond line, still streaming and never drawn."
    agent = Agent(ScriptedModel([text, "Next."], delay=0, chunk_size=5))
    rec = SessionRecorder(store, agent, redactor=NO_REDACTION)
    with rec:
        seen = ""
        async for event in rec.record(agent.reply("go")):
            if isinstance(event, TextBlockDelta):
                seen += event.delta
                if "still" in seen and not agent._reply.cancelled:  # type: ignore[union-attr]
                    # a screen that drew the first line and not the one streaming
                    agent.cancel(shown={event.block_id: len("First line of the answer.\n")}.copy)
        async for _ in rec.record(agent.reply("again")):
            pass
    sent = agent.model.requests[-1].messages  # type: ignore[attr-defined]
    loaded = load_session(rec.path)
    cut = [m for m in loaded.messages if isinstance(m, AssistantMessage) and m.stop_reason == "cancelled"]
    assert [m.text for m in cut] == ["First line of the answer.\n"]
    assert [m.text for m in sent if isinstance(m, AssistantMessage)] == ["First line of the answer.\n"]
    assert history_is_valid(loaded.messages)
