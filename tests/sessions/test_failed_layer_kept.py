"""A message whose reply an ``on_reply`` layer broke before the loop ran is in the
session all the same: --continue / --resume show it, the model reads it next turn."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import pytest

from middleware import HookContext, Middleware, ReplyRequest
from shell.agent import Agent
from shell.core.events import Event
from shell.core.messages import UserMessage
from shell.providers.scripted import ScriptedModel
from shell.sessions import SessionRecorder, SessionStore, load_session
from shell.sessions.redact import NO_REDACTION

pytestmark = pytest.mark.anyio


class Boom(Middleware):
    async def on_reply(self, ctx: HookContext, request: ReplyRequest, next: Any) -> AsyncIterator[Event]:
        raise RuntimeError("boom")
        yield  # an async generator


async def test_the_message_a_failing_layer_never_passed_on_is_recorded(store: SessionStore) -> None:
    model = ScriptedModel(["Second answer."])
    agent = Agent(model, middleware=[Boom()])
    rec = SessionRecorder(store, agent, redactor=NO_REDACTION)
    with rec:
        async for _ in rec.record(agent.reply("my precious message")):
            pass
        agent.middleware.set_enabled("Boom", False)
        async for _ in rec.record(agent.reply("again")):
            pass
    loaded = load_session(rec.path)
    users = [m.text for m in loaded.messages if isinstance(m, UserMessage)]
    assert users == ["my precious message", "again"]
    sent = [m.text for m in model.requests[-1].messages if isinstance(m, UserMessage)]
    assert sent == ["my precious message", "again"]
