"""Servers that misbehave, on a real HTTP server on 127.0.0.1: each ends in the exact
message a user sees, within bounds (time, memory), and never in a bare exception."""

from __future__ import annotations

import json
import socket
import threading
import time
from collections.abc import Iterator
from typing import Any

import anyio
import pytest

from shell.core.messages import AssistantMessage, ToolCallBlock, ToolResultMessage, Usage, UserMessage
from shell.core.model import ModelChunk, ModelError, ModelRequest, StopChunk, TextDelta, UsageChunk
from shell.providers.anthropic import AnthropicModel
from shell.providers.base import HTTPProvider
from shell.providers.ollama import OllamaModel
from shell.providers.openai import OpenAIModel
from shell.providers.retry_after import retry_after_seconds

from .server import Handler, ScriptedServer

pytestmark = pytest.mark.anyio

TEXT = b'data: {"choices":[{"index":0,"delta":{"content":"Hello"},"finish_reason":null}]}\n\n'
END = b'data: {"choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}\n\ndata: [DONE]\n\n'


@pytest.fixture
def server() -> Iterator[ScriptedServer]:
    with ScriptedServer() as s:
        yield s


def openai(server: ScriptedServer, scenario: str, **kw: Any) -> OpenAIModel:
    kw.setdefault("backoff", 0.01)
    return OpenAIModel("m", base_url=f"{server.url}/{scenario}/v1", **kw)


async def run(
    model: HTTPProvider, request: ModelRequest | None = None
) -> tuple[list[ModelChunk], ModelError | None]:
    chunks: list[ModelChunk] = []
    try:
        async for c in model.stream(request or ModelRequest(model=model, messages=(UserMessage("hi"),))):
            chunks.append(c)
    except ModelError as exc:
        return chunks, exc
    return chunks, None


def text(chunks: list[ModelChunk]) -> str:
    return "".join(c.text for c in chunks if isinstance(c, TextDelta))


# -- 200, then nothing ---------------------------------------------------------------


async def test_200_with_no_body_is_not_called_a_dropped_connection(server: ScriptedServer) -> None:
    """llama-cpp-python's answer to a prompt longer than its context: 200, then an empty stream."""

    def scenario(h: Handler, n: int) -> None:
        h.start_stream()
        h.end_stream()

    server.scenarios["empty"] = scenario
    chunks, err = await run(openai(server, "empty"))
    assert chunks == [] and err is not None
    assert err.message == (
        "OpenAI accepted the request (HTTP 200) but ended the stream without sending anything. It did "
        "not say why; servers do this when they cannot handle what was asked: a conversation longer "
        "than the model's context window, or a tool choice they cannot stream (llama-cpp-python's "
        'chatml-function-calling cannot stream tool_choice "auto"); the server\'s log says which. If '
        "the conversation is long: /compact or /clear, or raise the server's context size (llama.cpp: "
        "--n_ctx / -c)."
    )
    assert "dropped" not in err.message and not err.retryable
    # the server did not say the context overflowed: not called one (finding B7)
    assert not err.context_overflow


async def test_a_clean_reply_with_nothing_in_it_is_an_error(server: ScriptedServer) -> None:
    def scenario(h: Handler, n: int) -> None:
        h.start_stream()
        h.chunk(END)
        h.end_stream()

    server.scenarios["nothing"] = scenario
    chunks, err = await run(openai(server, "nothing"))
    assert not [c for c in chunks if isinstance(c, StopChunk)]
    assert err is not None and err.message.startswith("OpenAI ended its reply without any text or tool call.")


async def test_a_silent_end_after_tool_results_is_an_end_said_not_an_error(server: ScriptedServer) -> None:
    """Models end a turn with nothing after tool results (Anthropic documents it): the
    calls ran and are shown, so the reply ends with a notice, nothing empty is kept, and
    the next message goes out as a valid conversation."""
    from shell.agent import Agent
    from shell.core.events import ErrorEvent, Notice, ReplyEnd
    from shell.core.tools import tool

    call = (b'data: {"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"c1","type":"function",'
            b'"function":{"name":"ping","arguments":"{}"}}]},"finish_reason":null}]}\n\n'
            b'data: {"choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}\n\ndata: [DONE]\n\n')

    def scenario(h: Handler, n: int) -> None:
        h.start_stream()
        h.chunk([call, END, TEXT + END][min(n, 2)])
        h.end_stream()

    @tool
    def ping() -> str:
        """Answer pong."""
        return "pong"

    server.scenarios["quiet"] = scenario
    agent = Agent(openai(server, "quiet"), tools=[ping])
    events = [e async for e in agent.reply("ping it")]
    assert not [e for e in events if isinstance(e, ErrorEvent)]
    notices = [e.text for e in events if isinstance(e, Notice)]
    assert any("ended its turn without a word after the tool results" in n for n in notices), notices
    end = events[-1]
    assert isinstance(end, ReplyEnd) and end.stop_reason != "error"
    kept = [type(m).__name__ for m in agent.messages]
    assert kept == ["UserMessage", "AssistantMessage", "ToolResultMessage"]
    events = [e async for e in agent.reply("and?")]
    assert not [e for e in events if isinstance(e, ErrorEvent)]
    assert agent.messages[-1].text == "Hello"


async def test_usage_not_reported_is_unknown_not_zero(server: ScriptedServer) -> None:
    def scenario(h: Handler, n: int) -> None:
        h.start_stream()
        h.chunk(TEXT + END)
        h.end_stream()

    server.scenarios["nousage"] = scenario
    chunks, err = await run(openai(server, "nousage"))
    assert err is None
    assert [c.usage for c in chunks if isinstance(c, UsageChunk)] == [Usage(unknown=True)]


# -- errors: the key sentence, and no pointless retries --------------------------------

LLAMA_500 = (
    "7 validation errors:\n"
    "  {'type': 'literal_error', 'loc': ('body', 'messages', 1, 'ChatCompletionRequestSystemMessage', "
    "'role'), "
    "'msg': \"Input should be 'system'\", 'input': 'assistant', 'ctx': {'expected': \"'system'\"}}\n"
    "  {'type': 'literal_error', 'loc': ('body', 'messages', 1, 'ChatCompletionRequestUserMessage', 'role'), "
    "'msg': \"Input should be 'user'\", 'input': 'assistant', 'ctx': {'expected': \"'user'\"}}\n"
    "  {'type': 'string_type', 'loc': ('body', 'messages', 1, 'ChatCompletionRequestAssistantMessage', "
    "'content'), 'msg': 'Input should be a valid string', 'input': None}\n"
    "  {'type': 'literal_error', 'loc': ('body', 'messages', 1, 'ChatCompletionRequestToolMessage', 'role'), "
    "'msg': \"Input should be 'tool'\", 'input': 'assistant', 'ctx': {'expected': \"'tool'\"}}\n"
    "  {'type': 'missing', 'loc': ('body', 'messages', 1, 'ChatCompletionRequestToolMessage', "
    "'tool_call_id'), "
    "'msg': 'Field required', 'input': {'role': 'assistant', 'content': None}}\n"
    '\n  File "/venv/lib/python3.11/site-packages/llama_cpp/server/app.py", line 376\n'
)


async def test_validation_500_keeps_the_key_sentence_and_is_not_retried(server: ScriptedServer) -> None:
    """llama-cpp-python's 500 for ``"content": null``: its point is the 3rd of 7 errors."""
    server.scenarios["val"] = lambda h, n: h.reply(500, {"error": {"message": LLAMA_500}})
    notices: list[str] = []
    _, err = await run(openai(server, "val", on_notice=notices.append))
    assert err is not None and err.message == (
        "OpenAI could not handle the request (HTTP 500: invalid request: messages[1].content: Input should "
        "be a valid string (got None)). This is not a temporary fault, so it was not retried; the server's "
        "log may say more. If the request looks right, report it with this message."
    )
    assert server.counts["val"] == 1 and notices == [] and not err.retryable


async def test_context_overflow_says_what_to_do(server: ScriptedServer) -> None:
    said = {"error": {"message": "Requested tokens (13924) exceed context window of 2048"}}
    server.scenarios["ctx"] = lambda h, n: h.reply(400, said)
    _, err = await run(openai(server, "ctx"))
    assert err is not None and err.message == (
        "OpenAI says the conversation does not fit the model's context window (HTTP 400: Requested tokens "
        "(13924) exceed context window of 2048). /compact, /clear, turn on Summarization, or raise the "
        "server's context size."
    )
    assert err.context_overflow


async def test_a_long_error_keeps_its_problem_lines(server: ScriptedServer) -> None:
    noise = "\n".join(f"  at frame {i} of the server's own stack" for i in range(60))
    body = f"Upstream failure\n{noise}\nValueError: temperature must be between 0 and 2\n"
    server.scenarios["long"] = lambda h, n: h.reply(400, body.encode())
    _, err = await run(openai(server, "long"))
    assert err is not None
    assert "Upstream failure … ValueError: temperature must be between 0 and 2" in err.message
    assert len(err.message) < 700


async def test_error_body_is_read_only_up_to_its_cap(server: ScriptedServer) -> None:
    def scenario(h: Handler, n: int) -> None:
        h.send_response(400)
        h.send_header("Content-Type", "text/plain")
        h.send_header("Transfer-Encoding", "chunked")
        h.end_headers()
        try:
            for _ in range(10_000):  # up to 640 MB if read whole
                h.chunk(b"x" * 65536)
        except OSError:
            server.closed_at = time.monotonic()

    server.scenarios["huge"] = scenario
    start = time.monotonic()
    _, err = await run(openai(server, "huge", max_error_bytes=100_000))
    assert err is not None and err.message.startswith("OpenAI rejected the request (HTTP 400: xxxx")
    assert len(err.message) < 700 and time.monotonic() - start < 5


# -- what a 200 can hide ---------------------------------------------------------------


async def test_a_web_page_is_called_a_web_page(server: ScriptedServer) -> None:
    page = b"<!DOCTYPE html><html><head><title>Sign in - Corp Portal</title></head><body>...</body></html>"

    def scenario(h: Handler, n: int) -> None:
        h.send_response(200)
        h.send_header("Content-Type", "text/html; charset=utf-8")
        h.send_header("Content-Length", str(len(page)))
        h.end_headers()
        h.wfile.write(page)

    server.scenarios["portal"] = scenario
    _, err = await run(openai(server, "portal"))
    assert err is not None and err.message == (
        f"OpenAI at {server.url}/portal/v1 answered HTTP 200 with a web page "
        '("Sign in - Corp Portal"), not a '
        "stream of chat events. Check the base URL (OpenAI-compatible servers usually end in /v1) and that "
        "nothing (a proxy, a captive portal) stands in between."
    )


async def test_html_without_the_content_type_is_still_a_web_page(server: ScriptedServer) -> None:
    def scenario(h: Handler, n: int) -> None:
        h.start_stream("text/plain")
        h.chunk(b"<html><head><title>It works!</title></head></html>\n")
        h.end_stream()

    server.scenarios["apache"] = scenario
    _, err = await run(openai(server, "apache"))
    assert err is not None and err.message.startswith(
        f'OpenAI at {server.url}/apache/v1 answered with a web page ("It works!"), '
        "not a stream of chat events."
    )


async def test_keep_alives_forever_end_with_a_clear_error(server: ScriptedServer) -> None:
    def scenario(h: Handler, n: int) -> None:
        h.start_stream()
        try:
            for _ in range(400):
                h.chunk(b": keep-alive\n\n")
                time.sleep(0.02)
        except OSError:
            pass

    server.scenarios["ka"] = scenario
    start = time.monotonic()
    _, err = await run(openai(server, "ka", idle_timeout=0.3))
    assert err is not None and err.message == (
        "OpenAI kept the stream open for 0.3s with keep-alives only and sent no reply; stopped waiting (the "
        "text so far is kept). The server may be stuck or overloaded; try again, or raise idle_timeout in "
        "the config ([providers.openai])."
    )
    assert time.monotonic() - start < 3


async def test_anthropic_pings_forever_end_too(server: ScriptedServer) -> None:
    def scenario(h: Handler, n: int) -> None:
        h.start_stream()
        try:
            for _ in range(400):
                h.chunk(b'event: ping\ndata: {"type": "ping"}\n\n')
                time.sleep(0.02)
        except OSError:
            pass

    server.scenarios["ping"] = scenario
    _, err = await run(AnthropicModel("c", base_url=f"{server.url}/ping", idle_timeout=0.3))
    assert err is not None and "with keep-alives only" in err.message


async def test_a_line_without_end_is_bounded(server: ScriptedServer) -> None:
    def scenario(h: Handler, n: int) -> None:
        h.start_stream()
        try:
            h.chunk(TEXT)
            for _ in range(2000):
                h.chunk(b"data: " + b"a" * 65536)
        except OSError:
            pass

    server.scenarios["line"] = scenario
    chunks, err = await run(openai(server, "line", max_line_bytes=1024 * 1024))
    assert text(chunks) == "Hello"
    assert err is not None and err.message == (
        "OpenAI sent a line longer than 1 MiB without a line end; the reply was stopped there (the text so "
        f"far is kept). Is {server.url}/line/v1 a streaming chat API?"
    )


async def test_a_reply_larger_than_the_cap_is_stopped(server: ScriptedServer) -> None:
    def scenario(h: Handler, n: int) -> None:
        h.start_stream()
        try:
            for _ in range(20_000):
                h.chunk(TEXT * 100)
        except OSError:
            pass

    server.scenarios["big"] = scenario
    chunks, err = await run(openai(server, "big", max_reply_bytes=2 * 1024 * 1024))
    assert text(chunks).startswith("HelloHello")
    assert err is not None and err.message.startswith("OpenAI sent more than 2 MiB in one reply;")


async def test_json_nested_too_deep_is_named(server: ScriptedServer) -> None:
    deep = b"data: " + b'{"a":' * 100_000 + b"1" + b"}" * 100_000 + b"\n\n"

    def scenario(h: Handler, n: int) -> None:
        h.start_stream()
        h.chunk(TEXT + deep)
        h.end_stream()

    server.scenarios["deep"] = scenario
    chunks, err = await run(openai(server, "deep"))
    assert text(chunks) == "Hello"
    assert err is not None and err.message.startswith(
        "OpenAI sent a line that is nested too deep to read: '{"
    )


async def test_ollama_arguments_nested_deep_cost_that_call_not_the_reply(server: ScriptedServer) -> None:
    """Ollama puts a call's arguments in the line as an object, so a model that nests
    them 5,000 deep made the line unreadable and the whole reply was lost. The line
    is read without recursion; the call's arguments become the argument error the
    model is told about (``parse_args``), and the text around it is kept."""
    from shell.core.assembly import parse_args

    deep = '{"path":' + "[" * 5000 + '"x"' + "]" * 5000 + "}"
    call = '{"function":{"name":"read_file","arguments":' + deep + "}}"
    lines = [
        '{"message":{"role":"assistant","content":"Let me look."},"done":false}',
        '{"message":{"role":"assistant","content":"","tool_calls":[' + call + ']},"done":false}',
        '{"message":{"role":"assistant","content":""},"done":true,"done_reason":"stop","eval_count":3}',
    ]

    def scenario(h: Handler, n: int) -> None:
        h.start_stream("application/x-ndjson")
        for line in lines:
            h.chunk(line.encode() + b"\n")
        h.end_stream()

    server.scenarios["o"] = scenario
    chunks, err = await run(OllamaModel("m", base_url=f"{server.url}/o"))
    assert err is None
    assert text(chunks) == "Let me look."
    calls = [c for c in chunks if getattr(c, "name", None) == "read_file"]
    assert len(calls) == 1
    args, error = parse_args(calls[0].args_delta or "")  # type: ignore[attr-defined]
    assert args == {} and error is not None and "nested more than 64 levels deep" in error
    assert [c.reason for c in chunks if isinstance(c, StopChunk)] == ["tool_use"]


@pytest.mark.parametrize("value", ["nan", "NaN", "inf", "-5", "soon", "Mon, 99 Foo 2024 99:99:99 GMT"])
def test_garbage_retry_after_is_ignored(value: str) -> None:
    assert retry_after_seconds({"retry-after": value}) is None


async def test_retry_after_nan_backs_off_instead_of_hammering(server: ScriptedServer) -> None:
    times: list[float] = []

    def scenario(h: Handler, n: int) -> None:
        times.append(time.monotonic())
        h.reply(503, {"error": {"message": "busy"}}, {"Retry-After": "nan"})

    server.scenarios["nan"] = scenario
    _, err = await run(openai(server, "nan", backoff=0.2, max_retries=2))
    assert err is not None and len(times) == 3
    assert times[1] - times[0] >= 0.14  # our backoff (0.2 s, jittered), not "at once"


# -- the connection ----------------------------------------------------------------------


def _half_open_server() -> tuple[socket.socket, threading.Thread]:
    """Accepts connections and closes them at once, answering nothing."""
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen()

    def serve() -> None:
        while True:
            try:
                conn, _ = listener.accept()
            except OSError:
                return
            conn.recv(65536)
            conn.close()

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    return listener, thread


async def test_a_server_that_closes_without_answering_is_described() -> None:
    listener, _ = _half_open_server()
    port = listener.getsockname()[1]
    try:
        _, err = await run(OpenAIModel("m", base_url=f"http://127.0.0.1:{port}/v1", max_retries=0))
    finally:
        listener.close()
    assert err is not None
    # Closed or reset, depending on timing: either way it is said, and the hint fits.
    assert err.message.startswith(
        f"OpenAI at http://127.0.0.1:{port}/v1 did not answer: the server accepted the connection and "
    )
    assert err.message.endswith("Is that address really the OpenAI server, and is it healthy?")
    assert "()" not in err.message and "Could not connect" not in err.message


async def test_credentials_in_the_base_url_never_show(server: ScriptedServer) -> None:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    model = OpenAIModel("m", base_url=f"http://bob:hunter2@127.0.0.1:{port}/v1?api-key=sk-secret")
    _, err = await run(model)
    assert err is not None and "hunter2" not in err.message and "sk-secret" not in err.message
    assert f"http://bob:[REDACTED]@127.0.0.1:{port}/v1?api-key=[REDACTED]" in err.message
    assert "hunter2" not in repr(model)


# -- cancel under a flood ---------------------------------------------------------------


async def test_cancel_ends_a_flooding_stream_fast(server: ScriptedServer) -> None:
    """A provider that streams as fast as it can: reads find data buffered and never
    wait, so only a check between chunks lets a cancel through."""
    flood = TEXT * 2000

    def scenario(h: Handler, n: int) -> None:
        h.start_stream()
        try:
            while True:
                h.chunk(flood)
        except OSError:
            server.closed_at = time.monotonic()

    server.scenarios["flood"] = scenario
    model = openai(server, "flood")
    got = 0
    with anyio.CancelScope() as scope:
        async for _ in model.stream(ModelRequest(model=model)):
            got += 1
            if got == 5000:
                scope.cancel()
                cancelled = time.monotonic()
    ended = time.monotonic()
    assert got >= 5000 and ended - cancelled < 0.5


# -- request bodies that real servers accept ------------------------------------------------


async def test_tool_call_turn_is_sent_with_empty_string_content(server: ScriptedServer) -> None:
    """llama-cpp-python answers 500 to ``"content": null`` (and so would every later turn)."""
    bodies: list[dict[str, Any]] = []

    def scenario(h: Handler, n: int) -> None:
        bodies.append(json.loads(h.body))
        h.start_stream()
        h.chunk(TEXT + END)
        h.end_stream()

    server.scenarios["rt"] = scenario
    model = openai(server, "rt")
    history = (
        UserMessage("time?"),
        AssistantMessage((ToolCallBlock("c1", "get_time", {"city": "Paris"}),)),
        ToolResultMessage("c1", "get_time", "14:05"),
    )
    _, err = await run(model, ModelRequest(model=model, messages=history))
    assert err is None
    assert bodies[0]["messages"][1]["content"] == ""
    assert bodies[0]["messages"][1]["tool_calls"][0]["function"]["arguments"] == '{"city": "Paris"}'


# -- fields of the wrong shape: an error naming the server, the text so far kept -------------

MISSHAPEN = {
    "a tool name that is not text ({\"x\": 1})":
        {"tool_calls": [{"index": 0, "id": "c1", "function": {"name": {"x": 1}, "arguments": "{}"}}]},
    "a tool call id that is not text ({\"a\": 1})":
        {"tool_calls": [{"index": 0, "id": {"a": 1}, "function": {"name": "read_file", "arguments": "{}"}}]},
    "a tool call that is not an object (\"oops\")": {"tool_calls": ["oops"]},
    "message content that is not text ({\"x\": 1})": {"content": {"x": 1}},
}


@pytest.mark.parametrize("what", list(MISSHAPEN))
async def test_a_field_of_the_wrong_shape_is_the_servers_error(server: ScriptedServer, what: str) -> None:
    bad = {"choices": [{"index": 0, "delta": MISSHAPEN[what], "finish_reason": None}]}

    def scenario(h: Handler, n: int) -> None:
        h.start_stream()
        h.chunk(TEXT + b"data: " + json.dumps(bad).encode() + b"\n\n" + END)
        h.end_stream()

    server.scenarios["shape"] = scenario
    chunks, err = await run(openai(server, "shape"))
    assert text(chunks) == "Hello"  # kept
    assert err is not None and err.provider == "openai"
    assert err.message == (
        f"OpenAI sent {what}, which its API never does; the reply was stopped there (the text so far is "
        f"kept). Is {server.url}/shape/v1 really an OpenAI-compatible endpoint? Try again; if it keeps "
        "happening, the server (or the proxy before it) is broken."
    )


@pytest.mark.parametrize(
    ("event", "what"),
    [
        ({"choices": ["str"]}, 'a choice that is not an object ("str")'),
        ({"choices": [{"delta": {}, "finish_reason": {"x": 1}}]},
         'a finish reason that is not text ({"x": 1})'),
        ({"choices": {"a": 1}}, 'a list of choices that is not a list ({"a": 1})'),
    ],
)
async def test_choices_of_the_wrong_shape_are_the_servers_error(
    server: ScriptedServer, event: dict[str, Any], what: str
) -> None:
    def scenario(h: Handler, n: int) -> None:
        h.start_stream()
        h.chunk(TEXT + b"data: " + json.dumps(event).encode() + b"\n\n" + END)
        h.end_stream()

    server.scenarios["choice"] = scenario
    chunks, err = await run(openai(server, "choice"))
    assert text(chunks) == "Hello"
    assert err is not None and err.message.startswith(f"OpenAI sent {what}, which its API never does;")


@pytest.mark.parametrize(
    "usage",
    [b'{"prompt_tokens": "lots", "completion_tokens": 1}',
     b'{"prompt_tokens": NaN, "completion_tokens": Infinity}',
     b'{"prompt_tokens": 3, "completion_tokens": 1e308}',
     b'{"prompt_tokens": -4, "completion_tokens": 1}'],
)
async def test_usage_that_is_not_a_count_is_unknown_and_the_text_is_kept(
    server: ScriptedServer, usage: bytes
) -> None:
    def scenario(h: Handler, n: int) -> None:
        h.start_stream()
        h.chunk(b'data: {"choices":[{"delta":{"content":"hi"},"finish_reason":"stop"}],"usage":' + usage
                + b"}\n\ndata: [DONE]\n\n")
        h.end_stream()

    server.scenarios["usage"] = scenario
    chunks, err = await run(openai(server, "usage"))
    assert err is None and text(chunks) == "hi"
    assert [c.usage for c in chunks if isinstance(c, UsageChunk)] == [Usage(unknown=True)]


async def test_anthropic_fields_of_the_wrong_shape_are_the_servers_error(server: ScriptedServer) -> None:
    events = [
        {"type": "message_start", "message": {"usage": {"input_tokens": 3}}},
        {"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}},
        {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "Hello"}},
        {"type": "content_block_start", "index": 1, "content_block": {"type": "tool_use", "id": "t1",
                                                                     "name": {"x": 1}, "input": {}}},
    ]

    def scenario(h: Handler, n: int) -> None:
        h.start_stream()
        h.chunk(b"".join(b"data: " + json.dumps(e).encode() + b"\n\n" for e in events))
        h.end_stream()

    server.scenarios["anth"] = scenario
    chunks, err = await run(AnthropicModel("m", base_url=f"{server.url}/anth", api_key="k"))
    assert text(chunks) == "Hello"
    assert err is not None and err.message.startswith(
        'Anthropic sent a tool name that is not text ({"x": 1}), which its API never does;'
    )


async def test_anthropic_usage_that_is_not_a_count_is_unknown(server: ScriptedServer) -> None:
    events = [
        {"type": "message_start", "message": {"usage": {"input_tokens": "lots", "service_tier": "standard"}}},
        {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "Hello"}},
        {"type": "message_delta", "delta": {"stop_reason": "end_turn"}, "usage": {"output_tokens": 2}},
        {"type": "message_stop"},
    ]

    def scenario(h: Handler, n: int) -> None:
        h.start_stream()
        h.chunk(b"".join(b"data: " + json.dumps(e).encode() + b"\n\n" for e in events))
        h.end_stream()

    server.scenarios["anthu"] = scenario
    chunks, err = await run(AnthropicModel("m", base_url=f"{server.url}/anthu", api_key="k"))
    assert err is None and text(chunks) == "Hello"
    assert [c.usage for c in chunks if isinstance(c, UsageChunk)] == [Usage(unknown=True)]


async def test_ollama_fields_of_the_wrong_shape_are_the_servers_error(server: ScriptedServer) -> None:
    lines = [
        '{"message":{"role":"assistant","content":"Hello"},"done":false}',
        '{"message":{"role":"assistant","content":"","tool_calls":[{"function":{"name":7}}]},"done":false}',
    ]

    def scenario(h: Handler, n: int) -> None:
        h.start_stream("application/x-ndjson")
        h.chunk("".join(line + "\n" for line in lines).encode())
        h.end_stream()

    server.scenarios["oll"] = scenario
    chunks, err = await run(OllamaModel("m", base_url=f"{server.url}/oll"))
    assert text(chunks) == "Hello"
    assert err is not None and err.message.startswith("Ollama sent a tool name that is not text (7), which")
