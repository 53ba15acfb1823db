"""MCP servers that attack: real processes (tests/tools/hostile_mcp_server.py) over
stdio and streamable HTTP on 127.0.0.1, as a user would meet them."""

from __future__ import annotations

import resource
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import anyio
import pytest

from shell.tools import mcp_http
from shell.tools.mcp import McpManager
from shell.tools.mcp_http import MAX_ANSWER_BYTES

from .conftest import Recorder
from .mcp_servers import free_port, wait_listening

pytestmark = [pytest.mark.anyio, pytest.mark.slow]

SERVER = Path(__file__).with_name("hostile_mcp_server.py")


def stdio(mode: str) -> dict[str, Any]:
    return {"command": sys.executable, "args": [str(SERVER), mode]}


@contextmanager
def http(mode: str) -> Iterator[dict[str, Any]]:
    port = free_port()
    proc = subprocess.Popen([sys.executable, str(SERVER), mode, "--http", str(port)], start_new_session=True)
    try:
        wait_listening(proc, port, 20, "the hostile server")
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


async def test_tools_whose_schema_cannot_be_checked_are_refused_when_the_server_connects(
    recorder: Recorder,
) -> None:
    """``"type": 5`` made every call of the tool end the reply ("TypeError: 'int' object
    is not iterable") and a provider that checks schemas would refuse every request."""
    async with McpManager({"evil": stdio("bad_schema")}, connect_timeout=30) as mcp:
        await mcp.wait_settled(40)
        status = mcp.status("evil")
        assert status.state == "ready"
        assert [t.name for t in mcp.tools()] == ["evil__good"]
        invalid = "its inputSchema is not valid JSON Schema, at properties.a.type:"
        assert status.message.startswith(f"2 tools not offered to the model (evil__int_type: {invalid} 5 is")
        assert f"evil__dict_in_types: {invalid}" in status.message
        assert status.message.endswith("tell the server's author")
        [good] = mcp.tools()
        result = await good.run({"a": "x"}, recorder.context(good.name, {}))
        assert result.text == 'echo {"a": "x"}'


@pytest.mark.parametrize(
    ("mode", "said"),
    [("deep", "a line that is not JSON-RPC (Invalid JSON: recursion limit exceeded"),
     ("garbage", "a line that is not JSON-RPC (Invalid JSON: expected ident at line 1 column 2), starting "
                 "'this is not json'"),
     ("endless_call", "a line longer than 32 MB (it was dropped: ask for less, or remove the server 'evil'")],
)
async def test_an_answer_that_cannot_be_read_fails_its_call_at_once(
    recorder: Recorder, mode: str, said: str, capfd: pytest.CaptureFixture[str]
) -> None:
    """Nested 100,000 deep, not JSON, or a line that never ends: the SDK logged a
    traceback on the terminal and the call waited silently for its 600 s timeout. A
    line that never ends grew the shell's memory (quadratically slower) until then."""
    before = _rss_mb()
    async with McpManager({"evil": stdio(mode)}, connect_timeout=30) as mcp:
        await mcp.wait_settled(40)
        [tool] = mcp.tools()
        with anyio.fail_after(20):
            result = await tool.run({"a": "x"}, recorder.context(tool.name, {}))
        assert result.is_error
        assert result.text.startswith(f"Calling evil__echo failed: the MCP server 'evil' sent {said}")
        assert result.text.endswith("the result is lost. Try again; if it keeps happening, tell the server's "
                                    "author")
        assert mcp.status("evil").state == "ready"
    assert "Traceback" not in capfd.readouterr().err
    assert _rss_mb() - before < 400


async def test_a_result_that_breaks_its_output_schema_keeps_its_content(recorder: Recorder) -> None:
    """The SDK raised "Invalid structured content" and the text the model could have
    used was lost; now the text comes with one line on what did not match."""
    async with McpManager({"evil": stdio("bad_output")}, connect_timeout=30) as mcp:
        await mcp.wait_settled(40)
        [tool] = mcp.tools()
        with anyio.fail_after(20):
            result = await tool.run({"a": "x"}, recorder.context(tool.name, {}))
        assert not result.is_error
        assert result.text.startswith("the answer is 42\n[evil__echo's structured result does not match the "
                                      "output schema the server declared (")
        assert "(at $.n: the schema wants type 'integer')" in result.text and len(result.text) < 500
        assert result.details["structured"] == {"n": "forty-two " + "x" * 5000}
        assert mcp.status("evil").state == "ready"


async def test_tool_names_that_collided_are_all_offered_each_under_its_own_name() -> None:
    """a.b and a_b, and two names alike in their first 64 characters, were one name:
    the first won silently, and a call of one ran the other."""
    async with McpManager({"evil": stdio("names")}, connect_timeout=30) as mcp:
        await mcp.wait_settled(40)
        names = [t.name for t in mcp.tools()]
        remote = {t.name: t.remote_name for t in mcp.tools()}  # type: ignore[attr-defined]
    assert len(names) == len(set(names)) == 6
    assert sorted(remote.values()) == sorted(["a.b", "a_b", "x" * 70 + "A", "x" * 70 + "B", "b__c", "ok"])
    assert remote["evil__a_b"] == "a_b" and remote["evil__b__c"] == "b__c" and remote["evil__ok"] == "ok"


async def test_servers_whose_tools_would_share_names_do_not_both_start() -> None:
    """Server "a__b" with tool "c" and server "a" with tool "b__c" were both a__b__c,
    and a rule a__b__* named both; "my server" and "my_server" give the same names."""
    servers = {"a__b": stdio("names"), "a": stdio("names"), "my server": stdio("names"),
               "my_server": stdio("names")}
    async with McpManager(servers, connect_timeout=30) as mcp:
        await mcp.wait_settled(40)
        states = {s.name: s for s in mcp.statuses()}
        assert states["a__b"].state == "failed" and "Rename it, e.g. 'a_b'" in states["a__b"].message
        assert states["a"].state == "ready" and states["my server"].state == "ready"
        assert states["my_server"].state == "failed"
        assert states["my_server"].message == (
            "its tools would be named my_server__… like those of the server 'my server'; rename one of them"
        )
        assert "a__b__c" in {t.name for t in mcp.tools()}  # server a's tool b__c, and no other


@pytest.mark.parametrize(
    ("mode", "said"),
    [("short_json", "broke off its answer (RemoteProtocolError: peer closed connection without sending "
                    "complete message body"),
     ("drop_call", "did not answer (RemoteProtocolError: Server disconnected without sending a response.)"),
     ("stall_json", "sent part of an answer, then nothing for 1 s"),
     ("stall_sse", "sent part of an answer, then nothing for 1 s")],
)
async def test_an_http_answer_that_breaks_or_stalls_fails_that_call_only(
    recorder: Recorder, monkeypatch: pytest.MonkeyPatch, mode: str, said: str
) -> None:
    """A Content-Length that lies, a connection closed before the answer: the SDK
    ended the whole connection ("Connection closed", the server exited with all its
    tools). An answer stalled part-way waited for the 300 s read timeout."""
    monkeypatch.setattr(mcp_http, "BODY_STALL", 1.0)
    with http(mode) as spec:
        async with McpManager({"evil": spec}, connect_timeout=30) as mcp:
            await mcp.wait_settled(40)
            [tool] = mcp.tools()
            with anyio.fail_after(60):
                broken = await tool.run({"a": "x"}, recorder.context(tool.name, {}))
                assert broken.is_error
                assert broken.text.startswith(f"Calling evil__echo failed: the MCP server 'evil' {said}")
                assert broken.text.endswith("this call failed, the server is still connected. Try again; if "
                                            "it keeps happening, check the server")
                assert mcp.status("evil").state == "ready"
                again = await tool.run({"a": "y"}, recorder.context(tool.name, {}))
            assert again.text == 'echo {"a": "y"}'


async def test_an_endless_event_is_cut_at_the_cap_and_fails_that_call_only(recorder: Recorder) -> None:
    """The SDK cut an event at 1 MiB, naming no server (and so failed real results of 2 MB)."""
    with http("endless_sse") as spec:
        async with McpManager({"evil": spec}, connect_timeout=30) as mcp:
            await mcp.wait_settled(40)
            [tool] = mcp.tools()
            with anyio.fail_after(60):
                broken = await tool.run({"a": "x"}, recorder.context(tool.name, {}))
                again = await tool.run({"a": "y"}, recorder.context(tool.name, {}))
    assert broken.is_error
    assert broken.text.startswith(f"Calling evil__echo failed: the MCP server 'evil' sent more than "
                                  f"{MAX_ANSWER_BYTES >> 20} MB in one answer; it was dropped.")
    assert again.text == 'echo {"a": "y"}'


async def test_a_web_server_that_is_not_an_mcp_endpoint_is_named_so() -> None:
    """The SDK said only "Server returned an error response"."""
    with http("not_mcp") as spec:
        async with McpManager({"web": spec}, connect_timeout=30) as mcp:
            await mcp.wait_settled(40)
            status = mcp.status("web")
    assert status.state == "failed"
    assert status.message == (f"Server returned an error response (it answered HTTP 501 (text/html): is "
                              f"{spec['url']} its MCP endpoint? That address often ends in /mcp, or /sse for "
                              "an SSE server)")


async def test_an_http_answer_nested_too_deep_fails_that_call_in_one_line(recorder: Recorder) -> None:
    """The SDK's error was pydantic's whole report (several lines, a link, the answer's
    first bytes quoted)."""
    with http("deep") as spec:
        async with McpManager({"evil": spec}, connect_timeout=30) as mcp:
            await mcp.wait_settled(40)
            [tool] = mcp.tools()
            with anyio.fail_after(60):
                result = await tool.run({"a": "x"}, recorder.context(tool.name, {}))
            assert mcp.status("evil").state == "ready"
    assert result.is_error
    assert result.text == ("Calling evil__echo failed: the server sent an answer that is not JSON-RPC "
                           "(Invalid JSON: recursion limit exceeded at line 1 column 298); tell the server's "
                           "author")
