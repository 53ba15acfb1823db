"""Tool arguments nested 1,000 deep from an OpenAI-compatible server (issue 14),
through the console script: once ``RecursionError: maximum recursion depth exceeded
while decoding a JSON array``, exit 1, the reply lost. Now the call is an argument
error the model is told about, the text before it is kept, and the reply goes on."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

from .conftest import RunCli

DEEP_ARGS = '{"path": ' + "[" * 1000 + "]" * 1000 + "}"
TOLD = ("The arguments were nested more than 64 levels deep, too deep to read, so the tool "
        "was not run; use flatter arguments. Call read_file again with a JSON object.")


def _event(delta: dict[str, Any], finish: str | None = None) -> bytes:
    chunk = {"id": "x", "object": "chat.completion.chunk", "model": "deep",
             "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}
    return b"data: " + json.dumps(chunk).encode() + b"\n\n"


class DeepServer(BaseHTTPRequestHandler):
    """First request: text, then a call whose arguments nest 1,000 deep; then an answer
    that repeats what the model was told."""

    protocol_version = "HTTP/1.1"

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers.get("content-length") or 0)))
        told = [m for m in body["messages"] if m.get("role") == "tool"]
        if not told:
            call = {"index": 0, "id": "call_1", "type": "function",
                    "function": {"name": "read_file", "arguments": ""}}
            out = _event({"role": "assistant", "content": "Let me look."}) + _event({"tool_calls": [call]})
            out += _event({"tool_calls": [{"index": 0, "function": {"arguments": DEEP_ARGS}}]})
            out += _event({}, "tool_calls")
        else:
            answer = f"I was told: {told[0]['content']}"
            out = _event({"role": "assistant", "content": answer}) + _event({}, "stop")
        out += b"data: [DONE]\n\n"
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Content-Length", str(len(out)))
        self.end_headers()
        self.wfile.write(out)


@pytest.fixture
def deep_server(cli_env: dict[str, str]) -> Iterator[None]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), DeepServer)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    cli_env.update(OPENAI_BASE_URL=f"http://127.0.0.1:{server.server_address[1]}/v1",
                   OPENAI_API_KEY="sk-test-0123456789abcdefghij")
    yield
    server.shutdown()
    server.server_close()


def test_deep_arguments_are_an_argument_error_the_model_reads(deep_server: None, run_cli: RunCli) -> None:
    r = run_cli("-p", "go", "--model", "openai:deep", "--approve", "always", "--output-format", "json")
    assert r.returncode == 0, r.stderr
    assert "RecursionError" not in r.stdout + r.stderr
    out = json.loads(r.stdout)
    assert out["stop_reason"] == "end_turn" and out["errors"] == []
    first, result = out["messages"][1], out["messages"][2]
    assert first["content"][0] == {"type": "TextBlock", "text": "Let me look."}  # the text before it, kept
    assert result["type"] == "ToolResultMessage" and result["is_error"] and result["content"] == TOLD
    assert out["answer"] == f"I was told: Error: {TOLD}"  # the model was told, and the reply went on


def test_the_user_sees_what_happened(deep_server: None, terminal: Any) -> None:
    t = terminal("-p", "go", "--model", "openai:deep", "--approve", "always", "--no-session", columns=300)
    t.expect("I was told")
    assert t.close() == 0
    assert "✗ read_file" in t.text and "nested more than 64 levels deep" in t.text
    assert "RecursionError" not in t.text


def test_arguments_sent_as_a_deep_object_are_read_the_same_way() -> None:
    """Some servers send the arguments as an object (OpenAI-compatible ones, Ollama,
    Anthropic's ``input``): turning it back into text must not recurse either."""
    from shell.core.assembly import parse_args
    from shell.providers.anthropic import input_json
    from shell.providers.openai import ToolCallAssembler

    deep: Any = "bottom"
    for _ in range(5000):
        deep = [deep]
    sent = {"index": 0, "id": "c1", "function": {"name": "f", "arguments": {"a": deep}}}
    delta = ToolCallAssembler().add(sent)
    assert delta is not None
    for text in (delta.args_delta, input_json({"a": deep})):
        args, error = parse_args(text or "")
        assert args == {} and error is not None and "nested more than 64 levels deep" in error
