"""A provider that streams as fast as it can: an OpenAI-compatible ``/v1/chat/completions``
on 127.0.0.1 that sends text deltas without pause until the client goes away.

For the cancel tests and ``benchmarks/cancel_latency.py``: however fast the model
streams, Esc / Ctrl+C must end the reply within 500 ms and nothing may be shown
after it. ``flood_server()`` runs it in a thread; ``python -m tests.flood`` runs
it in the foreground (prints the port).

Two shapes: ``paragraphs`` (short words in batches of 256 events, a blank line
every few batches, as a model writes prose) and ``line`` (what the tester's hostile
server sent, finding F9: one event of ~200 characters per write, never a newline,
so the reply is one line that never ends).
"""

from __future__ import annotations

import json
import socket
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

WORD = "flood "
BATCH = 256
"""Events per write: one write of ~40 KB, so the network is never the limit."""


def _event(text: str) -> bytes:
    chunk = {"id": "x", "object": "chat.completion.chunk", "model": "flood",
             "choices": [{"index": 0, "delta": {"content": text}, "finish_reason": None}]}
    return b"data: " + json.dumps(chunk).encode() + b"\n\n"


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    pause = 0.0
    """Seconds between batches: 0 floods; a calm stream for comparison otherwise."""
    shape = "paragraphs"

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def do_GET(self) -> None:  # /v1/models
        body = json.dumps({"object": "list", "data": [{"id": "flood", "object": "model"}]}).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_POST(self) -> None:
        self.rfile.read(int(self.headers.get("content-length") or 0))
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Cache-Control", "no-cache")
        self.end_headers()  # no length, no chunking: the stream ends when the socket closes
        if self.shape == "line":
            self._line()
            return
        batch = _event(WORD) * (BATCH if not self.pause else 1)
        lines = _event("\n") + _event("\n")
        try:
            n = 0
            while True:
                self.wfile.write(batch if n % 4 else lines + batch)  # paragraphs, as a model writes
                n += 1
                if self.pause:
                    self.wfile.flush()
                    time.sleep(self.pause)
        except OSError:  # the client went away: the point of the exercise
            pass
        self.close_connection = True

    def _line(self) -> None:
        try:
            n = 0
            while True:
                self.wfile.write(_event(f"flood {n} " * 20))
                n += 1
                if self.pause:
                    self.wfile.flush()
                    time.sleep(self.pause)
        except OSError:
            pass
        self.close_connection = True


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True


@contextmanager
def flood_server(pause: float = 0.0, shape: str = "paragraphs") -> Iterator[str]:
    """``with flood_server() as base_url:`` an ``OPENAI_BASE_URL`` that floods (or,
    with ``pause``, streams one delta every ``pause`` seconds), in ``shape``
    (``paragraphs`` or ``line``, see above)."""
    handler = type("Handler", (_Handler,), {"pause": pause, "shape": shape})
    server = _Server(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/v1"
    finally:
        server.shutdown()
        server.server_close()


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


if __name__ == "__main__":
    with flood_server() as url:
        print(url, flush=True)
        threading.Event().wait()
