"""Where the third-party MCP servers used by the tests live, and how to start them.

Missing servers skip the tests locally but fail them under CI (``CI=true``):
``.ci/setup.d/mcp.sh`` installs them there, so a skip would hide a broken setup.
"""

from __future__ import annotations

import importlib.util
import os
import shutil
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

REPO = Path(__file__).resolve().parents[2]
EVERYTHING_JS = REPO / ".ci/node/node_modules/@modelcontextprotocol/server-everything/dist/index.js"


def require(available: bool, what: str) -> None:
    if available:
        return
    message = f"{what} is not installed; run .ci/setup.d/mcp.sh"
    if os.environ.get("CI", "").lower() in ("1", "true", "yes"):
        pytest.fail(f"{message} (CI must not skip)")
    pytest.skip(message)


def time_server(**extra: Any) -> dict[str, Any]:
    require(importlib.util.find_spec("mcp_server_time") is not None, "mcp-server-time (PyPI)")
    return {"command": sys.executable, "args": ["-m", "mcp_server_time", "--local-timezone", "UTC"], **extra}


def everything_stdio() -> dict[str, Any]:
    node = shutil.which("node")
    require(node is not None and EVERYTHING_JS.is_file(), "@modelcontextprotocol/server-everything (npm)")
    return {"command": node, "args": [str(EVERYTHING_JS), "stdio"]}


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@contextmanager
def everything_http() -> Iterator[tuple[str, subprocess.Popen[bytes]]]:
    """server-everything's streamable HTTP transport on a free port of 127.0.0.1."""
    node = shutil.which("node")
    require(node is not None and EVERYTHING_JS.is_file(), "@modelcontextprotocol/server-everything (npm)")
    assert node is not None
    port = free_port()
    proc = subprocess.Popen(
        [node, str(EVERYTHING_JS), "streamableHttp"],
        env={**os.environ, "PORT": str(port)},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    try:
        wait_listening(proc, port, 30, "server-everything streamableHttp")
        yield f"http://127.0.0.1:{port}/mcp", proc
    finally:
        proc.kill()
        proc.wait()


def wait_listening(proc: subprocess.Popen[Any], port: int, timeout: float, what: str) -> None:
    """Until ``proc`` accepts connections on ``port`` of 127.0.0.1; fails (naming
    ``what``) when it exits first or ``timeout`` seconds pass."""
    deadline = time.monotonic() + timeout
    while True:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
            return
        except OSError:
            if proc.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"{what} did not start") from None
            time.sleep(0.05)
