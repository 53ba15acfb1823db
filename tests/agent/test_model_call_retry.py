"""An ``on_model_call`` layer that retries (calls ``next`` again after the model's
stream failed) starts a new attempt: what the failed attempt streamed is withdrawn
from the message (``AttemptWithdrawn``), none of its tool calls runs, and a layer
that calls ``next`` again after a stream that ended well keeps both (continuing)."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from middleware import HookContext, Middleware
from middleware.base import ModelNext
from shell.agent import tool
from shell.agent.loop import Agent
from shell.core.events import (
    AttemptWithdrawn,
    Event,
    ModelCallEnd,
    ModelCallStart,
    ReplyEnd,
    ToolExecutionEnd,
    ToolExecutionStart,
)
from shell.core.messages import AssistantMessage, ToolCallBlock, ToolResultMessage
from shell.core.model import (
    ModelChunk,
    ModelRequest,
    StopChunk,
    TextDelta,
    ThinkingDelta,
    ToolCallDelta,
)

pytestmark = pytest.mark.anyio

RAN: list[str] = []


@tool
def deploy(target: str) -> str:
    """Deploy somewhere (the test counts the runs)."""
    RAN.append(target)
    return f"deployed {target}"


class Flaky:
    """Streams ``first`` then drops the connection; the next attempts stream ``later``
    (one list of chunks per call, the last repeated)."""

    name = "flaky"

    def __init__(self, first: list[ModelChunk], *later: list[ModelChunk]) -> None:
        self.first, self.later = first, list(later)
        self.calls = 0

    async def stream(self, request: ModelRequest) -> AsyncIterator[ModelChunk]:
        self.calls += 1
        if self.calls == 1:
            for chunk in self.first:
                yield chunk
            raise ConnectionError("dropped")
        for chunk in self.later[min(self.calls - 2, len(self.later) - 1)]:
            yield chunk


class Retry(Middleware):
    """The pattern docs/MIDDLEWARE.md gives: call ``next`` again."""

    async def on_model_call(
        self, ctx: HookContext, request: ModelRequest, next: ModelNext
    ) -> AsyncIterator[ModelChunk]:
        try:
            async for chunk in next(request):
                yield chunk
        except ConnectionError:
            async for chunk in next(request):
                yield chunk


class AwaitRetry(Middleware):
    """The same as a coroutine layer (its ``await`` streams the chunks out as they come)."""

    async def on_model_call(self, ctx: HookContext, request: ModelRequest, next: ModelNext) -> object:
        try:
            return await next(request)  # type: ignore[misc]
        except ConnectionError:
            return await next(request)  # type: ignore[misc]


async def run(agent: Agent, text: str = "go") -> list[Event]:
    RAN.clear()
    return [e async for e in agent.reply(text)]


def answer(events: list[Event]) -> AssistantMessage:
    end = events[-1]
    assert isinstance(end, ReplyEnd) and end.message is not None, end
    return end.message


@pytest.mark.parametrize("layer", [Retry, AwaitRetry])
async def test_the_failed_attempts_text_is_not_joined_to_the_retrys(layer: type[Middleware]) -> None:
    model = Flaky(
        [ThinkingDelta("hmm "), TextDelta("partial ")], [TextDelta("whole answer"), StopChunk("end_turn")]
    )
    agent = Agent(model, middleware=[layer()])
    events = await run(agent)
    message = answer(events)
    assert message.text == "whole answer" and len(message.content) == 1
    assert agent.messages[-1] == message
    withdrawn = [e for e in events if isinstance(e, AttemptWithdrawn)]
    assert len(withdrawn) == 1 and len(withdrawn[0].block_ids) == 2  # the thought and the text
    assert [type(e) for e in events if isinstance(e, (ModelCallStart, ModelCallEnd, AttemptWithdrawn))] == [
        ModelCallStart, AttemptWithdrawn, ModelCallStart, ModelCallEnd
    ]


async def test_a_tool_call_the_failed_attempt_streamed_does_not_run() -> None:
    first = [ToolCallDelta(0, "call_1", "deploy", '{"target": "prod"}')]
    retry = [ToolCallDelta(0, "call_1", "deploy", '{"target": "prod"}'), StopChunk("tool_use")]
    model = Flaky(first, retry, [TextDelta("done"), StopChunk("end_turn")])
    agent = Agent(model, tools=[deploy], middleware=[Retry()])
    events = await run(agent)
    assert RAN == ["prod"]  # once, not twice
    assert answer(events).text == "done"
    calls = [c for m in agent.messages if isinstance(m, AssistantMessage) for c in m.tool_calls]
    results = [m for m in agent.messages if isinstance(m, ToolResultMessage)]
    assert len(calls) == 1 and [r.call_id for r in results] == [calls[0].id]
    withdrawn = next(e for e in events if isinstance(e, AttemptWithdrawn))
    assert withdrawn.call_ids and calls[0].id not in withdrawn.call_ids
    ended = [e for e in events if isinstance(e, ToolExecutionEnd) and e.call_id in withdrawn.call_ids]
    assert len(ended) == 1 and ended[0].blocked  # a front end closes the withdrawn card
    started = [e.call_id for e in events if isinstance(e, ToolExecutionStart)]
    assert started == [calls[0].id]


async def test_a_half_streamed_call_leaves_no_argument_error_in_the_history() -> None:
    model = Flaky(
        [TextDelta("Writing. "), ToolCallDelta(0, "call_1", "deploy", '{"target": "pro')],
        [TextDelta("Sorry, all done."), StopChunk("end_turn")],
    )
    agent = Agent(model, tools=[deploy], middleware=[Retry()])
    events = await run(agent)
    assert RAN == []
    assert answer(events).text == "Sorry, all done."
    assert not any(isinstance(m, ToolResultMessage) for m in agent.messages)
    assert [m.text for m in agent.messages if isinstance(m, AssistantMessage)] == ["Sorry, all done."]


class FailsMidway(Middleware):
    """A layer inside the retry that raises part way through a good stream."""

    def __init__(self) -> None:
        self.failed = False

    async def on_model_call(
        self, ctx: HookContext, request: ModelRequest, next: ModelNext
    ) -> AsyncIterator[ModelChunk]:
        async for chunk in next(request):
            yield chunk
            if not self.failed:
                self.failed = True
                raise ConnectionError("a layer gave up")


async def test_a_layer_that_stopped_reading_part_way_is_a_failed_attempt_too() -> None:
    model = Flaky([], [TextDelta("one "), TextDelta("two"), StopChunk("end_turn")])
    model.calls = 1  # every call streams the good answer
    agent = Agent(model, middleware=[Retry(), FailsMidway()])
    events = await run(agent)
    assert answer(events).text == "one two"


class Continue(Middleware):
    """Calls ``next`` again after a stream that ended well (a reply cut at the token
    limit, continued): that is no retry, both are kept."""

    async def on_model_call(
        self, ctx: HookContext, request: ModelRequest, next: ModelNext
    ) -> AsyncIterator[ModelChunk]:
        async for chunk in next(request):
            if not isinstance(chunk, StopChunk):
                yield chunk
        async for chunk in next(request):
            yield chunk


async def test_calling_next_again_after_a_good_stream_keeps_both() -> None:
    model = Flaky([], [TextDelta("more")])
    model.calls = 1
    agent = Agent(model, middleware=[Continue()])
    events = await run(agent)
    assert answer(events).text == "moremore"
    assert not any(isinstance(e, AttemptWithdrawn) for e in events)


async def test_a_retry_that_fails_too_keeps_only_its_own_partial_text() -> None:
    class Down:
        name = "down"

        def __init__(self) -> None:
            self.calls = 0

        async def stream(self, request: ModelRequest) -> AsyncIterator[ModelChunk]:
            self.calls += 1
            yield TextDelta(f"try {self.calls} ")
            raise ConnectionError("dropped")

    agent = Agent(Down(), middleware=[Retry()])
    events = await run(agent)
    end = events[-1]
    assert isinstance(end, ReplyEnd) and end.stop_reason == "error"
    kept = [m for m in agent.messages if isinstance(m, AssistantMessage)]
    assert [m.text for m in kept] == ["try 2 "]
    assert not any(isinstance(b, ToolCallBlock) for m in kept for b in m.content)
