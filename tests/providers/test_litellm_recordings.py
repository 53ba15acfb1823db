"""LiteLLM 1.106 (its OpenAI front and its Anthropic ``/v1/messages`` front) in front of
llama-cpp-python 0.3.36 serving SmolLM2-135M-Instruct, replayed byte for byte.

The bodies in ``fixtures/litellm/`` were recorded through ``tests/realserver/tee.py``
by ``python -m tests.realserver.record_litellm`` (each ``.json`` holds the request
that was sent, the status and the content type; each ``.body`` the bytes LiteLLM
answered, gzip included). They are served here from a real HTTP server on
127.0.0.1, so the providers meet exactly what LiteLLM sent: installing LiteLLM's
proxy in CI (~120 packages, 740 MB) to regenerate the same bytes would add nothing.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from shell.agent import Agent
from shell.core.events import ErrorEvent, ReplyEnd, ToolCallStart, ToolExecutionEnd
from shell.core.messages import AssistantMessage, Usage, UserMessage
from shell.core.model import ModelError, ModelRequest
from shell.core.tools import tool
from shell.providers.anthropic import AnthropicModel
from shell.providers.openai import OpenAIModel
from tests.helpers import history_is_valid

from .helpers import Assembled
from .server import Handler, ScriptedServer

pytestmark = pytest.mark.anyio
RECORDED = Path(__file__).parent / "fixtures" / "litellm"


def recording(name: str) -> tuple[dict[str, Any], bytes]:
    return json.loads((RECORDED / f"{name}.json").read_text()), (RECORDED / f"{name}.body").read_bytes()


def replay(*names: str) -> Any:
    """A scenario answering the n-th request with the n-th recording, as LiteLLM did."""

    def scenario(h: Handler, n: int) -> None:
        meta, body = recording(names[min(n, len(names) - 1)])
        h.send_response(meta["status"])
        h.send_header("Content-Type", meta["content_type"])
        if meta.get("content_encoding"):
            h.send_header("Content-Encoding", meta["content_encoding"])
        h.send_header("Transfer-Encoding", "chunked")
        h.end_headers()
        for i in range(0, len(body), 97):  # in network-sized pieces, as it came
            h.chunk(body[i : i + 97])
        h.end_stream()

    return scenario


@pytest.fixture
def server() -> Iterator[ScriptedServer]:
    with ScriptedServer() as s:
        yield s


def anthropic(server: ScriptedServer, scenario: str) -> AnthropicModel:
    return AnthropicModel("smollm2", base_url=f"{server.url}/{scenario}", api_key="sk-local", backoff=0.01)


def openai(server: ScriptedServer, scenario: str) -> OpenAIModel:
    return OpenAIModel("smollm2", base_url=f"{server.url}/{scenario}/v1", api_key="sk-local", backoff=0.01)


async def ask(model: Any, text: str = "hi") -> Assembled:
    request = ModelRequest(model=model, messages=(UserMessage(text),))
    return Assembled([c async for c in model.stream(request)])


@tool
def write_note(title: str, text: str) -> str:
    """Save a short note for the user."""
    return f"saved {title!r}"


async def test_one_call_split_into_32_blocks_is_one_call(server: ScriptedServer) -> None:
    """Defect 4: LiteLLM opens a new ``tool_use`` block, same id, for every delta."""
    _, body = recording("anthropic_forced_tool")
    starts = [ln for ln in body.decode().splitlines() if '"type": "content_block_start"' in ln]
    assert len(starts) == 32 and len({json.loads(ln[6:])["content_block"]["id"] for ln in starts}) == 1

    server.scenarios["lite"] = replay("anthropic_forced_tool", "anthropic_text")
    agent = Agent(anthropic(server, "lite"), tools=[write_note], ask=None)
    events = [e async for e in agent.reply("Write a note titled Shopping.")]
    starts_seen = [e for e in events if isinstance(e, ToolCallStart)]
    ran = [e for e in events if isinstance(e, ToolExecutionEnd)]
    assert len(starts_seen) == 1 and len(ran) == 1
    call = next(m for m in agent.messages if isinstance(m, AssistantMessage) and m.tool_calls).tool_calls[0]
    assert call.args == {"title": "Milk, eggs, bread and apples.", "text": "Shopping."}
    end = events[-1]
    assert isinstance(end, ReplyEnd) and end.stop_reason == "end_turn"
    assert end.message is not None and end.message.text == "Hello, hello!"
    assert history_is_valid(agent.messages)


async def test_openai_front_forced_call_and_usage(server: ScriptedServer) -> None:
    server.scenarios["lite"] = replay("openai_forced_tool")
    got = await ask(openai(server, "lite"))
    assert [(c["name"], json.loads(c["args"])) for c in got.calls.values()] == [
        ("get_time", {"city": "Paris"})
    ]
    assert got.stop == "tool_use" and got.usage == Usage(14, 78)


async def test_text_through_both_fronts(server: ScriptedServer) -> None:
    server.scenarios["a"] = replay("anthropic_text")
    server.scenarios["o"] = replay("openai_text")
    a, o = await ask(anthropic(server, "a")), await ask(openai(server, "o"))
    assert a.text == o.text == "Hello, hello!"
    assert (a.usage, o.usage) == (Usage(13, 4), Usage(23, 4))


@pytest.mark.parametrize(
    ("front", "name"),
    [
        ("openai", "openai_tool_result_null_content"),
        ("openai", "openai_context_overflow"),
        ("anthropic", "anthropic_context_overflow"),
        ("anthropic", "anthropic_tool_result"),
    ],
)
async def test_empty_replies_are_errors_not_answers(server: ScriptedServer, front: str, name: str) -> None:
    """Defect 2: LiteLLM turns an upstream failure into a clean, empty end_turn."""
    server.scenarios["lite"] = replay(name)
    model = openai(server, "lite") if front == "openai" else anthropic(server, "lite")
    agent = Agent(model)
    events = [e async for e in agent.reply("hi")]
    errors = [e for e in events if isinstance(e, ErrorEvent)]
    label = "OpenAI" if front == "openai" else "Anthropic"
    assert len(errors) == 1 and errors[0].error.startswith(
        f"{label} ended its reply without any text or tool call."
    )
    end = events[-1]
    assert isinstance(end, ReplyEnd) and end.stop_reason == "error"
    # Nothing empty is saved to poison the next turn; the message it failed on (most often
    # one the context could not take) is given back rather than kept.
    assert agent.messages == [] and [m.text for m in errors[0].withdrawn] == ["hi"]


async def test_block_arrays_500_is_read_through_gzip_and_not_retried(server: ScriptedServer) -> None:
    """Defect 3 (what block arrays caused) and 7 (the reason kept, no retries)."""
    server.scenarios["lite"] = replay("anthropic_text_blocks")
    with pytest.raises(ModelError) as info:
        await ask(anthropic(server, "lite"))
    assert info.value.message == (
        "Anthropic could not handle the request (HTTP 500: invalid request: messages[0].content: "
        "Input should "
        "be a valid string). This is not a temporary fault, so it was not retried; the server's log may say "
        "more. If the request looks right, report it with this message."
    )
    assert server.counts["lite"] == 1


async def test_our_anthropic_request_has_the_form_that_worked(server: ScriptedServer) -> None:
    """The recording that worked sent strings; the one that failed sent block arrays."""
    worked, _ = recording("anthropic_text")
    failed, _ = recording("anthropic_text_blocks")
    assert isinstance(worked["request"]["system"], str) and isinstance(failed["request"]["system"], list)
    seen: list[dict[str, Any]] = []

    def capture(h: Handler, n: int) -> None:
        seen.append(json.loads(h.body))
        replay("anthropic_text")(h, n)

    server.scenarios["lite"] = capture
    model = anthropic(server, "lite")
    request = ModelRequest(
        model=model,
        system_prompt="You are a helpful assistant.",
        messages=(UserMessage("Say hello in five words."),),
    )
    _ = [c async for c in model.stream(request)]
    assert seen[0]["system"] == worked["request"]["system"]
    assert seen[0]["messages"] == worked["request"]["messages"]
