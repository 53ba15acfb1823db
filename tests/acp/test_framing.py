"""One bad line from the editor costs only itself (shell.acp.framing): the server
answers it with a JSON-RPC error and goes on serving. A JSON line that was not an
object (a batch, a number) ended the server with every session in it, and ``null``
read as the end of input."""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path

import pytest

from shell.acp.framing import INVALID_REQUEST, PARSE_ERROR, pump

pytestmark = pytest.mark.anyio


async def _lines(sent: bytes, limit: int = 1 << 20) -> tuple[list[bytes], list[dict[str, object]]]:
    source, sink = asyncio.StreamReader(), asyncio.StreamReader()
    source.feed_data(sent)
    source.feed_eof()
    answers: list[bytes] = []
    await pump(source, sink, answers.append, limit=limit)
    passed = []
    while line := await sink.readline():
        passed.append(line)
    return passed, [json.loads(a) for a in answers]


async def test_only_object_lines_reach_the_sdk_and_the_rest_are_answered() -> None:
    sent = b'[1,2]\n5\n"s"\nnull\n{"id": 1, "method": "x"}\nnot json\n\n{"id": 2, "method": "y"}'
    passed, answers = await _lines(sent)
    assert passed == [b'{"id": 1, "method": "x"}\n', b"\n", b'{"id": 2, "method": "y"}\n']
    codes = [a["error"]["code"] for a in answers]  # type: ignore[index]
    assert codes == [INVALID_REQUEST] * 4 + [PARSE_ERROR]
    assert all(a["id"] is None and a["jsonrpc"] == "2.0" for a in answers)


async def test_a_request_nested_too_deep_is_answered_not_a_traceback() -> None:
    """200,000 levels of `[` in a request's params raised RecursionError out of the
    SDK's reader: a traceback in the editor's log and no answer at all."""
    deep = b'{"jsonrpc": "2.0", "id": 8, "method": "session/list", "params": {"x": ' + b"[" * 200_000
    deep += b"]" * 200_000 + b"}}\n"
    wide = b'{"id": 3, "params": [' + b",".join([b"[1]"] * 2000) + b"]}\n"  # many, not deep: passes
    passed, answers = await _lines(deep + wide + b'{"id": 9}\n', limit=1 << 22)
    assert passed == [wide, b'{"id": 9}\n']
    assert answers[0]["error"] == {"code": INVALID_REQUEST,  # type: ignore[index]
                                   "message": "Invalid Request: the message is nested too deep to read"}


async def test_a_line_over_the_limit_is_dropped_whole_and_the_next_one_read() -> None:
    sent = b'{"id": 1, "params": "' + b"x" * 5000 + b'"}\n{"id": 2}\n'
    passed, answers = await _lines(sent, limit=1000)
    assert passed == [b'{"id": 2}\n']
    assert answers[0]["error"]["code"] == INVALID_REQUEST  # type: ignore[index]
    assert "longer than 1,000 bytes" in answers[0]["error"]["message"]  # type: ignore[index]


async def test_the_server_answers_a_batch_and_keeps_serving(acp_env: dict[str, str], workspace: Path) -> None:
    process = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "shell", "acp", "--model", "demo", env=acp_env, cwd=workspace,
        stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.DEVNULL,
    )
    assert process.stdin is not None and process.stdout is not None
    try:
        init = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": 1}}
        process.stdin.write(b'[{"jsonrpc": "2.0", "id": 9, "method": "initialize"}]\nnull\n')
        process.stdin.write(json.dumps(init).encode() + b"\n")
        await process.stdin.drain()
        got = []
        while len(got) < 3:
            line = await asyncio.wait_for(process.stdout.readline(), 30)
            assert line, "the server ended"
            got.append(json.loads(line))
        assert [g.get("error", {}).get("code") for g in got[:2]] == [INVALID_REQUEST, INVALID_REQUEST]
        assert got[2]["id"] == 1 and got[2]["result"]["protocolVersion"] == 1
        assert process.returncode is None
    finally:
        process.kill()
        await process.wait()
