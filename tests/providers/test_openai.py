"""OpenAI-compatible provider: quirky servers, message conversion, request body."""

from __future__ import annotations

import json
from typing import Any

import httpx
import pytest

from shell.core.messages import (
    AssistantMessage,
    HintBlock,
    TextBlock,
    ThinkingBlock,
    ToolCallBlock,
    ToolResultMessage,
    UserMessage,
)
from shell.core.model import ModelError, ModelRequest, ThinkingDelta, ToolCallDelta
from shell.core.tools import tool
from shell.providers.openai import OpenAIModel

from .helpers import Assembled, collect, mock_client

pytestmark = pytest.mark.anyio


def sse(*objs: Any, done: bool = True) -> bytes:
    out = b"".join(b"data: " + json.dumps(o).encode() + b"\n\n" for o in objs)
    return out + (b"data: [DONE]\n\n" if done else b"")


def delta(d: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
    return {"choices": [{"index": 0, "delta": d, "finish_reason": finish}]}


def tc(index: int | None, id: str | None = None, name: str | None = None, args: str = "") -> dict[str, Any]:
    out: dict[str, Any] = {"function": {"arguments": args}}
    if index is not None:
        out["index"] = index
    if id:
        out["id"] = id
    if name:
        out["function"]["name"] = name
    return delta({"tool_calls": [out]})


async def test_server_repeating_id_and_name_in_every_delta() -> None:
    data = sse(
        tc(0, "a", "f", '{"x":'),
        tc(0, "a", "f", "1}"),
        tc(1, "b", "g", '{"y":'),
        tc(1, "b", "g", "2}"),
        delta({}, "tool_calls"),
    )
    chunks = await collect(OpenAIModel("m", client=mock_client(data)))
    got = Assembled(chunks)
    assert got.tool_calls() == [("a", "f", {"x": 1}), ("b", "g", {"y": 2})]
    assert [c.id for c in chunks if isinstance(c, ToolCallDelta)] == ["a", None, "b", None]


async def test_server_reusing_index_zero_for_different_ids() -> None:
    data = sse(
        tc(0, "a", "f", '{"x":1}'),
        tc(0, "b", "g", '{"y":'),
        tc(0, None, None, "2}"),
        delta({}, "stop"),
    )
    got = Assembled(await collect(OpenAIModel("m", client=mock_client(data))))
    assert got.tool_calls() == [("a", "f", {"x": 1}), ("b", "g", {"y": 2})]
    assert got.stop == "tool_use"  # "stop" with tool calls (local servers) is tool_use


async def test_missing_index_and_id_continue_the_last_call() -> None:
    data = sse(tc(None, None, "f", '{"x"'), tc(None, None, None, ": 3}"), delta({}, "tool_calls"))
    got = Assembled(await collect(OpenAIModel("m", client=mock_client(data))))
    assert got.tool_calls() == [("call_0", "f", {"x": 3})]


async def test_reasoning_fields_are_thinking() -> None:
    data = sse(
        delta({"reasoning_content": "hmm "}), delta({"reasoning": "ok"}), delta({"content": "Hi"}, "stop")
    )
    chunks = await collect(OpenAIModel("m", client=mock_client(data)))
    thinking = [c for c in chunks if isinstance(c, ThinkingDelta)]
    assert thinking == [ThinkingDelta("hmm "), ThinkingDelta("ok")]
    assert Assembled(chunks).text == "Hi"


@pytest.mark.parametrize(
    ("finish", "reason"),
    [("stop", "end_turn"), ("length", "max_tokens"), ("content_filter", "refusal"), ("refusal", "refusal")],
)
async def test_finish_reasons(finish: str, reason: str) -> None:
    data = sse(delta({"content": "x"}, finish))
    assert Assembled(await collect(OpenAIModel("m", client=mock_client(data)))).stop == reason


async def test_cached_tokens_are_cache_reads() -> None:
    usage = {"prompt_tokens": 100, "completion_tokens": 5, "prompt_tokens_details": {"cached_tokens": 60}}
    data = sse(delta({"content": "x"}, "stop"), {"choices": [], "usage": usage})
    got = Assembled(await collect(OpenAIModel("m", client=mock_client(data))))
    assert (got.usage.input_tokens, got.usage.cache_read_tokens, got.usage.output_tokens) == (40, 60, 5)


async def test_error_object_in_stream() -> None:
    error = {"error": {"message": "upstream overloaded", "code": 502}}
    data = sse(delta({"content": "par"}), error, done=False)
    model = OpenAIModel("m", client=mock_client(data))
    seen: list[Any] = []
    with pytest.raises(ModelError) as info:
        async for c in model.stream(ModelRequest(model=model)):
            seen.append(c)
    assert Assembled(seen).text == "par"
    assert info.value.message == "OpenAI reported an error in the middle of the reply: upstream overloaded"
    assert info.value.status == 502 and info.value.retryable


async def test_request_body_and_message_conversion() -> None:
    @tool
    def read_file(path: str) -> str:
        """Read a file."""
        return path

    seen: list[httpx.Request] = []
    client = mock_client(sse(delta({"content": "ok"}, "stop")), seen=seen)
    model = OpenAIModel("gpt-x", base_url="http://h/v1/", api_key="sk-1", client=client)
    request = ModelRequest(
        model=model,
        system_prompt="Be brief.",
        messages=(
            UserMessage((TextBlock("hi "), HintBlock("[budget: 3 rounds]"))),
            AssistantMessage(
                (ThinkingBlock("t"), TextBlock("Reading."), ToolCallBlock("c1", "read_file", {"path": "a"}))
            ),
            ToolResultMessage("c1", "read_file", "boom", is_error=True),
        ),
        tools=(read_file,),
        tool_choice="read_file",
        options={"max_tokens": 50, "temperature": 0.2, "extra_body": {"top_k": 3}},
    )
    await collect(model, request)
    req = seen[0]
    assert str(req.url) == "http://h/v1/chat/completions"
    assert req.headers["authorization"] == "Bearer sk-1"
    body = json.loads(req.content)
    assert body["stream"] is True and body["stream_options"] == {"include_usage": True}
    assert body["messages"] == [
        {"role": "system", "content": "Be brief."},
        {"role": "user", "content": "hi [budget: 3 rounds]"},
        {
            "role": "assistant",
            "content": "Reading.",
            "tool_calls": [
                {
                    "id": "c1",
                    "type": "function",
                    "function": {"name": "read_file", "arguments": '{"path": "a"}'},
                }
            ],
        },
        {"role": "tool", "tool_call_id": "c1", "content": "Error: boom"},
    ]
    assert body["tools"][0]["function"]["name"] == "read_file"
    assert body["tools"][0]["function"]["parameters"]["required"] == ["path"]
    assert body["tool_choice"] == {"type": "function", "function": {"name": "read_file"}}
    assert (body["max_tokens"], body["temperature"], body["top_k"]) == (50, 0.2, 3)
