"""The lines an editor sends, checked before the ACP SDK reads them.

The SDK takes each line it can parse as a message and calls ``message.get``: a line
that is JSON but not an object (``[1,2]``, a JSON-RPC batch, ``5``, ``"s"``) raised
out of its reader and ended the server with every session in it, and ``null`` read
as the end of input (the server left quietly, exit 0). A line with no end grew in
memory until the limit. One bad line must cost only itself: here each is answered
with the JSON-RPC error it deserves (-32700 not JSON, -32600 not a request object,
too long or nested too deep) and dropped; the SDK sees only lines that start as an
object and that it can read.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable

MAX_LINE = 64 * 1024 * 1024
"""The longest line taken (images and attached files make long lines): past it the
line is read to its end, dropped and answered with an error."""

PARSE_ERROR, INVALID_REQUEST = -32700, -32600
NESTING_CHECKED = 500
"""A line with this many brackets is parsed here first: nested deeper than Python's
recursion limit, it raised out of the SDK's reader (a traceback in the editor's log)
and the request was never answered."""


def verdict(line: bytes) -> tuple[int, str] | None:
    """None for a line the SDK may have (blank, or starting as an object), else the
    error to answer. A line that starts with ``{`` is left to the SDK's own parser (it
    skips one that does not parse): parsing a prompt of many megabytes twice costs."""
    text = line.strip()
    if not text:
        return None
    if text[:1] == b"{":
        if text.count(b"[") + text.count(b"{") < NESTING_CHECKED:
            return None  # too few brackets to be too deep: the SDK parses it once
        try:
            json.loads(text)
        except RecursionError:
            return INVALID_REQUEST, "Invalid Request: the message is nested too deep to read"
        except ValueError:
            return None  # the SDK skips a line that does not parse, as before
        return None
    try:
        json.loads(text)
    except RecursionError:
        return INVALID_REQUEST, "Invalid Request: the message is nested too deep to read"
    except ValueError:
        return PARSE_ERROR, "Parse error: the line is not JSON"
    return INVALID_REQUEST, "Invalid Request: a message must be one JSON object (batches are not supported)"


def error_line(code: int, message: str) -> bytes:
    error = {"jsonrpc": "2.0", "id": None, "error": {"code": code, "message": message}}
    return json.dumps(error).encode() + b"\n"


async def read_line(reader: asyncio.StreamReader, limit: int) -> tuple[bytes, bool]:
    """One line (with its newline; b"" at the end of input) and whether it was longer
    than ``limit`` (then only its start is returned: the rest is read and dropped)."""
    chunks: list[bytes] = []
    size, over = 0, False
    while True:
        try:
            part = await reader.readuntil(b"\n")
        except asyncio.LimitOverrunError as exc:
            part = await reader.readexactly(exc.consumed)
            done = False
        except asyncio.IncompleteReadError as exc:
            part, done = exc.partial, True
        else:
            done = True
        if not over:
            if size + len(part) > limit:
                over = True
            else:
                chunks.append(part)
                size += len(part)
        if done:
            return b"".join(chunks), over


async def pump(
    source: asyncio.StreamReader, sink: asyncio.StreamReader, answer: Callable[[bytes], None],
    limit: int = MAX_LINE,
) -> None:
    """Copy ``source`` to ``sink`` line by line, answering (``answer``) and dropping
    the lines the SDK must not see; ``sink`` ends when ``source`` does."""
    try:
        while True:
            line, over = await read_line(source, limit)
            if over:
                said = f"Invalid Request: the line is longer than {limit:,} bytes"
                answer(error_line(INVALID_REQUEST, said))
                continue
            if not line:
                return
            wrong = verdict(line)
            if wrong is not None:
                answer(error_line(*wrong))
                continue
            sink.feed_data(line if line.endswith(b"\n") else line + b"\n")
    finally:
        sink.feed_eof()
