"""Whole events of an MCP server's HTTP answers, where one must be seen whole.

An answer to ``tools/list`` (a JSON body, or the events of a streamable HTTP
answer): the SDK reads it whole with a parser that gives up around 200 levels, so
one tool whose schema nested 3,000 deep failed the server with all its tools. Such
an answer is written again with that tool replaced by a stand-in the listing names
(:func:`~shell.tools.mcp_listing.readable_listing`).
"""

from __future__ import annotations

import re
from collections.abc import AsyncIterator

from .mcp_listing import readable_listing

EVENT_ENDS = (b"\n\n", b"\r\n\r\n", b"\r\r")
"""The blank lines that end an event (the line endings the SSE format allows)."""


class EventSplitter:
    """Bytes of an event stream in, whole events (with their blank line) out. Kept in
    one growing buffer searched from where the last search ended: an event of 32 MB
    in 64 kB chunks is not copied or searched 500 times."""

    def __init__(self) -> None:
        self.buffer = bytearray()
        self._searched = 0

    def feed(self, chunk: bytes) -> list[bytes]:
        self.buffer += chunk
        events = []
        while (end := _event_end(self.buffer, self._searched)) is not None:
            events.append(bytes(self.buffer[:end]))
            del self.buffer[:end]
            self._searched = 0
        self._searched = max(0, len(self.buffer) - 3)
        return events

    def keep_last(self, count: int) -> None:
        """Forget all but the last ``count`` bytes of the event under way."""
        del self.buffer[: len(self.buffer) - count]
        self._searched = 0


def _event_end(buffer: bytearray, start: int) -> int | None:
    ends = [at + len(mark) for mark in EVENT_ENDS if (at := buffer.find(mark, start)) >= 0]
    return min(ends) if ends else None


def rewrite_listing_event(event: bytes) -> bytes:
    """``event`` with its data written again when it is a tool list with a tool nested
    too deep (see :func:`readable_listing`), else as it came."""
    text = event.decode("utf-8", "surrogateescape")
    lines = re.split(r"\r\n|\r|\n", text)
    data = "\n".join(line[5:].removeprefix(" ") for line in lines if line.startswith("data:"))
    readable = readable_listing(data) if data else None
    if readable is None:
        return event
    others = [line for line in lines if line and not line.startswith("data:")]
    return "\n".join([*others, f"data: {readable}"]).encode("utf-8", "surrogateescape") + b"\n\n"


async def readable_listing_body(chunks: AsyncIterator[bytes], events: bool) -> AsyncIterator[bytes]:
    """The body of an answer to ``tools/list``: a JSON one read whole (the SDK does
    too), an event stream event by event, each written again if need be."""
    if not events:
        body = b"".join([chunk async for chunk in chunks])
        readable = readable_listing(body.decode("utf-8", "surrogateescape"))
        yield body if readable is None else readable.encode("utf-8", "surrogateescape")
        return
    splitter = EventSplitter()
    async for chunk in chunks:
        for event in splitter.feed(chunk):
            yield rewrite_listing_event(event)
    if splitter.buffer:
        yield bytes(splitter.buffer)
