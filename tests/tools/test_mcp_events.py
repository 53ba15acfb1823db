"""The older SSE transport's event stream as the SDK gets it from us: events up to the
cap pass whole, one over it becomes an error answer to its own request (its id read
where the Python SDK puts it, first, or where the TypeScript SDK does, last), and the
events after it are kept, however the bytes were cut into chunks."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator

import pytest

from shell.tools.mcp_events import EventCutter, rewrite_listing_event

pytestmark = pytest.mark.anyio


async def _through(data: bytes, chunk: int, limit: int = 1000) -> list[dict[str, object]]:
    async def chunks() -> AsyncIterator[bytes]:
        for at in range(0, len(data), chunk):
            yield data[at : at + chunk]

    cutter = EventCutter(limit, 30, lambda what: f"the MCP server 'x' {what}", ConnectionError)
    out = b"".join([c async for c in cutter.events(chunks())])
    events = [e for e in out.split(b"\n\n") if e]
    assert all(e.startswith(b"event: message\ndata: ") for e in events), events
    return [json.loads(e.split(b"data: ", 1)[1]) for e in events]


def _event(message: dict[str, object]) -> bytes:
    return b"event: message\ndata: " + json.dumps(message).encode() + b"\n\n"


@pytest.mark.parametrize("chunk", [1, 7, 64, 100_000])
async def test_an_event_over_the_cap_fails_its_own_call_and_the_others_are_kept(chunk: int) -> None:
    before = {"jsonrpc": "2.0", "id": 1, "result": {"content": []}}
    python_order = {"jsonrpc": "2.0", "id": 2, "result": {"text": "A" * 5000}}
    typescript_order = {"result": {"text": "B" * 5000}, "jsonrpc": "2.0", "id": "t-3"}
    after = {"jsonrpc": "2.0", "id": 4, "result": {"content": []}}
    data = b"".join(_event(m) for m in (before, python_order, typescript_order, after))
    got = await _through(data, chunk)
    assert [m["id"] for m in got] == [1, 2, "t-3", 4]
    assert got[0] == before and got[3] == after
    said = "the MCP server 'x' sent more than 0 MB in one answer"  # a cap of 1,000 bytes
    assert got[1]["error"] == got[2]["error"] == {"code": -32000, "message": said}


async def test_an_event_over_the_cap_without_an_id_is_dropped_alone() -> None:
    note = {"jsonrpc": "2.0", "method": "notifications/message", "params": {"data": "N" * 5000}}
    after = {"jsonrpc": "2.0", "id": 4, "result": {}}
    assert await _through(_event(note) + _event(after), 10) == [after]


def test_a_listing_event_is_written_again_only_when_a_tool_nests_too_deep() -> None:
    deep = '{"type":"object","properties":{"a":' * 150 + "{}" + "}}" * 150
    text = f'{{"jsonrpc":"2.0","id":1,"result":{{"tools":[{{"name":"ok","inputSchema":{{}}}},' \
           f'{{"name":"deep","inputSchema":{deep}}}]}}}}'
    event = b"event: message\r\nid: 7\r\ndata: " + text.encode() + b"\r\n\r\n"
    rewritten = rewrite_listing_event(event)
    assert rewritten.startswith(b"event: message\nid: 7\ndata: ")
    tools = json.loads(rewritten.split(b"data: ", 1)[1])["result"]["tools"]
    assert tools == [{"name": "ok", "inputSchema": {}}, {"x-agent-shell-too-deep": "deep"}]
    fine = b'event: message\ndata: {"jsonrpc":"2.0","id":1,"result":{"tools":[]}}\n\n'
    assert rewrite_listing_event(fine) is fine


async def test_an_event_stalled_part_way_ends_the_stream_naming_the_server() -> None:
    """The SDK waited for its 300 s read timeout."""
    import anyio

    async def chunks() -> AsyncIterator[bytes]:
        yield b'event: message\ndata: {"jsonrpc":"2.0","id":9,"result":{"te'
        await anyio.sleep(3600)

    cutter = EventCutter(1000, 0.2, lambda what: f"the MCP server 'x' {what}", ConnectionError)
    with anyio.fail_after(30), pytest.raises(ConnectionError) as caught:
        [c async for c in cutter.events(chunks())]
    assert str(caught.value) == "the MCP server 'x' sent part of an answer, then nothing for 0.2 s"
