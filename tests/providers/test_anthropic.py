"""Anthropic provider: message conversion, the cache_control marker, thinking, usage."""

from __future__ import annotations

import json
from typing import Any

import httpx
import pytest

from shell.core.messages import (
    AssistantMessage,
    HintBlock,
    SystemMessage,
    TextBlock,
    ThinkingBlock,
    ToolCallBlock,
    ToolResultMessage,
    Usage,
    UserMessage,
)
from shell.core.model import ModelRequest, ThinkingDelta
from shell.core.tools import tool
from shell.providers.anthropic import AnthropicModel

from .helpers import Assembled, collect, mock_client

pytestmark = pytest.mark.anyio


def sse(*events: dict[str, Any]) -> bytes:
    return b"".join(f"event: {e['type']}\ndata: {json.dumps(e)}\n\n".encode() for e in events)


STOP = ({"type": "message_delta", "delta": {"stop_reason": "end_turn"}}, {"type": "message_stop"})
SAID = (
    {"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": "ok"}},
    *STOP,
)


async def test_thinking_with_signature_and_cache_usage() -> None:
    data = sse(
        {
            "type": "message_start",
            "message": {
                "usage": {
                    "input_tokens": 10,
                    "cache_read_input_tokens": 900,
                    "cache_creation_input_tokens": 50,
                }
            },
        },
        {"type": "content_block_start", "index": 0, "content_block": {"type": "thinking", "thinking": ""}},
        {
            "type": "content_block_delta",
            "index": 0,
            "delta": {"type": "thinking_delta", "thinking": "Let me"},
        },
        {
            "type": "content_block_delta",
            "index": 0,
            "delta": {"type": "thinking_delta", "thinking": " think."},
        },
        {
            "type": "content_block_delta",
            "index": 0,
            "delta": {"type": "signature_delta", "signature": "SIG=="},
        },
        {"type": "content_block_stop", "index": 0},
        {"type": "content_block_start", "index": 1, "content_block": {"type": "text", "text": ""}},
        {"type": "content_block_delta", "index": 1, "delta": {"type": "text_delta", "text": "Done."}},
        {"type": "message_delta", "delta": {"stop_reason": "end_turn"}, "usage": {"output_tokens": 42}},
        {"type": "message_stop"},
    )
    chunks = await collect(AnthropicModel("c", client=mock_client(data)))
    assert [c for c in chunks if isinstance(c, ThinkingDelta)] == [
        ThinkingDelta("Let me"),
        ThinkingDelta(" think."),
        ThinkingDelta("", signature="SIG=="),
    ]
    got = Assembled(chunks)
    assert (got.text, got.thinking, got.signature, got.stop) == (
        "Done.",
        "Let me think.",
        "SIG==",
        "end_turn",
    )
    assert got.usage == Usage(10, 42, cache_read_tokens=900, cache_write_tokens=50)


async def test_request_body_conversion_and_cache_marker() -> None:
    @tool
    def read_file(path: str) -> str:
        """Read a file."""
        return path

    @tool
    def list_dir(path: str = ".") -> str:
        """List."""
        return path

    seen: list[httpx.Request] = []
    model = AnthropicModel(
        "claude-x", base_url="http://a/", api_key="sk-ant", client=mock_client(sse(*SAID), seen=seen)
    )
    calls = (ToolCallBlock("t1", "read_file", {"path": "a"}), ToolCallBlock("t2", "list_dir", {}))
    request = ModelRequest(
        model=model,
        system_prompt="You are helpful.",
        messages=(
            SystemMessage("Extra rule."),
            UserMessage("hi"),
            AssistantMessage(
                (ThinkingBlock("plan", signature="S1"), ThinkingBlock("unsigned"), TextBlock(""), *calls)
            ),
            ToolResultMessage("t1", "read_file", "content A"),
            ToolResultMessage("t2", "list_dir", "oops", is_error=True),
            UserMessage((TextBlock("next"), HintBlock("[hint]"))),
        ),
        tools=(read_file, list_dir),
        tool_choice="required",
        options={"cache_control": {"type": "ephemeral", "ttl": "1h"}, "max_tokens": 1000},
    )
    await collect(model, request)
    req = seen[0]
    assert str(req.url) == "http://a/v1/messages"
    assert req.headers["x-api-key"] == "sk-ant" and req.headers["anthropic-version"] == "2023-06-01"
    body = json.loads(req.content)
    mark = {"type": "ephemeral", "ttl": "1h"}
    assert body["system"] == [
        {"type": "text", "text": "You are helpful."},
        {"type": "text", "text": "Extra rule.", "cache_control": mark},
    ]
    assert body["max_tokens"] == 1000 and body["stream"] is True
    assert body["tool_choice"] == {"type": "any"}
    assert "cache_control" not in body["tools"][0] and body["tools"][1]["cache_control"] == mark
    assert body["tools"][0]["input_schema"]["required"] == ["path"]
    assert body["messages"] == [
        {"role": "user", "content": "hi"},
        {
            "role": "assistant",
            "content": [
                {"type": "thinking", "thinking": "plan", "signature": "S1"},
                {"type": "tool_use", "id": "t1", "name": "read_file", "input": {"path": "a"}},
                {"type": "tool_use", "id": "t2", "name": "list_dir", "input": {}},
            ],
        },
        {
            "role": "user",
            "content": [
                {
                    "type": "tool_result",
                    "tool_use_id": "t1",
                    "content": "content A",
                },
                {
                    "type": "tool_result",
                    "tool_use_id": "t2",
                    "content": "oops",
                    "is_error": True,
                },
                {"type": "text", "text": "next"},
                {"type": "text", "text": "[hint]", "cache_control": mark},
            ],
        },
    ]


async def test_no_cache_marker_without_the_option() -> None:
    seen: list[httpx.Request] = []
    model = AnthropicModel("c", client=mock_client(sse(*SAID), seen=seen))
    await collect(model, ModelRequest(model=model, system_prompt="s", messages=(UserMessage("x"),)))
    assert "cache_control" not in seen[0].content.decode()


async def test_redacted_thinking_is_kept_and_sent_back_in_its_place() -> None:
    """A ``redacted_thinking`` block comes back as a block of its own (no text to show)
    and goes back unchanged, before the call it came with (finding V2): the API
    refuses a turn after a tool call whose thinking is missing."""
    stream = sse(
        {"type": "content_block_start", "index": 0,
         "content_block": {"type": "thinking", "thinking": "first", "signature": ""}},
        {"type": "content_block_delta", "index": 0, "delta": {"type": "signature_delta", "signature": "S1"}},
        {"type": "content_block_start", "index": 1,
         "content_block": {"type": "redacted_thinking", "data": "ENC=="}},
        {"type": "content_block_start", "index": 2,
         "content_block": {"type": "tool_use", "id": "t1", "name": "list_dir", "input": {}}},
        {"type": "message_delta", "delta": {"stop_reason": "tool_use"}},
        {"type": "message_stop"},
    )
    model = AnthropicModel("claude-x", base_url="http://a/", api_key="k", client=mock_client(stream))
    chunks = await collect(model, ModelRequest(model=model, messages=(UserMessage("hi"),)))
    assert ThinkingDelta("", signature="ENC==", redacted=True) in chunks

    seen: list[httpx.Request] = []
    client = mock_client(sse(*SAID), seen=seen)
    model = AnthropicModel("claude-x", base_url="http://a/", api_key="k", client=client)
    turn = AssistantMessage((
        ThinkingBlock("", signature="ENC==", redacted=True),
        ThinkingBlock("first", signature="S1"),
        ToolCallBlock("t1", "list_dir", {}),
    ))
    messages = (UserMessage("hi"), turn, ToolResultMessage("t1", "list_dir", "a.py"))
    await collect(model, ModelRequest(model=model, messages=messages))
    assert json.loads(seen[0].content)["messages"][1]["content"] == [
        {"type": "redacted_thinking", "data": "ENC=="},
        {"type": "thinking", "thinking": "first", "signature": "S1"},
        {"type": "tool_use", "id": "t1", "name": "list_dir", "input": {}},
    ]


async def test_two_signed_thinking_blocks_stay_two_blocks() -> None:
    """Each block's signature signs that block: joined, the two thoughts went back as
    one with both signatures run together, which the API refuses."""
    from shell.agent.loop import Agent

    def thought(index: int, text: str, signature: str) -> tuple[dict[str, Any], ...]:
        return (
            {"type": "content_block_start", "index": index,
             "content_block": {"type": "thinking", "thinking": "", "signature": ""}},
            {"type": "content_block_delta", "index": index,
             "delta": {"type": "thinking_delta", "thinking": text}},
            {"type": "content_block_delta", "index": index,
             "delta": {"type": "signature_delta", "signature": signature}},
            {"type": "content_block_stop", "index": index},
        )

    said = {"type": "content_block_start", "index": 2, "content_block": {"type": "text", "text": "ok"}}
    stream = sse(*thought(0, "first", "S1"), *thought(1, "second", "S2"), said, *STOP)
    model = AnthropicModel("claude-x", base_url="http://a/", api_key="k", client=mock_client(stream))
    agent = Agent(model)
    [e async for e in agent.reply("hi")]
    answer = agent.messages[-1]
    assert isinstance(answer, AssistantMessage)
    assert [(b.text, b.signature) for b in answer.content if isinstance(b, ThinkingBlock)] == [
        ("first", "S1"), ("second", "S2")
    ]
