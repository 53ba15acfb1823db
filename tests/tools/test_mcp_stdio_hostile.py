"""MCP servers over stdio that send what the protocol does not allow, or too much
of it: real processes (tests/tools/hostile_mcp_server.py), as a user meets them."""

from __future__ import annotations

import os
import resource
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import anyio
import pytest

from shell.core.textsafety import is_safe
from shell.tools.mcp import McpManager
from shell.tools.mcp_results import MAX_RESULT_CHARS
from shell.tools.mcp_schema import MAX_DESCRIPTION, MAX_TOOLS
from shell.tools.mcp_stdio import BadLine, LineSplitter

from .conftest import Recorder

pytestmark = [pytest.mark.anyio, pytest.mark.slow]

SERVER = Path(__file__).with_name("hostile_mcp_server.py")


def stdio(mode: str) -> dict[str, Any]:
    return {"command": sys.executable, "args": [str(SERVER), mode]}


async def _call(mode: str, recorder: Recorder) -> tuple[str, Any]:
    async with McpManager({"evil": stdio(mode)}, connect_timeout=30) as mcp:
        await mcp.wait_settled(40)
        [tool] = mcp.tools()
        with anyio.fail_after(60):
            result = await tool.run({"a": "x"}, recorder.context(tool.name, {}))
        return mcp.status("evil").state, result


async def test_bytes_that_are_not_utf8_are_replaced_and_the_answer_kept(recorder: Recorder) -> None:
    """One byte that was not UTF-8 ended the SDK's reader: the call hung for 600 s."""
    state, result = await _call("not_utf8", recorder)
    assert not result.is_error
    assert result.text == "a\ufffd b"
    assert state == "ready"


async def test_content_of_a_type_mcp_does_not_define_is_named_and_the_rest_kept(recorder: Recorder) -> None:
    """The SDK refused the whole result for one item it did not know."""
    _, result = await _call("unknown_content", recorder)
    assert not result.is_error
    assert result.text == ("[unsupported MCP content type 'hologram': left out]\n"
                           "[MCP content of type 'text' that is not valid: left out]\nkept")


async def test_a_server_that_exits_during_a_call_fails_that_call_and_says_so(recorder: Recorder) -> None:
    state, result = await _call("exit_mid_call", recorder)
    assert result.is_error
    assert result.text == ("The MCP server 'evil' went away during the call to evil__echo: "
                           "the server process exited")
    assert state == "exited"


async def test_a_20_mb_answer_is_read_and_capped(recorder: Recorder) -> None:
    """Read in linear time (the SDK's reader joined and split its buffer for every
    chunk: 20 MB took 16 s of CPU, 50 MB 80 s) and cut to the usual cap."""
    _, result = await _call("big", recorder)
    assert not result.is_error
    assert result.text.startswith("B" * 1000)
    assert len(result.text) < MAX_RESULT_CHARS + 1000
    assert f"the first {MAX_RESULT_CHARS:,} of {20 << 20:,} characters are shown" in result.text


async def test_a_call_answered_after_a_flood_of_log_messages_gets_its_answer(recorder: Recorder) -> None:
    """Log messages are not shown anywhere; they are dropped before the SDK spawns a
    task for each (20,000 of them held the event loop for 1.3 s at a time)."""
    state, result = await _call("flood", recorder)
    assert result.text == 'echo {"a": "x"}'
    assert state == "ready"


async def test_a_flood_of_progress_reaches_the_front_end_thinned_and_ends_with_the_last(
    recorder: Recorder,
) -> None:
    """Each progress notification was an event for the front end to draw: 20,000 of
    them as fast as the server could write."""
    _, result = await _call("progress_flood", recorder)
    assert result.text == 'echo {"a": "x"}'
    assert 1 <= len(recorder.progress) < 2000
    assert recorder.progress[-1] == {"progress": 20_000, "total": 20_000, "message": None}


async def test_a_flood_of_requests_from_the_server_is_bounded(recorder: Recorder) -> None:
    """The SDK answers each request of a server in a task of its own: 50,000 pings
    sent without reading the answers held 600 MB and the event loop for 6 s."""
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    state, result = await _call("ping_flood", recorder)
    assert result.text == 'echo {"a": "x"}'
    assert state == "ready"
    assert resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024 - before < 100


async def test_escapes_and_a_lone_surrogate_in_a_tool_do_not_cost_the_server() -> None:
    """A lone surrogate ("\\ud800") in a description is JSON pydantic refuses: the
    whole tools/list failed, and with it every tool of the server."""
    async with McpManager({"evil": stdio("surrogates")}, connect_timeout=30) as mcp:
        await mcp.wait_settled(40)
        status = mcp.status("evil")
        assert status.state == "ready"
        [tool] = mcp.tools()
    assert tool.name.startswith("evil__e__2Jvil_")  # made model-safe, with a hash of the real name
    # the user is told what the server really named it, escaped (tester finding L2)
    assert status.message == ("1 tool offered under another name, as the name the server gave holds "
                              "control or invisible characters (shown escaped): "
                              f"e\\x1b[2Jvil\ufffd as {tool.name}")
    assert is_safe(status.message)
    assert tool.remote_name == "e\x1b[2Jvil\ufffd"  # type: ignore[attr-defined]
    assert tool.description == "\x1b]0;pwn\x07 hi \ufffd \x1b[31mred"  # shown through the sanitiser


async def test_a_server_offering_10000_tools_gets_the_first_128_offered() -> None:
    """Every tool goes with every request: 10,000 were about 2 MB each time."""
    async with McpManager({"evil": stdio("many_tools")}, connect_timeout=30) as mcp:
        await mcp.wait_settled(60)
        status = mcp.status("evil")
        names = [t.name for t in mcp.tools()]
    assert names == [f"evil__t{k}" for k in range(MAX_TOOLS)]
    assert status.state == "ready"
    assert status.message == (
        "9,872 tools not offered to the model (evil__t128, evil__t129, evil__t130 and 9,869 more: the "
        "server offers more than 128 tools and only the first 128 are offered to the model); tell the "
        "server's author"
    )


async def test_a_tools_list_without_end_is_read_up_to_10000_tools() -> None:
    """Pages of 1,000 tools, each with a next cursor: 100 pages were read (and kept)."""
    async with McpManager({"evil": stdio("endless_pages")}, connect_timeout=60) as mcp:
        await mcp.wait_settled(90)
        status = mcp.status("evil")
        assert len(mcp.tools()) == MAX_TOOLS
    assert status.state == "ready"
    assert status.message.startswith("9,872 tools not offered to the model (")


async def test_a_1_mb_description_is_cut_and_a_100_kb_schema_refused() -> None:
    async with McpManager({"evil": stdio("huge_tools")}, connect_timeout=30) as mcp:
        await mcp.wait_settled(60)
        status = mcp.status("evil")
        [tool] = mcp.tools()
    assert tool.description.startswith("D" * MAX_DESCRIPTION + " [description cut: 1,048,576 characters")
    assert len(tool.description) < MAX_DESCRIPTION + 100
    assert status.message.startswith("1 tool not offered to the model (evil__wide: its inputSchema is ")


async def test_a_server_that_never_answers_the_handshake_fails_saying_so() -> None:
    async with McpManager({"evil": stdio("stall_init")}, connect_timeout=1) as mcp:
        await mcp.wait_settled(30)
        status = mcp.status("evil")
    assert status.state == "failed"
    assert status.message.startswith("no answer to the MCP handshake within 1 s (a first npx or uvx run may "
                                     "still be downloading: start agent-shell again later)")


async def test_a_server_that_floods_stderr_and_exits_is_said_with_its_last_words() -> None:
    """Its stderr went to a temporary file that grew as long as it wrote; now the
    last 8 kB are kept in memory."""
    async with McpManager({"evil": stdio("stderr_flood")}, connect_timeout=30) as mcp:
        await mcp.wait_settled(60)
        status = mcp.status("evil")
    assert status.state == "failed"
    assert status.message == "the server process exited"  # what the model may read
    assert status.reason.startswith("the server process exited\nserver stderr (last lines):\n")
    assert status.reason.endswith("noise \nfatal: the end")  # what the user reads
    assert len(status.reason) < 2000


def test_lines_are_split_across_chunks_and_a_line_over_the_cap_is_dropped_alone() -> None:
    splitter = LineSplitter("evil", limit=10)
    out = [*splitter.feed(b'{"a"'), *splitter.feed(b':1}\n{"b":2}\n0123456'), *splitter.feed(b"789abc"),
           *splitter.feed(b"def\nok\n")]
    assert out[:2] == [b'{"a":1}', b'{"b":2}']
    assert isinstance(out[2], BadLine) and "a line longer than 10 bytes" in str(out[2])
    assert out[3:] == [b"ok"]


def test_a_server_left_running_by_a_loop_that_ended_is_stopped_at_exit(tmp_path: Path) -> None:
    """A front end whose event loop ends before the servers' shutdown is done (the TUI
    quitting while one still connects) left a server that ignores its closed stdin
    running in its own session for as long as it liked (an hour, here)."""
    pidfile = tmp_path / "pid"
    script = f"""
import asyncio, sys
from shell.tools.mcp import McpManager
args = [{str(SERVER)!r}, "stall_init"]
spec = {{"command": sys.executable, "args": args, "env": {{"PIDFILE": {str(pidfile)!r}}}}}

async def start():
    import anyio
    tg = anyio.create_task_group()
    await tg.__aenter__()
    await McpManager({{"stall": spec}}).start(tg)
    while not __import__("os").path.exists({str(pidfile)!r}):
        await asyncio.sleep(0.05)

loop = asyncio.new_event_loop()
loop.run_until_complete(start())  # then the loop ends, the shutdown never ran
"""
    subprocess.run([sys.executable, "-c", script], cwd=Path(__file__).resolve().parents[2], timeout=60,
                   capture_output=True, check=False)
    pid = int(pidfile.read_text())
    for _ in range(100):  # the group was signalled before the exit; the kernel may take a moment
        if not _alive(pid):
            break
        time.sleep(0.05)
    assert not _alive(pid)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (ProcessLookupError, OSError):
        return False
    return state != "Z"  # a zombie nobody reaped yet is dead


def test_progress_past_fifty_a_second_is_dropped_unparsed_and_the_last_kept() -> None:
    """200,000 progress notifications each went through the SDK's validation: a call
    stayed busy for minutes. The last one held back still comes before the result."""
    from shell.tools.mcp_stdio import PROGRESS_PER_SECOND, ProgressGate

    gate = ProgressGate()
    note = '{{"jsonrpc": "2.0", "method": "notifications/progress", "params": {{"progress": {}}}}}'
    passed = [kept for k in range(1, 10_001) for kept in gate.feed(note.format(k).encode())]
    assert len(passed) == PROGRESS_PER_SECOND  # within one second
    result = b'{"jsonrpc": "2.0", "id": 1, "result": {}}'
    assert gate.feed(result) == [note.format(10_000).encode(), result]
    assert gate.feed(result) == [result]


def test_log_messages_are_dropped_unparsed_and_an_answer_quoting_one_is_kept() -> None:
    """Each log message went through the SDK's validation before it was dropped:
    5,000 from a real SDK server cost the shell a second of CPU."""
    from shell.tools.mcp_stdio import is_log_line

    log = b'{"jsonrpc": "2.0", "method": "notifications/message", "params": {"level": "info", "data": "x"}}'
    quoted = (b'{"jsonrpc":"2.0","id":3,"result":{"content":[{"type":"text","text":'
              b'"{\\"method\\": \\"notifications/message\\"}"}]}}')
    progress = b'{"jsonrpc": "2.0", "method": "notifications/progress", "params": {"progress": 1}}'
    assert is_log_line(log)
    assert not is_log_line(quoted) and not is_log_line(progress) and not is_log_line(BadLine("x"))


async def test_a_call_while_the_server_still_starts_says_wait_not_restart() -> None:
    """A server slow to start (an HTTP one took 9 s) was answered "ask the user to
    restart it": the model then asked for a restart of a server that was only starting."""
    async with McpManager({"evil": stdio("stall_init")}, connect_timeout=30) as mcp:
        with anyio.fail_after(10):
            while mcp.status("evil").state != "connecting":  # noqa: ASYNC110 (a status, not an event)
                await anyio.sleep(0.01)
        said = mcp.why_gone("evil__anything")
    assert said is not None and "is still starting" in said and "a little later" in said
    assert "restart" not in said
