"""The history agent-shell sends a real llama.cpp server (llama-cpp-python 0.3.36,
SmolLM2-135M-Instruct on 127.0.0.1) after several tool calls and two cancelled
replies, one mid-text and one mid-tool: the server must accept it on every later
turn (an earlier round's tool-call turns were refused: ``content: null``)."""

from __future__ import annotations

from typing import Any

import anyio
import pytest

from shell.agent import Agent
from shell.core.events import ErrorEvent, ReplyEnd, TextBlockDelta, ToolCallEnd, ToolExecutionStart
from shell.core.messages import AssistantMessage, ToolCallBlock, ToolResult
from shell.core.tools import Tool, ToolContext
from shell.providers.openai import OpenAIModel

from .llama import LlamaServer

pytestmark = pytest.mark.anyio


class Shelf(Tool):
    """What is on a shelf: a read-only tool whose answer the model can quote."""

    def __init__(self) -> None:
        super().__init__("shelf", "Lists the items on the shelf.",
                         {"type": "object", "properties": {"row": {"type": "string"}}}, read_only=True)

    async def run(self, args: dict[str, Any], context: ToolContext) -> ToolResult:
        return ToolResult("apples, pears, a lamp")


class Wait(Tool):
    """A tool that runs until the reply is cancelled."""

    def __init__(self) -> None:
        super().__init__("wait", "Waits for a long time.", {"type": "object", "properties": {}},
                         read_only=True)

    async def run(self, args: dict[str, Any], context: ToolContext) -> ToolResult:
        await anyio.sleep(3600)
        return ToolResult("never")


async def _turn(agent: Agent, llama: LlamaServer, text: str, *, force: str | None = None,
                cancel_on: type | None = None) -> tuple[ReplyEnd, list[str], list[str]]:
    """One reply (the provider option ``tool_choice`` forcing ``force`` first, as a
    user of a template without tools sets it); cancelled at the first ``cancel_on``
    event. Returns its end, the tools the model called and the errors."""
    options: dict[str, Any] = {"max_tokens": 40 if cancel_on is None else 1500, "temperature": 0.0}
    if force:
        options["tool_choice"] = force
    agent.model = OpenAIModel(llama.model_id(), base_url=llama.url, options=options)
    end: ReplyEnd | None = None
    ran: list[str] = []
    errors: list[str] = []
    with anyio.fail_after(180):
        async for event in agent.reply(text):
            if cancel_on is not None and isinstance(event, cancel_on):
                agent.cancel()
            if isinstance(event, ToolCallEnd) and cancel_on is None:
                ran.append(event.name)
            elif isinstance(event, ErrorEvent):
                errors.append(event.error)
            elif isinstance(event, ReplyEnd):
                end = event
    assert end is not None
    return end, ran, errors


async def test_tool_calls_and_cancelled_replies_in_the_history_are_accepted_turn_after_turn(
    llama: LlamaServer,
) -> None:
    agent = Agent(OpenAIModel(llama.model_id(), base_url=llama.url), tools=[Shelf(), Wait()],
                  system_prompt="You are a helpful assistant.")
    first, ran, errors = await _turn(agent, llama, "What is on the shelf?", force="shelf")
    assert errors == [] and ran == ["shelf"] and first.stop_reason in ("end_turn", "max_tokens")
    _, ran, errors = await _turn(agent, llama, "Look at the top row too.", force="shelf")
    assert errors == [] and ran == ["shelf"]

    mid_text, _, errors = await _turn(agent, llama, "Write a very long story about the sea.",
                                      cancel_on=TextBlockDelta)
    assert mid_text.stop_reason == "cancelled" and errors == []
    mid_tool, ran, errors = await _turn(agent, llama, "Wait for me.", force="wait",
                                        cancel_on=ToolExecutionStart)
    assert mid_tool.stop_reason == "cancelled" and errors == []
    calls = [b for m in agent.messages if isinstance(m, AssistantMessage) for b in m.content
             if isinstance(b, ToolCallBlock)]
    assert [c.name for c in calls] == ["shelf", "shelf", "wait"]  # the cancelled call stays, with a result

    after, ran, errors = await _turn(agent, llama, "What was on the shelf?", force="shelf")
    assert errors == [], errors  # the server took the whole history: no 4xx/5xx
    # a tool call was made (a 135M model may mistype its arguments: the shell says so)
    assert ran == ["shelf"] and after.stop_reason in ("end_turn", "max_tokens")
    last, _, errors = await _turn(agent, llama, "Thanks. Name one fruit.")
    assert errors == [] and last.stop_reason in ("end_turn", "max_tokens")
    assert last.message is not None and last.message.text.strip()
