"""A small recording proxy: forwards HTTP requests to an upstream server and keeps
each exchange (request body, status, content type, the response body byte for
byte) so tests can replay what a real server sent.

Used by ``record_litellm.py`` to capture LiteLLM's streams once (installing
LiteLLM in CI costs more than replaying them); run on 127.0.0.1 only. Secrets in
request headers (``Authorization``, ``x-api-key``) are never written.
"""

from __future__ import annotations

import json
import threading
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import httpx


@dataclass
class Exchange:
    method: str
    path: str
    request: Any
    status: int = 0
    content_type: str = ""
    content_encoding: str = ""
    body: bytearray = field(default_factory=bytearray)
    done: threading.Event = field(default_factory=threading.Event)


class TeeHandler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server: TeeProxy

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def do_GET(self) -> None:
        self._forward(b"")

    def do_POST(self) -> None:
        length = int(self.headers.get("content-length") or 0)
        self._forward(self.rfile.read(length))

    def _forward(self, body: bytes) -> None:
        try:
            request: Any = json.loads(body) if body else None
        except ValueError:
            request = body.decode("utf-8", "replace")
        exchange = Exchange(self.command, self.path, request)
        with self.server.lock:
            self.server.exchanges.append(exchange)
        headers = {k: v for k, v in self.headers.items() if k.lower() not in ("host", "content-length")}
        try:
            self._relay(exchange, body, headers)
        finally:
            exchange.done.set()

    def _relay(self, exchange: Exchange, body: bytes, headers: dict[str, str]) -> None:
        url = self.server.upstream + self.path
        with (
            httpx.Client(timeout=httpx.Timeout(10.0, read=300.0)) as client,
            client.stream(self.command, url, content=body, headers=headers) as response,
        ):
            exchange.status = response.status_code
            exchange.content_type = response.headers.get("content-type", "")
            exchange.content_encoding = response.headers.get("content-encoding", "")
            self.send_response(response.status_code)
            self.send_header("Content-Type", exchange.content_type or "application/octet-stream")
            if exchange.content_encoding:
                self.send_header("Content-Encoding", exchange.content_encoding)
            self.send_header("Transfer-Encoding", "chunked")
            self.end_headers()
            for chunk in response.iter_raw():
                exchange.body.extend(chunk)
                self.wfile.write(f"{len(chunk):x}\r\n".encode() + chunk + b"\r\n")
                self.wfile.flush()
            self.wfile.write(b"0\r\n\r\n")
            self.wfile.flush()


class TeeProxy(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self, upstream: str) -> None:
        super().__init__(("127.0.0.1", 0), TeeHandler)
        self.upstream = upstream.rstrip("/")
        self.exchanges: list[Exchange] = []
        self.lock = threading.Lock()
        self.thread = threading.Thread(target=self.serve_forever, args=(0.05,), daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}"

    def __enter__(self) -> TeeProxy:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.shutdown()
        self.server_close()

    def save(self, directory: Path, name: str) -> list[Path]:
        """Write each exchange as ``NAME[.N].json`` (request, status, type) and
        ``NAME[.N].body`` (the response bytes as sent)."""
        directory.mkdir(parents=True, exist_ok=True)
        written: list[Path] = []
        for ex in self.exchanges:
            ex.done.wait(timeout=60)
        for n, ex in enumerate(self.exchanges):
            stem = name if len(self.exchanges) == 1 else f"{name}.{n + 1}"
            meta = {
                "method": ex.method,
                "path": ex.path,
                "status": ex.status,
                "content_type": ex.content_type,
                "content_encoding": ex.content_encoding,
                "request": ex.request,
            }
            (directory / f"{stem}.json").write_text(json.dumps(meta, indent=1, ensure_ascii=False) + "\n")
            (directory / f"{stem}.body").write_bytes(bytes(ex.body))
            written.append(directory / f"{stem}.body")
        self.exchanges.clear()
        return written
