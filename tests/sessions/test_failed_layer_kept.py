"""A message whose reply an ``on_reply`` layer broke before the loop ran is given back,
not kept (finding E1): it was recorded and the model read it next turn, glued to the
user's next message after the error had advised switching the layer off. The error
carries it back (the front ends put it in the prompt); the session and the next request
hold only what was answered."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import pytest

from middleware import HookContext, Middleware, ReplyRequest
from shell.agent import Agent
from shell.core.events import ErrorEvent, Event
from shell.core.messages import UserMessage
from shell.providers.scripted import ScriptedModel
from shell.sessions import SessionRecorder, SessionStore, load_session
from shell.sessions.redact import NO_REDACTION

pytestmark = pytest.mark.anyio


class Boom(Middleware):
    async def on_reply(self, ctx: HookContext, request: ReplyRequest, next: Any) -> AsyncIterator[Event]:
        raise RuntimeError("boom")
        yield  # an async generator


async def test_the_message_a_failing_layer_never_passed_on_is_given_back(store: SessionStore) -> None:
    model = ScriptedModel(["Second answer."])
    agent = Agent(model, middleware=[Boom()])
    rec = SessionRecorder(store, agent, redactor=NO_REDACTION)
    with rec:
        failed = [e async for e in rec.record(agent.reply("my precious message"))]
        agent.middleware.set_enabled("Boom", False)
        async for _ in rec.record(agent.reply("again")):
            pass
    loaded = load_session(rec.path)
    users = [m.text for m in loaded.messages if isinstance(m, UserMessage)]
    assert users == ["again"]
    sent = [m.text for m in model.requests[-1].messages if isinstance(m, UserMessage)]
    assert sent == ["again"]
    [error] = [e for e in failed if isinstance(e, ErrorEvent)]
    assert [m.text for m in error.withdrawn] == ["my precious message"]  # type: ignore[attr-defined]
