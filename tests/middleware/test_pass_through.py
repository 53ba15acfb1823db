"""Layers that add nothing to the stream: a plain ``def`` returning ``next(request)``
(it may change the request) costs no step per item, and the ``on_reply`` rules hold
around it: every layer sees ``ReplyStart`` first and ``ReplyEnd`` last, a layer that
returns early ends the reply there, one that answers alone keeps its answer."""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator
from typing import Any

import pytest

from middleware import HookContext, Middleware, ReplyRequest
from shell.agent import Agent, AssistantMessage, UserMessage
from shell.core.events import Event, ReplyEnd, ReplyStart, TextBlockDelta
from shell.providers.scripted import ScriptedModel
from tests.helpers import Seen, collect, history_is_valid

pytestmark = pytest.mark.anyio


class Rewrite(Middleware):
    """Changes the input and hands on what ``next`` gave, as it is."""

    def on_reply(self, ctx: HookContext, request: ReplyRequest, next: Any) -> Any:
        return next(request.override(input=(UserMessage("rewritten"),)))


class StopAtFirstDelta(Middleware):
    async def on_reply(self, ctx: HookContext, request: Any, next: Any) -> AsyncIterator[Event]:
        async for event in next(request):
            yield event
            if isinstance(event, TextBlockDelta):
                return


async def test_a_plain_layer_changes_the_request_and_the_reply_streams_through() -> None:
    model = ScriptedModel(["fine"])
    seen = Seen()
    agent = Agent(model, middleware=[seen, Rewrite()])
    events = await collect(agent, "original")
    assert model.requests[0].messages[-1].text == "rewritten"
    assert isinstance(seen.events[0], ReplyStart) and isinstance(seen.events[-1], ReplyEnd)
    assert events[-1].stop_reason == "end_turn"  # type: ignore[union-attr]


async def test_a_layer_returning_early_inside_a_plain_layer_still_ends_the_reply_for_the_outer_ones(
    caplog: pytest.LogCaptureFixture,
) -> None:
    seen = Seen()
    agent = Agent(
        ScriptedModel(["one two three"], chunk_size=4), middleware=[seen, Rewrite(), StopAtFirstDelta()]
    )
    with caplog.at_level(logging.WARNING, logger="agent_shell.middleware"):
        events = await collect(agent)
    assert isinstance(seen.events[-1], ReplyEnd) and seen.events[-1].stop_reason == "stopped"
    assert events[-1].stop_reason == "stopped"  # type: ignore[union-attr]
    assert history_is_valid(agent.messages)
    assert not caplog.records  # ending the reply there is no failure to log


async def test_an_answer_given_alone_inside_a_plain_outer_layer_is_kept() -> None:
    class Cache(Middleware):
        async def on_reply(self, ctx: HookContext, request: Any, next: Any) -> str:
            return "cached"

    model = ScriptedModel(["never asked"])
    agent = Agent(model, middleware=[Rewrite(), Cache()])
    events = await collect(agent, "question")
    assert isinstance(events[-1], ReplyEnd)
    assert model.requests == []
    assert isinstance(agent.messages[-1], AssistantMessage) and agent.messages[-1].text == "cached"
