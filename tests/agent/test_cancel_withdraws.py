"""Esc before any answer takes the request back; a reply cut by a cancel is sent with
a note that says so (findings Y9). The front ends' side: tests/tui/test_cancel_withdraws_tui.py,
tests/plain/test_plain_cancel_withdraws.py, tests/acp/test_acp_cancel_withdraws.py;
the session's: tests/sessions/test_cancelled_kept.py."""

from __future__ import annotations

from collections.abc import AsyncIterator

import anyio
import pytest

from shell.agent import Agent
from shell.core.events import ReplyEnd, TextBlockDelta, ThinkingBlockDelta
from shell.core.messages import AssistantMessage, UserMessage
from shell.core.model import ModelChunk, ModelRequest, StopChunk, TextDelta, ThinkingDelta
from shell.core.partial import CUT_NOTES
from shell.providers.anthropic import to_anthropic_messages
from shell.providers.ollama import to_ollama_messages
from shell.providers.openai import to_openai_messages
from tests.helpers import history_is_valid

pytestmark = pytest.mark.anyio


class Slow:
    """Says nothing while ``hold`` (a model thinking long before its first word), then
    streams ``words``; records each request and says when one came (``asked``)."""

    name = "slow"

    def __init__(self, words: tuple[str, ...] = ("four",), *, thinking: str = "", hold: bool = True) -> None:
        self.words, self.thinking, self.hold = words, thinking, hold
        self.requests: list[ModelRequest] = []
        self.asked = anyio.Event()
        self.released = anyio.Event()

    async def stream(self, request: ModelRequest) -> AsyncIterator[ModelChunk]:
        self.requests.append(request)
        self.asked.set()
        if self.thinking:
            yield ThinkingDelta(self.thinking)
        if self.hold:
            await self.released.wait()
        for word in self.words:
            yield TextDelta(word)
        yield StopChunk("end_turn")


async def _cancel_at_model_call(agent: Agent, model: Slow, text: str) -> ReplyEnd:
    """Esc while the model has the request and has said nothing yet."""
    end = None
    model.asked = anyio.Event()

    async def esc() -> None:
        await model.asked.wait()
        agent.cancel()

    async with anyio.create_task_group() as tg:
        tg.start_soon(esc)
        async for event in agent.reply(text):
            if isinstance(event, ReplyEnd):
                end = event
    assert end is not None
    return end


async def test_esc_before_any_answer_takes_the_request_back() -> None:
    model = Slow()
    agent = Agent(model)
    end = await _cancel_at_model_call(agent, model, "delete the logs")
    assert end.stop_reason == "cancelled"
    assert [m.text for m in end.withdrawn if isinstance(m, UserMessage)] == ["delete the logs"]
    assert agent.messages == []  # not sent again with the next message
    model.released.set()
    async for _ in agent.reply("what time is it?"):
        pass
    sent = to_openai_messages(model.requests[-1])
    assert [m["content"] for m in sent if m["role"] == "user"] == ["what time is it?"]


async def test_a_second_cancel_before_an_answer_leaves_the_earlier_exchange_alone() -> None:
    model = Slow(hold=False)
    agent = Agent(model)
    async for _ in agent.reply("first"):
        pass
    model.hold = True
    await _cancel_at_model_call(agent, model, "second")
    assert [m.text for m in agent.messages] == ["first", "four"]
    assert history_is_valid(agent.messages)


async def test_a_thought_shown_before_the_cancel_is_an_answer_kept_with_its_note() -> None:
    """The model had begun (its thinking was on screen): the exchange stays, marked."""
    model = Slow(thinking="Let me think about the logs.")
    agent = Agent(model)
    end = None
    async for event in agent.reply("delete the logs"):
        if isinstance(event, ThinkingBlockDelta):
            agent.cancel()
        if isinstance(event, ReplyEnd):
            end = event
    assert end is not None and end.withdrawn == ()
    assert isinstance(agent.messages[0], UserMessage)
    kept = agent.messages[-1]
    assert isinstance(kept, AssistantMessage) and kept.stop_reason == "cancelled"


async def _cut_answer() -> tuple[Agent, Slow, str]:
    model = Slow(("one two ", "three four ", "five six"), hold=False)
    agent = Agent(model)
    seen = ""
    async for event in agent.reply("count"):
        if isinstance(event, TextBlockDelta):
            seen += event.delta
            if "three" in seen:
                agent.cancel()
    async for _ in agent.reply("go on"):
        pass
    return agent, model, seen


async def test_a_cut_answer_is_kept_as_shown_and_sent_with_a_note() -> None:
    agent, model, seen = await _cut_answer()
    cut = agent.messages[1]
    assert isinstance(cut, AssistantMessage) and cut.stop_reason == "cancelled"
    assert cut.text == seen == "one two three four "  # the history (and the session) keep what was shown
    note = CUT_NOTES["cancelled"]
    openai = [m for m in to_openai_messages(model.requests[-1]) if m["role"] == "assistant"]
    assert openai[0]["content"] == seen + "\n\n" + note
    ollama = [m for m in to_ollama_messages(model.requests[-1]) if m["role"] == "assistant"]
    assert ollama[0]["content"] == seen + "\n\n" + note
    _, anthropic = to_anthropic_messages(model.requests[-1])
    assert anthropic[1]["content"] == [{"type": "text", "text": seen},
                                       {"type": "text", "text": "\n\n" + note}]
    assert anthropic[2]["role"] == "user"  # the roles alternate: nothing merged


async def test_a_finished_answer_is_sent_without_a_note() -> None:
    model = Slow(("done",), hold=False)
    agent = Agent(model)
    for text in ("a", "b"):
        async for _ in agent.reply(text):
            pass
    sent = to_openai_messages(model.requests[-1])
    assert [m["content"] for m in sent if m["role"] == "assistant"] == ["done"]
