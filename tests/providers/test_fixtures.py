"""The parsers on real recorded streams, served through httpx.MockTransport."""

from __future__ import annotations

import json

import pytest

from shell.core.messages import Usage
from shell.core.model import StopChunk, TextDelta, ToolCallDelta, UsageChunk
from shell.providers.anthropic import AnthropicModel
from shell.providers.openai import OpenAIModel

from .helpers import Assembled, collect, fixture_bytes, mock_client

pytestmark = pytest.mark.anyio


def openai(name: str, size: int = 37) -> OpenAIModel:
    return OpenAIModel("gpt-4o", api_key="k", client=mock_client(fixture_bytes(f"openai/{name}"), size=size))


def anthropic(name: str, size: int = 37) -> AnthropicModel:
    client = mock_client(fixture_bytes(f"anthropic/{name}"), size=size)
    return AnthropicModel("claude", api_key="k", client=client)


@pytest.mark.parametrize("size", [1, 7, 37, 100_000])
async def test_openai_parallel_tool_calls(size: int) -> None:
    chunks = await collect(openai("parallel_tool_calls.sse", size))
    got = Assembled(chunks)
    assert got.tool_calls() == [
        (
            "call_JMW1whyEaYG438VE1OIflxA2",
            "GetWeatherArgs",
            {"city": "Edinburgh", "country": "GB", "units": "c"},
        ),
        ("call_DNYTawLBoN8fj3KN6qU9N1Ou", "get_stock_price", {"ticker": "AAPL", "exchange": "NASDAQ"}),
    ]
    assert got.text == ""
    assert got.stop == "tool_use"
    assert got.usage == Usage(149, 60)
    # id and name only on the first delta of each call; indexes 0 and 1
    firsts = [c for c in chunks if isinstance(c, ToolCallDelta) and c.id]
    assert [(c.index, c.name) for c in firsts] == [(0, "GetWeatherArgs"), (1, "get_stock_price")]
    assert chunks[-2:] == [UsageChunk(Usage(149, 60)), StopChunk("tool_use")]


@pytest.mark.parametrize(
    ("name", "call_id", "fn", "args", "usage"),
    [
        (
            "tool_call_a.sse",
            "call_c91SqDXlYFuETYv8mUHzz6pp",
            "GetWeatherArgs",
            {"city": "Edinburgh", "country": "UK", "units": "c"},
            Usage(76, 24),
        ),
        (
            "tool_call_b.sse",
            "call_CTf1nWJLqSeRgDqaCG27xZ74",
            "get_weather",
            {"city": "San Francisco", "state": "CA"},
            Usage(48, 19),
        ),
        (
            "tool_call_c.sse",
            "call_4XzlGBLtUe9dy3GVNV4jhq7h",
            "get_weather",
            {"city": "New York City"},
            Usage(44, 16),
        ),
    ],
)
async def test_openai_single_tool_call(name: str, call_id: str, fn: str, args: dict, usage: Usage) -> None:
    got = Assembled(await collect(openai(name)))
    assert got.tool_calls() == [(call_id, fn, args)]
    assert got.stop == "tool_use"
    assert got.usage == usage


async def test_openai_finish_length() -> None:
    chunks = await collect(openai("finish_length.sse"))
    assert chunks == [TextDelta('{"'), UsageChunk(Usage(79, 1)), StopChunk("max_tokens")]


async def test_openai_refusal() -> None:
    got = Assembled(await collect(openai("refusal.sse")))
    assert got.text == "I'm sorry, I can't assist with that request."
    assert got.stop == "refusal"
    assert got.usage == Usage(79, 11)


async def test_anthropic_basic() -> None:
    chunks = await collect(anthropic("basic_response.sse"))
    assert chunks == [
        TextDelta("Hello"),
        TextDelta(" there"),
        TextDelta("!"),
        UsageChunk(Usage(11, 6)),
        StopChunk("end_turn"),
    ]


@pytest.mark.parametrize("size", [1, 13, 100_000])
async def test_anthropic_tool_use(size: int) -> None:
    got = Assembled(await collect(anthropic("tool_use_response.sse", size)))
    assert got.text == "I'll check the current weather in Paris for you."
    assert got.tool_calls() == [("toolu_01NRLabsLyVHZPKxbKvkfSMn", "get_weather", {"location": "Paris"})]
    assert got.stop == "tool_use"
    assert got.usage == Usage(377, 65, 0, 0)


async def test_anthropic_incomplete_partial_json() -> None:
    got = Assembled(await collect(anthropic("incomplete_partial_json_response.sse")))
    assert got.text.startswith("I'll create a comprehensive tax guide")
    assert got.text.endswith("Let me do that for you now.")
    assert got.stop == "max_tokens"
    call = got.calls[0]
    assert (call["id"], call["name"]) == ("toolu_01EKqbqmZrGRXy18eN7m9kvY", "make_file")
    assert call["args"].startswith('{"filename": "taxes.txt", "lines_of_text": [')
    assert call["args"].endswith('\n"Filing taxes')
    with pytest.raises(json.JSONDecodeError):
        json.loads(call["args"])
    assert got.usage == Usage(450, 124)


async def test_anthropic_refusal() -> None:
    chunks = await collect(anthropic("refusal_response.sse"))
    assert chunks == [UsageChunk(Usage(20, 0)), StopChunk("refusal")]
