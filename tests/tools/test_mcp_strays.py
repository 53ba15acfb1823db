"""Answers for ids nobody waits for (a broken or hostile server): a flood of them
costs a counter, not memory or a log line each; the one log line is sanitised (a
stray's id is the server's text); the user gets one notice per server, not one per
stray, and the calls under way get their own answers."""

from __future__ import annotations

import logging
import sys
from pathlib import Path
from typing import Any

import anyio
import pytest

from shell.tools.mcp import McpManager, ServerStatus
from shell.tools.mcp_listing import LenientListing
from shell.tools.mcp_watch import Watcher
from shell.tools.mcp_wire import error_answer

from .conftest import Recorder

SERVER = Path(__file__).with_name("hostile_mcp_server.py")
HOSTILE_ID = "\x1b]0;pwned\x07\u202e0"


def answer(ident: Any) -> Any:
    """An answer to ``ident`` as the transport hands it on (an error answer: any answer will do)."""
    return error_answer(ident, "stray")


def test_a_flood_of_strays_is_counted_not_kept_and_said_once_sanitised(
    caplog: pytest.LogCaptureFixture,
) -> None:
    told: list[str] = []
    watcher = Watcher("evil", LenientListing("evil"), lambda what: None)
    watcher.on_stray = told.append
    watcher.sent.add(1)
    watcher.pending.add(1)
    with caplog.at_level(logging.WARNING, logger="mcp.agent_shell"):
        for n in range(100_000):
            assert not watcher._passes(answer(HOSTILE_ID if n == 0 else 10_000_000 + n))
    assert watcher._passes(answer(1))  # the call waiting still gets its answer
    assert watcher.strays == 100_000
    kept = (watcher.sent, watcher.pending, watcher.lost, watcher.asked)
    assert kept == ({1}, set(), [], set())  # nothing of the strays is kept
    logged = [r.getMessage() for r in caplog.records if r.name == "mcp.agent_shell"]
    assert len(logged) == 1 and len(told) == 1
    for text in (logged[0], told[0]):
        assert "a request it was never sent" in text and "pwned" in text
        assert "\x1b" not in text and "\x07" not in text and "\u202e" not in text


@pytest.mark.anyio
@pytest.mark.slow
async def test_a_server_flooding_strays_is_one_notice_and_its_calls_get_their_answers(
    recorder: Recorder,
) -> None:
    seen: list[ServerStatus] = []
    spec = {"command": sys.executable, "args": [str(SERVER), "stray_flood"], "timeout": 120}
    async with McpManager({"evil": spec}, connect_timeout=30, on_change=seen.append) as mcp:
        await mcp.wait_settled(40)
        [tool] = mcp.tools()
        with anyio.fail_after(120):
            results = [await tool.run({"a": w}, recorder.context(tool.name, {})) for w in ("one", "two")]
        assert [(r.is_error, r.text) for r in results] == [
            (False, 'echo {"a": "one"}'), (False, 'echo {"a": "two"}')]
        status = mcp.status("evil")
        assert status.state == "ready"
    noticed = [s for s in seen if "never sent" in s.message]
    assert len(noticed) == 1, [s.message[:80] for s in seen]  # 40,000 strays: one notice
    said = noticed[0].message
    assert "may be broken" in said and "\x1b" not in said and "\x07" not in said
