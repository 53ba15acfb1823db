"""MCP servers that attack: real processes (tests/tools/hostile_mcp_server.py) over
stdio and streamable HTTP on 127.0.0.1, as a user would meet them."""

from __future__ import annotations

import resource
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import anyio
import pytest

from shell.tools.mcp import McpManager
from shell.tools.mcp_http import MAX_ANSWER_BYTES

from .conftest import Recorder
from .mcp_servers import free_port

pytestmark = [pytest.mark.anyio, pytest.mark.slow]

SERVER = Path(__file__).with_name("hostile_mcp_server.py")


def stdio(mode: str) -> dict[str, Any]:
    return {"command": sys.executable, "args": [str(SERVER), mode]}


@contextmanager
def http(mode: str) -> Iterator[dict[str, Any]]:
    port = free_port()
    proc = subprocess.Popen([sys.executable, str(SERVER), mode, "--http", str(port)], start_new_session=True)
    try:
        deadline = time.monotonic() + 20
        while True:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
                break
            except OSError:
                assert proc.poll() is None and time.monotonic() < deadline, "the hostile server did not start"
                time.sleep(0.05)
        yield {"type": "http", "url": f"http://127.0.0.1:{port}/mcp"}
    finally:
        proc.kill()
        proc.wait()


def _rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


async def test_an_endless_json_answer_to_the_handshake_is_cut_and_named() -> None:
    before = _rss_mb()
    with http("endless_json") as spec:
        async with McpManager({"evil": spec}, connect_timeout=30) as mcp:
            await mcp.wait_settled(40)
            status = mcp.status("evil")
    assert status.state == "failed"
    cut = f"the MCP server 'evil' sent more than {MAX_ANSWER_BYTES >> 20} MB in one answer"
    assert status.message.startswith(cut), status.message
    assert _rss_mb() - before < 400  # was 3 GB in 20 s, until the handshake timed out


async def test_an_endless_json_answer_to_a_tool_call_fails_that_call_only(recorder: Recorder) -> None:
    with http("endless_call") as spec:
        async with McpManager({"evil": spec}, connect_timeout=30) as mcp:
            await mcp.wait_settled(40)
            [tool] = mcp.tools()
            with anyio.fail_after(60):
                result = await tool.run({"a": "x"}, recorder.context(tool.name, {}))
            assert result.is_error
            assert "Calling evil__echo failed: the MCP server 'evil' sent more than" in result.text
            assert mcp.status("evil").state == "ready"  # the next call may well be fine
