"""ModelFallback: chain order, overridden requests, notices, last error, a fallback
after output withdraws the failed output, middleware errors pass through."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from middleware import HookContext, Middleware
from middleware.base import ModelNext
from middleware.model_call_limit import ModelCallLimit
from middleware.model_fallback import ModelFallback
from shell.agent import ModelError
from shell.agent.loop import Agent
from shell.core.events import AttemptWithdrawn, ErrorEvent, Event, Notice, ReplyEnd
from shell.core.model import ModelChunk, ModelRequest, TextDelta
from shell.providers.scripted import ScriptedModel

pytestmark = pytest.mark.anyio


async def run(agent: Agent, text: str = "go") -> list[Event]:
    return [e async for e in agent.reply(text)]


def end_of(events: list[Event]) -> ReplyEnd:
    assert isinstance(events[-1], ReplyEnd)
    return events[-1]


def failing(name: str, message: str) -> ScriptedModel:
    return ScriptedModel([ModelError(message, provider="test")], name=name)


async def test_falls_back_in_order_with_the_overridden_request() -> None:
    primary = failing("primary", "primary is down")
    first = failing("first", "first is down")
    second = ScriptedModel(["hello from second"], name="second")
    agent = Agent(primary, system_prompt="Be brief.", middleware=[ModelFallback(first, second)])
    events = await run(agent)
    end = end_of(events)
    assert end.stop_reason == "end_turn"
    assert end.message is not None and end.message.text == "hello from second"
    # Each model received the same request, with itself as the model.
    for model in (primary, first, second):
        assert len(model.requests) == 1
        request = model.requests[0]
        assert request.model is model
        assert request.system_prompt == "Be brief."
        assert request.messages == primary.requests[0].messages
    notices = [e for e in events if isinstance(e, Notice)]
    assert [n.source for n in notices] == ["ModelFallback", "ModelFallback"]
    assert "scripted:primary failed (primary is down)" in notices[0].text
    assert notices[0].text.endswith("falling back to scripted:first.")
    assert "first is down" in notices[1].text and notices[1].text.endswith("scripted:second.")
    assert notices[0].level == "warning"
    assert not any(isinstance(e, ErrorEvent) for e in events)


async def test_primary_success_never_touches_fallbacks() -> None:
    primary = ScriptedModel(["fine"])
    fallback = ScriptedModel(["unused"])
    agent = Agent(primary, middleware=[ModelFallback(fallback)])
    events = await run(agent)
    assert fallback.requests == []
    assert not any(isinstance(e, Notice) for e in events)


async def test_all_fail_raises_the_last_error() -> None:
    primary = failing("primary", "primary is down")
    fallback = failing("backup", "backup is down too")
    agent = Agent(primary, middleware=[ModelFallback(fallback)])
    events = await run(agent)
    errors = [e for e in events if isinstance(e, ErrorEvent)]
    assert len(errors) == 1
    assert errors[0].error.startswith("backup is down too") and errors[0].source == "model"
    assert "taken back" in errors[0].error  # nothing answered the message (B2)
    assert end_of(events).stop_reason == "error"
    assert len([e for e in events if isinstance(e, Notice)]) == 1


class BreaksMidStream:
    """A model that streams some text, then fails."""

    name = "flaky"

    def __init__(self) -> None:
        self.requests: list[ModelRequest] = []

    async def stream(self, request: ModelRequest) -> AsyncIterator[ModelChunk]:
        self.requests.append(request)
        yield TextDelta("partial ")
        raise ModelError("connection reset")


async def test_a_model_that_fails_part_way_falls_back_and_its_text_is_withdrawn() -> None:
    primary = BreaksMidStream()
    fallback = ScriptedModel(["whole answer"])
    agent = Agent(primary, middleware=[ModelFallback(fallback)])
    events = await run(agent)
    assert len(fallback.requests) == 1
    withdrawn = [e for e in events if isinstance(e, AttemptWithdrawn)]
    assert len(withdrawn) == 1 and len(withdrawn[0].block_ids) == 1
    end = end_of(events)
    assert end.stop_reason == "end_turn" and end.message is not None
    assert end.message.text == "whole answer"  # not "partial whole answer"
    assert agent.messages[-1] == end.message
    assert not [e for e in events if isinstance(e, ErrorEvent)]


async def test_a_middleware_error_inside_is_not_a_model_failure() -> None:
    primary = ScriptedModel(["never"])
    fallback = ScriptedModel(["never either"])
    limit = ModelCallLimit(run_limit=0, exit_behavior="error")
    agent = Agent(primary, middleware=[ModelFallback(fallback), limit])
    events = await run(agent)
    assert primary.requests == [] and fallback.requests == []
    errors = [e for e in events if isinstance(e, ErrorEvent)]
    assert len(errors) == 1 and errors[0].source == "ModelCallLimit"


async def test_fallback_seen_by_inner_layers() -> None:
    seen: list[str] = []

    class Spy(Middleware):
        async def on_model_call(
            self, ctx: HookContext, request: ModelRequest, next: ModelNext
        ) -> AsyncIterator[ModelChunk]:
            seen.append(request.model.name)
            async for chunk in next(request):
                yield chunk

    primary = failing("primary", "down")
    fallback = ScriptedModel(["ok"], name="backup")
    agent = Agent(primary, middleware=[ModelFallback(fallback), Spy()])
    await run(agent)
    assert seen == ["primary", "backup"]


@pytest.mark.anyio
async def test_with_no_fallbacks_it_stands_aside() -> None:
    from shell.core.events import ErrorEvent

    fallback = ModelFallback()
    assert not fallback.is_active("on_model_call")
    agent = Agent(ScriptedModel([RuntimeError("down")]), middleware=[fallback])
    events = [e async for e in agent.reply("hi")]
    assert [e.source for e in events if isinstance(e, ErrorEvent)] == ["model"]
    assert agent.middleware.stats("ModelFallback").calls == 0
