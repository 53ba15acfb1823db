"""A tiny scripted HTTP/1.1 server on 127.0.0.1 (port 0) in a thread, for fault tests.

Each scenario is a function ``(handler, attempt) -> None`` registered under a path
prefix; ``attempt`` counts the requests that scenario received so far, so "fail
twice then answer" is a plain ``if``.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

Scenario = Callable[["Handler", int], None]


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server: ScriptedServer

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def do_POST(self) -> None:
        length = int(self.headers.get("content-length") or 0)
        self.body = self.rfile.read(length)
        self._route()

    def do_GET(self) -> None:
        self.body = b""
        self._route()

    def _route(self) -> None:
        name = self.path.strip("/").split("/")[0]
        scenario = self.server.scenarios.get(name)
        with self.server.lock:
            attempt = self.server.counts.get(name, 0)
            self.server.counts[name] = attempt + 1
        if scenario is None:
            self.reply(404, {"error": {"message": f"no scenario {name}"}})
            return
        scenario(self, attempt)

    # -- helpers for scenarios -------------------------------------------------------

    def reply(self, status: int, body: Any, headers: dict[str, str] | None = None) -> None:
        data = json.dumps(body).encode() if not isinstance(body, bytes) else body
        self.send_response(status)
        for k, v in (headers or {}).items():
            self.send_header(k, v)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def start_stream(self, content_type: str = "text/event-stream") -> None:
        self.send_response(200)
        self.send_header("Content-Type", content_type)
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()

    def chunk(self, data: bytes) -> None:
        self.wfile.write(f"{len(data):x}\r\n".encode() + data + b"\r\n")
        self.wfile.flush()

    def end_stream(self) -> None:
        self.wfile.write(b"0\r\n\r\n")
        self.wfile.flush()

    def drop(self) -> None:
        self.wfile.flush()
        self.close_connection = True
        self.connection.shutdown(2)

    def stream_forever(self, data: bytes, every: float = 0.02) -> None:
        """Keep sending ``data`` until the client goes away; record when it did."""
        self.start_stream()
        try:
            for _ in range(500):
                self.chunk(data)
                time.sleep(every)
        except OSError:
            self.server.closed_at = time.monotonic()


class ScriptedServer(ThreadingHTTPServer):
    daemon_threads = True
    block_on_close = False

    def __init__(self) -> None:
        super().__init__(("127.0.0.1", 0), Handler)
        self.scenarios: dict[str, Scenario] = {}
        self.counts: dict[str, int] = {}
        self.lock = threading.Lock()
        self.closed_at: float | None = None
        self.thread = threading.Thread(target=self.serve_forever, args=(0.02,), daemon=True)

    def handle_error(self, request: Any, client_address: Any) -> None:
        """A client that hangs up (as tests of bounds and cancels do) is expected, not news."""

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}"

    def __enter__(self) -> ScriptedServer:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.shutdown()
        self.server_close()
