"""What a cancelled reply keeps of the message it was streaming: the text handed out
before ``cancel()`` (as far as the front end says it showed it), never what came
after, at most ``CANCELLED_KEEP`` characters with a marker (the session's side:
tests/sessions/test_cancelled_kept.py)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import pytest

from shell.agent import Agent
from shell.core.events import ReplyEnd, TextBlockDelta, TextBlockStart
from shell.core.messages import AssistantMessage
from shell.core.model import ModelChunk, ModelRequest, StopChunk, TextDelta
from shell.core.partial import CANCELLED_KEEP, cut_marker
from tests.helpers import history_is_valid

pytestmark = pytest.mark.anyio


class Flood:
    """Sends ``parts`` deltas of ``size`` characters, numbered, as fast as it can."""

    name = "flood"

    def __init__(self, parts: int, size: int = 10) -> None:
        self.parts, self.size = parts, size

    async def stream(self, request: ModelRequest) -> AsyncIterator[ModelChunk]:
        for i in range(self.parts):
            yield TextDelta(f"<{i}>".ljust(self.size, "."))
        yield StopChunk("end_turn")


def last_answer(agent: Agent) -> AssistantMessage:
    message = agent.messages[-1]
    assert isinstance(message, AssistantMessage)
    return message


async def test_what_streams_after_the_cancel_is_neither_handed_out_nor_kept() -> None:
    agent = Agent(Flood(50))
    after: list[Any] = []
    seen = ""
    cancelled = False
    async for event in agent.reply("go"):
        if cancelled:
            after.append(event)
        if isinstance(event, TextBlockDelta):
            seen += event.delta
            if event.delta.startswith("<3>"):
                agent.cancel()
                cancelled = True
    assert not [e for e in after if isinstance(e, TextBlockDelta)]
    answer = last_answer(agent)
    assert answer.stop_reason == "cancelled" and answer.text == seen
    assert seen.startswith("<0>") and "<4>" not in seen


async def test_cancelled_at_a_block_start_the_block_keeps_nothing() -> None:
    agent = Agent(Flood(50))
    deltas = []
    async for event in agent.reply("go"):
        if isinstance(event, TextBlockStart):
            agent.cancel()
        if isinstance(event, TextBlockDelta):
            deltas.append(event.delta)
    assert deltas == []
    assert not any(isinstance(m, AssistantMessage) for m in agent.messages)
    assert history_is_valid(agent.messages)


async def test_the_history_keeps_what_the_front_end_says_it_showed() -> None:
    agent = Agent(Flood(50))
    async for event in agent.reply("go"):
        if isinstance(event, TextBlockDelta) and event.delta.startswith("<9>"):
            agent.cancel(shown={event.block_id: 25}.copy)  # a screen that drew 25 of 100 characters
    answer = last_answer(agent)
    assert answer.text == "<0>.......<1>.......<2>.."
    assert answer.stop_reason == "cancelled"


async def test_a_front_end_that_fails_to_count_loses_nothing() -> None:
    def broken() -> dict[str, int]:
        raise RuntimeError("miscounted")

    agent = Agent(Flood(50))
    async for event in agent.reply("go"):
        if isinstance(event, TextBlockDelta) and event.delta.startswith("<4>"):
            agent.cancel(shown=broken)
    assert last_answer(agent).text.endswith("<4>.......")


async def test_a_cancelled_flood_keeps_its_first_characters_and_says_so() -> None:
    agent = Agent(Flood(20_000))  # 200,000 characters
    ends = []
    async for event in agent.reply("go"):
        if isinstance(event, TextBlockDelta) and event.delta.startswith("<5000>"):
            agent.cancel()
        if isinstance(event, ReplyEnd):
            ends.append(event)
    text = last_answer(agent).text
    received = 5001 * 10
    kept = "".join(f"<{i}>".ljust(10, ".") for i in range(2000))
    assert text == kept + cut_marker(received - CANCELLED_KEEP)
    assert "30,010 more characters of this reply are not kept" in text
    assert ends[-1].message is not None and ends[-1].message.text == text


async def test_an_answer_under_the_limit_is_kept_whole() -> None:
    agent = Agent(Flood(1500))
    async for event in agent.reply("go"):
        if isinstance(event, TextBlockDelta) and event.delta.startswith("<1499>"):
            agent.cancel()
    assert last_answer(agent).text == "".join(f"<{i}>".ljust(10, ".") for i in range(1500))


async def test_a_message_that_had_all_arrived_keeps_what_was_shown_and_its_calls() -> None:
    """The TUI draws a reply sent in one piece frame by frame: its block has ended (the
    message is in the history, whole) while the screen shows its start. Esc then says
    how much was shown: the history keeps that, marked cancelled; its calls stay, with
    their cancelled results, so the next request is valid."""
    from shell.core.events import TextBlockEnd
    from shell.core.messages import TextBlock, ToolCallBlock, ToolResultMessage
    from shell.providers.scripted import ScriptedModel

    text = "First line.\n" * 500
    turn = AssistantMessage((TextBlock(text), ToolCallBlock("c1", "nowhere", {})))
    agent = Agent(ScriptedModel([turn], chunk_size=len(text)))
    async for event in agent.reply("go"):
        if isinstance(event, TextBlockEnd):  # the front end still draws it
            agent.cancel(lambda key=event.block_id: {key: 36})
    call, result = agent.messages[-2], agent.messages[-1]
    assert isinstance(call, AssistantMessage) and call.stop_reason == "cancelled"
    assert call.content == (TextBlock(text[:36]), ToolCallBlock("c1", "nowhere", {}))
    assert isinstance(result, ToolResultMessage) and result.call_id == "c1" and result.is_error
    assert history_is_valid(agent.messages)


async def test_a_message_shown_whole_is_kept_as_it_came() -> None:
    from shell.core.events import TextBlockEnd
    from shell.providers.scripted import ScriptedModel

    agent = Agent(ScriptedModel(["All of it."], chunk_size=100))
    async for event in agent.reply("go"):
        if isinstance(event, TextBlockEnd):
            agent.cancel(lambda key=event.block_id: {key: len("All of it.")})
    assert last_answer(agent).text == "All of it."
