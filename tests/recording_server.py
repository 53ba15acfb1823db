"""A small provider on 127.0.0.1 that records every request and reports usage.

It speaks just enough of three wire formats for the tests that check what a
provider *receives* (the system prompt with the instruction files, images in
their formats) and what the shell does with the usage a provider *reports*
(the context meter, ``/context``):

* OpenAI ``POST /v1/chat/completions`` (SSE, ``stream_options.include_usage``),
  ``GET /v1/models`` (with ``context_length`` when given, as OpenRouter does);
* Anthropic ``POST /v1/messages`` (SSE with ``message_start`` usage);
* Ollama ``POST /api/chat`` (NDJSON with ``prompt_eval_count``);
* llama.cpp's ``GET /props`` (``default_generation_settings.n_ctx``) and Ollama's
  ``POST /api/show`` (``model_info``) when a window is set.

Usage is counted from the request's JSON by ``count`` (a function of the body):
by default with GPT-2's pre-tokenizer, each piece a token per five characters
(within about 15% of a real BPE vocabulary's count on prose, code and JSON, and
not the shell's formula), so a test that the shell's numbers add up measures
calibration, not a shared formula.
"""

from __future__ import annotations

import json
import math
import re
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

_PIECES = re.compile(r"""'s|'t|'re|'ve|'m|'ll|'d| ?[^\W\d_]+| ?\d+| ?[^\s\w]+|\s+(?!\S)|\s+""")


def word_pieces(text: str) -> int:
    """Tokens as a BPE tokenizer would roughly count them: GPT-2's pre-tokenizer
    pieces, a token per five characters of each."""
    return sum(math.ceil(len(piece.strip() or piece) / 5) for piece in _PIECES.findall(text))


def default_count(body: dict[str, Any]) -> int:
    """Tokens of the prompt: every string in the request (images as 85 tokens), plus
    four a message for the chat template."""
    total = 0

    def walk(value: Any) -> None:
        nonlocal total
        if isinstance(value, str):
            total += 85 if value.startswith("data:image/") else word_pieces(value)
        elif isinstance(value, dict):
            for k, v in value.items():
                if k in ("model", "stream", "stream_options", "max_tokens", "type"):
                    continue
                if (k == "data" and value.get("type") == "base64") or k == "images":
                    total += 85 * (len(v) if k == "images" else 1)
                    continue
                walk(v)
        elif isinstance(value, list):
            for v in value:
                walk(v)

    walk({k: body.get(k) for k in ("system", "messages", "tools")})
    return total + 4 * len(body.get("messages") or [])


@dataclass
class Recorder:
    """What the server saw, and what it answers."""

    reply: str = "ok"
    count: Callable[[dict[str, Any]], int] = default_count
    cached: int = 0
    """Of the prompt tokens, how many to report as read from the cache."""
    context_window: int | None = None
    model_id: str = "test-model"
    pricing: dict[str, str] | None = None
    """OpenRouter's per-token prices for ``/models`` (strings, as it sends them)."""
    requests: list[dict[str, Any]] = field(default_factory=list)
    paths: list[str] = field(default_factory=list)
    usages: list[int] = field(default_factory=list)
    """The prompt size reported for each chat request."""
    base_url: str = ""


class _Handler(BaseHTTPRequestHandler):
    recorder: Recorder

    def log_message(self, format: str, *args: Any) -> None:
        return

    def _json(self, value: Any, status: int = 200) -> None:
        data = json.dumps(value).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def _sse(self, events: list[tuple[str | None, Any]]) -> None:
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.end_headers()
        for name, data in events:
            payload = data if isinstance(data, str) else json.dumps(data)
            line = (f"event: {name}\n" if name else "") + f"data: {payload}\n\n"
            self.wfile.write(line.encode())
        self.wfile.flush()

    def do_GET(self) -> None:
        rec = self.recorder
        rec.paths.append(self.path)
        if self.path.endswith("/models"):
            item: dict[str, Any] = {"id": rec.model_id, "object": "model"}
            if rec.context_window:
                item["context_length"] = rec.context_window
            if rec.pricing:
                item["pricing"] = rec.pricing
            self._json({"object": "list", "data": [item]})
        elif self.path == "/props" and rec.context_window:
            self._json({"default_generation_settings": {"n_ctx": rec.context_window}})
        else:
            self._json({"error": "not found"}, 404)

    def do_POST(self) -> None:
        rec = self.recorder
        rec.paths.append(self.path)
        length = int(self.headers.get("Content-Length") or 0)
        body = json.loads(self.rfile.read(length) or b"{}")
        if self.path == "/api/show":
            if rec.context_window:
                self._json({"model_info": {"llama.context_length": rec.context_window}})
            else:
                self._json({"error": "not found"}, 404)
            return
        rec.requests.append(body)
        prompt = rec.count(body)
        rec.usages.append(prompt)
        if self.path.endswith("/chat/completions"):
            usage = {"prompt_tokens": prompt, "completion_tokens": 2, "total_tokens": prompt + 2,
                     "prompt_tokens_details": {"cached_tokens": rec.cached}}
            self._sse([
                (None, {"choices": [{"index": 0, "delta": {"role": "assistant", "content": rec.reply}}]}),
                (None, {"choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]}),
                (None, {"choices": [], "usage": usage}),
                (None, "[DONE]"),
            ])
        elif self.path == "/api/chat":  # Ollama: NDJSON lines
            said = {"role": "assistant", "content": rec.reply}
            lines = [
                {"model": rec.model_id, "message": said, "done": False},
                {"model": rec.model_id, "message": {"role": "assistant", "content": ""}, "done": True,
                 "done_reason": "stop", "prompt_eval_count": prompt, "eval_count": 2},
            ]
            self.send_response(200)
            self.send_header("Content-Type", "application/x-ndjson")
            self.end_headers()
            self.wfile.write(b"".join(json.dumps(line).encode() + b"\n" for line in lines))
        elif self.path.endswith("/messages"):
            start = {"type": "message_start", "message": {
                "id": "msg_1", "type": "message", "role": "assistant", "content": [], "model": rec.model_id,
                "usage": {"input_tokens": prompt - rec.cached, "output_tokens": 1,
                          "cache_read_input_tokens": rec.cached, "cache_creation_input_tokens": 0}}}
            self._sse([
                ("message_start", start),
                ("content_block_start", {"type": "content_block_start", "index": 0,
                                         "content_block": {"type": "text", "text": ""}}),
                ("content_block_delta", {"type": "content_block_delta", "index": 0,
                                         "delta": {"type": "text_delta", "text": rec.reply}}),
                ("content_block_stop", {"type": "content_block_stop", "index": 0}),
                ("message_delta", {"type": "message_delta", "delta": {"stop_reason": "end_turn"},
                                   "usage": {"output_tokens": 2}}),
                ("message_stop", {"type": "message_stop"}),
            ])
        else:
            self._json({"error": "not found"}, 404)


@contextmanager
def recording_server(recorder: Recorder | None = None) -> Iterator[Recorder]:
    """Serve on a free port of 127.0.0.1 until the block ends; ``recorder.base_url``
    is ``http://127.0.0.1:PORT``."""
    rec = recorder or Recorder()
    handler = type("Handler", (_Handler,), {"recorder": rec})
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    rec.base_url = f"http://127.0.0.1:{server.server_address[1]}"
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield rec
    finally:
        server.shutdown()
        server.server_close()
