"""The model stream's chunks are public where DESIGN.md puts them (``shell.core``,
re-exported by ``shell.agent``): a user's own ChatModel and an ``on_model_call`` layer
that answers alone (a cache hit) yield them from the same import as everything else."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from middleware import Middleware
from shell.agent import (
    Agent,
    ModelChunk,
    ModelRequest,
    StopChunk,
    TextDelta,
    ThinkingDelta,
    ToolCallDelta,
    Usage,
    UsageChunk,
    tool,
)
from shell.agent.events import ReplyEnd, ToolExecutionEnd

pytestmark = pytest.mark.anyio


@tool(read_only=True)
def shout(word: str) -> str:
    """Say a word loudly."""
    return word.upper()


class OwnModel:
    """A ChatModel written with nothing but the public names: one tool call, then text."""

    name = "own"

    async def stream(self, request: ModelRequest) -> AsyncIterator[ModelChunk]:
        if not any(m.role == "tool" for m in request.messages):
            yield ThinkingDelta("a word to shout")
            yield ToolCallDelta(index=0, id="c1", name="shout", args_delta='{"word": ')
            yield ToolCallDelta(index=0, id=None, name=None, args_delta='"hey"}')
            yield StopChunk("tool_use")
        else:
            yield TextDelta("done")
            yield UsageChunk(Usage(input_tokens=7, output_tokens=1))
            yield StopChunk("end_turn")


class Cached(Middleware):
    """An on_model_call that answers from its cache without asking the model."""

    async def on_model_call(self, ctx, request, next):  # type: ignore[no-untyped-def]
        yield TextDelta("from the cache")
        yield StopChunk("end_turn")


def test_the_chunks_are_the_core_ones() -> None:
    import shell.agent
    import shell.core
    from shell.core import model

    for name in ("TextDelta", "ThinkingDelta", "ToolCallDelta", "UsageChunk", "StopChunk", "ModelChunk"):
        assert getattr(shell.core, name) is getattr(model, name) is getattr(shell.agent, name)
        assert name in shell.core.__all__ and name in shell.agent.__all__


async def test_a_users_own_model_built_from_the_public_names() -> None:
    agent = Agent(OwnModel(), tools=[shout])
    events = [e async for e in agent.reply("shout hey")]
    ran = [e.result.content for e in events if isinstance(e, ToolExecutionEnd)]
    end = events[-1]
    assert ran == ["HEY"]
    assert isinstance(end, ReplyEnd) and end.message.text == "done" and end.stop_reason == "end_turn"
    assert end.usage.input_tokens == 7


async def test_a_layer_that_answers_alone_yields_public_chunks() -> None:
    agent = Agent(OwnModel(), tools=[shout], middleware=[Cached()])
    end = [e async for e in agent.reply("anything")][-1]
    assert isinstance(end, ReplyEnd) and end.message.text == "from the cache"
