"""Faults against a real HTTP server on 127.0.0.1: the exact message a user sees."""

from __future__ import annotations

import json
import socket
import time
from collections.abc import Iterator
from typing import Any

import anyio
import pytest

from shell.core.model import ModelChunk, ModelError, ModelRequest, TextDelta
from shell.providers.anthropic import AnthropicModel
from shell.providers.base import HTTPProvider
from shell.providers.ollama import OllamaModel
from shell.providers.openai import OpenAIModel

from .server import Handler, ScriptedServer

pytestmark = pytest.mark.anyio

TEXT = b'data: {"choices":[{"index":0,"delta":{"content":"Hello"},"finish_reason":null}]}\n\n'
END = b'data: {"choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}\n\ndata: [DONE]\n\n'


def ok(h: Handler) -> None:
    h.start_stream()
    h.chunk(TEXT)
    h.chunk(END)
    h.end_stream()


@pytest.fixture
def server() -> Iterator[ScriptedServer]:
    with ScriptedServer() as s:
        yield s


def openai(server: ScriptedServer, scenario: str, **kw: Any) -> OpenAIModel:
    kw.setdefault("backoff", 0.01)
    return OpenAIModel("gpt-test", base_url=f"{server.url}/{scenario}/v1", api_key_env="OPENAI_API_KEY", **kw)


async def run(model: HTTPProvider) -> tuple[list[ModelChunk], ModelError | None]:
    chunks: list[ModelChunk] = []
    try:
        async for c in model.stream(ModelRequest(model=model)):
            chunks.append(c)
    except ModelError as exc:
        return chunks, exc
    return chunks, None


def text(chunks: list[ModelChunk]) -> str:
    return "".join(c.text for c in chunks if isinstance(c, TextDelta))


async def test_401_names_the_key_variable(server: ScriptedServer) -> None:
    server.scenarios["auth"] = lambda h, n: h.reply(401, {"error": {"message": "Incorrect API key provided"}})
    _, err = await run(openai(server, "auth", api_key="sk-bad"))
    assert err is not None
    assert err.message == (
        "OpenAI refused the request (HTTP 401: Incorrect API key provided). "
        "Check the API key in OPENAI_API_KEY."
    )
    assert (err.status, err.retryable, err.provider) == (401, False, "openai")


async def test_401_without_a_key_says_it_is_not_set(server: ScriptedServer) -> None:
    server.scenarios["auth"] = lambda h, n: h.reply(401, {"error": {"message": "Missing key"}})
    _, err = await run(openai(server, "auth"))
    assert err is not None and err.message.endswith("Check the API key in OPENAI_API_KEY (it is not set).")


async def test_404_names_model_and_url(server: ScriptedServer) -> None:
    server.scenarios["nf"] = lambda h, n: h.reply(404, {"error": {"message": "The model does not exist"}})
    _, err = await run(openai(server, "nf"))
    assert err is not None and err.message == (
        f"OpenAI answered 404 Not Found for model 'gpt-test' at {server.url}/nf/v1/chat/completions: "
        "The model does not exist. Check the model name (agent-shell models) and the base URL "
        "(OPENAI_BASE_URL)."
    )


async def test_400_shows_the_providers_message(server: ScriptedServer) -> None:
    server.scenarios["bad"] = lambda h, n: h.reply(400, {"error": {"message": "max_tokens is too large"}})
    _, err = await run(openai(server, "bad"))
    assert err is not None
    assert err.message == "OpenAI rejected the request (HTTP 400: max_tokens is too large)."
    assert server.counts["bad"] == 1


async def test_429_with_retry_after_then_200(server: ScriptedServer) -> None:
    def scenario(h: Handler, n: int) -> None:
        if n == 0:
            h.reply(429, {"error": {"message": "slow down"}}, {"Retry-After": "1"})
        else:
            ok(h)

    server.scenarios["rl"] = scenario
    notices: list[str] = []
    start = time.monotonic()
    chunks, err = await run(openai(server, "rl", on_notice=notices.append))
    assert err is None and text(chunks) == "Hello"
    assert notices == ["OpenAI: HTTP 429 (rate limited); retrying in 1.0s (attempt 1 of 3)"]
    assert time.monotonic() - start >= 1.0


async def test_notice_hook_from_request_options_wins(server: ScriptedServer) -> None:
    server.scenarios["rl"] = lambda h, n: h.reply(429, {}, {"retry-after-ms": "10"}) if n == 0 else ok(h)
    mine: list[str] = []
    theirs: list[str] = []
    model = openai(server, "rl", on_notice=theirs.append)
    chunks = [c async for c in model.stream(ModelRequest(model=model, options={"on_notice": mine.append}))]
    assert text(chunks) == "Hello"
    assert mine == ["OpenAI: HTTP 429 (rate limited); retrying in 0.0s (attempt 1 of 3)"] and theirs == []


async def test_500_twice_then_200(server: ScriptedServer) -> None:
    server.scenarios["flaky"] = lambda h, n: h.reply(500, {"error": {"message": "boom"}}) if n < 2 else ok(h)
    notices: list[str] = []
    chunks, err = await run(openai(server, "flaky", on_notice=notices.append))
    assert err is None and text(chunks) == "Hello"
    assert [n.split(";")[0] for n in notices] == ["OpenAI: HTTP 500 (server error)"] * 2
    assert notices[1].endswith("(attempt 2 of 3)")


async def test_500_forever_gives_up_after_three_retries(server: ScriptedServer) -> None:
    server.scenarios["down"] = lambda h, n: h.reply(503, {"error": {"message": "overloaded"}})
    notices: list[str] = []
    _, err = await run(openai(server, "down", on_notice=notices.append))
    assert err is not None
    assert err.message == "OpenAI had a server error (HTTP 503: overloaded) after 3 retries. Try again later."
    assert (err.status, err.retryable) == (503, True)
    assert len(notices) == 3 and server.counts["down"] == 4


async def test_retry_after_longer_than_the_cap_fails_at_once(server: ScriptedServer) -> None:
    quota = {"error": {"message": "quota"}}
    server.scenarios["rl"] = lambda h, n: h.reply(429, quota, {"Retry-After": "3600"})
    notices: list[str] = []
    _, err = await run(openai(server, "rl", on_notice=notices.append))
    assert err is not None and err.message == (
        "OpenAI is rate limiting (HTTP 429: quota) (it asks to wait 3600s). Wait a moment and try again."
    )
    assert notices == [] and server.counts["rl"] == 1


async def test_connection_dropped_mid_stream_keeps_the_text(server: ScriptedServer) -> None:
    def scenario(h: Handler, n: int) -> None:
        h.start_stream()
        h.chunk(TEXT)
        h.drop()

    server.scenarios["drop"] = scenario
    chunks, err = await run(openai(server, "drop"))
    assert text(chunks) == "Hello"
    assert err is not None and err.message == (
        "The connection to OpenAI dropped in the middle of the reply; the text so far is kept. Try again."
    )
    assert err.retryable


async def test_clean_end_without_finish_is_a_drop(server: ScriptedServer) -> None:
    def scenario(h: Handler, n: int) -> None:
        h.start_stream()
        h.chunk(TEXT)
        h.end_stream()

    server.scenarios["short"] = scenario
    chunks, err = await run(openai(server, "short"))
    assert text(chunks) == "Hello" and err is not None and "dropped in the middle" in err.message


async def test_stall_past_read_timeout(server: ScriptedServer) -> None:
    def scenario(h: Handler, n: int) -> None:
        h.start_stream()
        h.chunk(TEXT)
        time.sleep(1.5)

    server.scenarios["stall"] = scenario
    chunks, err = await run(openai(server, "stall", read_timeout=0.3))
    assert text(chunks) == "Hello"
    assert err is not None and err.message == (
        "OpenAI stopped sending for 0.3s in the middle of the reply (read timeout); the text so far is kept. "
        "Try again, or raise the read timeout in the config ([providers.openai] read_timeout)."
    )


async def test_stall_before_the_headers(server: ScriptedServer) -> None:
    server.scenarios["slow"] = lambda h, n: time.sleep(1.5)
    _, err = await run(openai(server, "slow", read_timeout=0.3))
    assert err is not None and err.message == (
        f"OpenAI at {server.url}/slow/v1 did not start answering within 0.3s (read timeout). "
        "Try again, or raise read_timeout in the config ([providers.openai])."
    )


async def test_garbage_line_names_the_provider(server: ScriptedServer) -> None:
    def scenario(h: Handler, n: int) -> None:
        h.start_stream()
        h.chunk(TEXT + b"data: {oops\n\n")
        h.end_stream()

    server.scenarios["junk"] = scenario
    chunks, err = await run(openai(server, "junk"))
    assert text(chunks) == "Hello"
    assert err is not None and err.message == (
        f"OpenAI sent a line that is not valid JSON: '{{oops'. "
        f"Is {server.url}/junk/v1 really an OpenAI-compatible endpoint?"
    )


async def test_nothing_listening() -> None:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    model = OllamaModel("llama3", base_url=f"http://127.0.0.1:{port}")
    _, err = await run(model)
    assert err is not None
    assert err.message.startswith(f"Could not connect to Ollama at http://127.0.0.1:{port} (")
    assert err.message.endswith(
        "Is Ollama running (`ollama serve`)? The address comes from OLLAMA_HOST or the config."
    )


async def test_ollama_missing_model(server: ScriptedServer) -> None:
    missing = {"error": 'model "qwen9" not found, try pulling it first'}
    server.scenarios["o"] = lambda h, n: h.reply(404, missing)
    _, err = await run(OllamaModel("qwen9", base_url=f"{server.url}/o"))
    assert err is not None and err.message == (
        "Ollama has no model 'qwen9' (model \"qwen9\" not found, try pulling it first). "
        "Pull it with `ollama pull qwen9` or pick an installed one (agent-shell models)."
    )


async def test_anthropic_error_event_mid_stream(server: ScriptedServer) -> None:
    def scenario(h: Handler, n: int) -> None:
        h.start_stream()
        start = {"type": "message_start", "message": {"usage": {"input_tokens": 3}}}
        delta = {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "Hi"}}
        err = {"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}
        for name, obj in (("message_start", start), ("content_block_delta", delta), ("error", err)):
            h.chunk(f"event: {name}\ndata: {json.dumps(obj)}\n\n".encode())
        h.end_stream()

    server.scenarios["a"] = scenario
    chunks, err = await run(AnthropicModel("claude", base_url=f"{server.url}/a"))
    assert text(chunks) == "Hi"
    assert err is not None and err.message == (
        "Anthropic reported an error in the middle of the reply (overloaded_error): Overloaded. "
        "The text so far is kept; try again."
    )
    assert (err.status, err.retryable) == (529, True)


async def test_cancelling_closes_the_http_stream_at_once(server: ScriptedServer) -> None:
    server.scenarios["long"] = lambda h, n: h.stream_forever(TEXT)
    model = openai(server, "long")
    got: list[ModelChunk] = []
    with anyio.move_on_after(30) as scope:  # cancelled from inside once text flows, not on a clock
        async for c in model.stream(ModelRequest(model=model)):
            got.append(c)
            if len(got) == 3:
                scope.cancel()
    cancelled = time.monotonic()
    assert len(got) == 3 and scope.cancelled_caught
    for _ in range(300):
        if server.closed_at is not None:
            break
        await anyio.sleep(0.01)
    # The server would go on for 10 s; "at once" is well before that even on a loaded machine.
    assert server.closed_at is not None and server.closed_at - cancelled < 3


async def test_closing_the_generator_closes_the_http_stream(server: ScriptedServer) -> None:
    from contextlib import aclosing

    server.scenarios["long"] = lambda h, n: h.stream_forever(TEXT)
    model = openai(server, "long")
    async with aclosing(model.stream(ModelRequest(model=model))) as stream:
        async for _ in stream:
            break
    closed = time.monotonic()
    for _ in range(100):
        if server.closed_at is not None:
            break
        await anyio.sleep(0.01)
    assert server.closed_at is not None and server.closed_at - closed < 0.5


@pytest.mark.parametrize("anyio_backend", ["trio"])
async def test_retry_and_drop_under_trio(server: ScriptedServer) -> None:
    server.scenarios["flaky"] = lambda h, n: h.reply(502, {}) if n == 0 else ok(h)
    notices: list[str] = []
    chunks, err = await run(openai(server, "flaky", on_notice=notices.append))
    assert err is None and text(chunks) == "Hello" and len(notices) == 1

    def scenario(h: Handler, n: int) -> None:
        h.start_stream()
        h.chunk(TEXT)
        h.drop()

    server.scenarios["drop"] = scenario
    chunks, err = await run(openai(server, "drop"))
    assert text(chunks) == "Hello" and err is not None and "dropped in the middle" in err.message


async def test_a_retry_inside_an_agent_reply_is_a_notice_event(server: ScriptedServer) -> None:
    from shell.agent import Agent
    from shell.core.events import Notice, ReplyEnd

    server.scenarios["rl"] = lambda h, n: h.reply(429, {}, {"retry-after-ms": "10"}) if n == 0 else ok(h)
    agent = Agent(openai(server, "rl"))
    events = [e async for e in agent.reply("hi")]
    notices = [e for e in events if isinstance(e, Notice)]
    assert [(n.level, n.text) for n in notices] == [
        ("warning", "OpenAI: HTTP 429 (rate limited); retrying in 0.0s (attempt 1 of 3)")
    ]
    end = events[-1]
    assert isinstance(end, ReplyEnd) and end.stop_reason == "end_turn" and agent.messages[-1].text == "Hello"  # type: ignore[union-attr]


@pytest.mark.parametrize("provider", ["openai", "anthropic"])
async def test_a_200_answer_that_is_not_an_event_stream_says_what_came(
    server: ScriptedServer, provider: str
) -> None:
    """A 200 whose body is broken JSON, not server-sent events (a proxy's or a broken
    server's answer), was reported as a dropped connection, "try again" (finding T7):
    it says what was received, sanitised, and is not retried."""

    def scenario(h: Handler, n: int) -> None:
        h.reply(200, b"{malformed json: <<<chaos>>> \x1b]0;title\x07")

    server.scenarios["bad"] = scenario
    model: HTTPProvider = (openai(server, "bad") if provider == "openai"
                           else AnthropicModel("claude", base_url=f"{server.url}/bad"))
    chunks, err = await run(model)
    assert not text(chunks) and err is not None and not err.retryable
    assert "dropped" not in err.message
    assert "(HTTP 200, 'application/json') with something that is not a stream of chat events" in err.message
    assert "{malformed json: <<<chaos>>>" in err.message and "\x1b" not in err.message


async def test_a_stream_cut_before_its_end_is_still_a_drop(server: ScriptedServer) -> None:
    def scenario(h: Handler, n: int) -> None:
        h.start_stream()
        h.chunk(b": keep-alive\n\n")
        h.end_stream()

    server.scenarios["cut"] = scenario
    _, err = await run(openai(server, "cut"))
    assert err is not None and "dropped in the middle" in err.message and err.retryable
