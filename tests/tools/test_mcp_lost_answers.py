"""Answers that fit no call, and answers lost with their id, from real server
processes (tests/tools/hostile_mcp_server.py over stdio; the official SDK's server
over the older SSE transport): only the call whose answer was lost fails, and at
once; an answer nobody waits for is dropped; the server and the other calls go on."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import anyio
import pytest

from shell.tools import mcp_http
from shell.tools.mcp import McpManager

from .conftest import Recorder
from .test_mcp_sdk_servers import _connected, _run

pytestmark = [pytest.mark.anyio, pytest.mark.slow]

SERVER = Path(__file__).with_name("hostile_mcp_server.py")


def stdio(mode: str) -> dict[str, Any]:
    return {"command": sys.executable, "args": [str(SERVER), mode], "timeout": 120}


@pytest.mark.parametrize("mode", ["wrongid", "badid"])
async def test_an_answer_for_an_id_nobody_waits_for_is_ignored_and_the_call_gets_its_own(
    recorder: Recorder, mode: str, capfd: pytest.CaptureFixture[str]
) -> None:
    """An id never sent (987654), or ids that are no ids (an object, 2.5, a list,
    true), before the right answer: every call waiting failed with "the result is
    lost", though its answer came next."""
    async with McpManager({"evil": stdio(mode)}, connect_timeout=30) as mcp:
        await mcp.wait_settled(40)
        [tool] = mcp.tools()
        with anyio.fail_after(60):
            async with anyio.create_task_group() as tg:
                results: dict[str, Any] = {}

                async def call(word: str) -> None:
                    results[word] = await tool.run({"a": word}, recorder.context(tool.name, {}))

                for word in ("one", "two", "three"):
                    tg.start_soon(call, word)
        assert {w: (r.is_error, r.text) for w, r in results.items()} == {
            w: (False, f'echo {{"a": "{w}"}}') for w in ("one", "two", "three")}
        status = mcp.status("evil")
        assert status.state == "ready"  # 987654, three times: said once (ids that are no ids: not at all)
        assert status.message.count("never sent (id 987654)") == (mode == "wrongid")
    assert "Traceback" not in capfd.readouterr().err


async def test_a_lost_answer_without_an_id_fails_only_the_call_it_was_for(recorder: Recorder) -> None:
    """Two calls wait; one gets a line that is not JSON (no id to tell whose). Both
    failed; now the other gets its answer and the lost one fails once that settles
    whose it was, long before its 120 s timeout."""
    async with McpManager({"evil": stdio("garbage")}, connect_timeout=30) as mcp:
        await mcp.wait_settled(40)
        [tool] = mcp.tools()
        results: dict[str, Any] = {}
        with anyio.fail_after(60):
            async with anyio.create_task_group() as tg:

                async def call(word: str) -> None:
                    results[word] = await tool.run({"a": word}, recorder.context(tool.name, {}))

                tg.start_soon(call, "lose")
                await anyio.sleep(0.2)
                tg.start_soon(call, "fine")
        assert (results["fine"].is_error, results["fine"].text) == (False, 'echo {"a": "fine"}')
        assert results["lose"].is_error
        assert results["lose"].text.startswith("Calling evil__echo failed: the MCP server 'evil' sent a line "
                                               "that is not JSON-RPC")
        assert mcp.status("evil").state == "ready"


async def test_an_sse_event_over_the_cap_with_no_id_fails_its_call_at_once_and_the_rest_go_on(
    recorder: Recorder, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The SDK's server over SSE, its large answers sent without their id: the event
    over the cap (32 MB; 2 MB here, to be quick) was dropped and its call waited for
    its timeout (120 s here, 300 by default), saying nothing. Now it fails at once; a
    call running beside it, and the next call, work."""
    monkeypatch.setattr(mcp_http, "MAX_ANSWER_BYTES", 2 << 20)
    async with _connected("noid", "sse", call_timeout=120) as mcp:
        with anyio.fail_after(60):
            big = await _run(mcp, "big", recorder, mb=3)
        assert big.is_error
        assert big.text.startswith("Calling sdk__big failed: the MCP server 'sdk' sent more than 2 MB in one "
                                   "answer"), big.text
        results: dict[str, Any] = {}
        with anyio.fail_after(60):
            async with anyio.create_task_group() as tg:

                async def run(name: str, args: dict[str, Any]) -> None:
                    results[name] = await _run(mcp, name, recorder, **args)

                tg.start_soon(run, "slow", {"seconds": 2})
                tg.start_soon(run, "big", {"mb": 3})
        assert (results["slow"].is_error, results["slow"].text) == (False, "slept 2")
        assert results["big"].is_error and "more than 2 MB" in results["big"].text
        assert mcp.status("sdk").state == "ready"
        assert (await _run(mcp, "echo", recorder, a="after")).text == "echo after"
