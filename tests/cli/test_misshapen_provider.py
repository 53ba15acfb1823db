"""An OpenAI-compatible server (real, on 127.0.0.1) that sends a tool call whose name
is an object: headless and the line mode crashed with a traceback (AttributeError in
the sanitiser) and left the session's lock behind. Now the reply ends with one error
naming the server, the text that came first is kept, and the shell goes on."""

from __future__ import annotations

import json
import sys
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from .conftest import RunCli
from .terminal import Terminal

EVENTS = [
    {"choices": [{"index": 0, "delta": {"content": "Looking now."}, "finish_reason": None}]},
    {"choices": [{"index": 0, "finish_reason": None, "delta": {"tool_calls": [
        {"index": 0, "id": "c1", "function": {"name": {"x": 1}, "arguments": "{}"}}]}}]},
    {"choices": [{"index": 0, "delta": {}, "finish_reason": "tool_calls"}]},
]
SAID = 'sent a tool name that is not text ({"x": 1}), which its API never does'


class Misshapen(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def do_POST(self) -> None:
        self.rfile.read(int(self.headers.get("Content-Length", 0)))
        body = b"".join(b"data: " + json.dumps(e).encode() + b"\n\n" for e in EVENTS) + b"data: [DONE]\n\n"
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


@pytest.fixture
def provider(cli_env: dict[str, str]) -> Iterator[None]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), Misshapen)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    config = Path(cli_env["AGENT_SHELL_CONFIG_DIR"])
    config.mkdir(parents=True, exist_ok=True)
    (config / "config.toml").write_text(
        f'model = "evil:m"\n[providers.evil]\ntype = "openai"\n'
        f'base_url = "http://127.0.0.1:{server.server_address[1]}/v1"\n'
    )
    yield
    server.shutdown()
    server.server_close()


def _locks(cli_env: dict[str, str]) -> list[str]:
    """The pids still written in session lock files (a clean close empties them)."""
    sessions = Path(cli_env["AGENT_SHELL_DATA_DIR"]) / "sessions"
    return [p.read_text() for p in sessions.glob("*.lock") if p.read_text().strip()]


def test_headless_says_which_server_and_keeps_the_text(run_cli: RunCli, cli_env: dict[str, str],
                                                       provider: None) -> None:
    r = run_cli("-p", "look")
    assert r.returncode == 1
    assert "Traceback" not in r.stderr and "AttributeError" not in r.stderr
    [line] = [ln for ln in r.stderr.splitlines() if SAID in ln]
    assert line.startswith("error (model): evil " + SAID)
    assert "Looking now." in r.stdout
    assert _locks(cli_env) == []


def test_the_line_mode_says_it_and_goes_on(cli_env: dict[str, str], workspace: Path, provider: None) -> None:
    term = Terminal([sys.executable, "-m", "shell", "--plain", "look"], cli_env, workspace)
    term.wait_for(SAID)
    term.type("/quit\r")
    assert term.close() == 0
    assert "Traceback" not in term.text and "Looking now." in term.text
    assert _locks(cli_env) == []
