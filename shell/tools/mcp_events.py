"""Whole events of an MCP server's HTTP answers, where one must be seen whole.

Two answers are read here event by event before the SDK sees them:

* an answer to ``tools/list`` (a JSON body, or the events of a streamable HTTP
  answer): the SDK reads it whole with a parser that gives up around 200 levels, so
  one tool whose schema nested 3,000 deep failed the server with all its tools.
  Such an answer is written again with that tool replaced by a stand-in the
  listing names (:func:`~shell.tools.mcp_listing.readable_listing`);
* the event stream of the older SSE transport, which carries every answer of the
  connection: the SDK cut an event at 1 MiB and ended the whole connection (a
  2 MB result, which stdio reads and cuts to 30,000 characters, lost the server).
  Events up to the cap pass; one over it is dropped and replaced by an error
  answer to its request, naming the server, so only that call fails
  (:class:`EventCutter`).
"""

from __future__ import annotations

import json
import re
from collections.abc import AsyncIterator, Callable
from typing import Any

import anyio

from .mcp_ids import SNIFF, is_notice, leading_id, trailing_id
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


class EventCutter:
    """The older SSE transport's event stream, with each event over ``limit`` bytes
    replaced by an error answer to its request (``message(what)`` says what happened,
    naming the server). The request is the one whose id the event begins with (the
    Python SDK's order) or ends with (the TypeScript SDK's); with neither, the event is
    dropped and ``on_lost`` is told what it was (the connection works out whose answer it
    was, see :mod:`.mcp_watch`), unless it began as a notification. An event
    stalled for ``stall`` seconds part-way ends the stream with ``error`` (a read cut
    short cannot be resumed; the SDK ends the connection, as it did after 300 s)."""

    def __init__(
        self, limit: int, stall: float, message: Callable[[str], str], error: Callable[[str], Exception],
        on_lost: Callable[[str], None] | None = None,
    ) -> None:
        self._limit = limit
        self._stall = stall
        self._message = message
        self._error = error
        self._on_lost = on_lost
        self._splitter = EventSplitter()
        self._head = b""
        self._tail = b""
        self._told: Any = None
        self._what = ""
        self._dropping = False

    async def events(self, chunks: AsyncIterator[bytes]) -> AsyncIterator[bytes]:
        iterator = chunks.__aiter__()
        while True:
            mid_event = self._dropping or bool(self._splitter.buffer.strip())  # not between events
            try:
                with anyio.fail_after(self._stall if mid_event else None):
                    chunk = await iterator.__anext__()
            except StopAsyncIteration:
                return
            except TimeoutError:  # a read cut short cannot be resumed: the stream ends here
                what = f"sent part of an answer, then nothing for {self._stall:g} s"
                raise self._error(self._message(what)) from None
            for out in self._feed(chunk):
                yield out

    def _feed(self, chunk: bytes) -> list[bytes]:
        out = []
        for event in self._splitter.feed(chunk):
            if self._dropping:  # the end of the event being dropped
                self._tail = (self._tail + event)[-SNIFF:]
                out.append(self._finish())
            elif len(event) > self._limit:  # it came whole, in one chunk
                self._head, self._tail, self._told = event[:SNIFF], event[-SNIFF:], None
                self._what = self._too_large()
                ident = leading_id(self._head, event=True)
                ident = trailing_id(self._tail) if ident is None else ident
                out.append(self._lost() if ident is None else self._stand_in(ident))
            else:
                out.append(event)
        if self._dropping:
            self._trim()
        elif len(self._splitter.buffer) > self._limit:
            out.append(self._drop(self._too_large()))
        return [event for event in out if event]

    def _too_large(self) -> str:
        return f"sent more than {self._limit // (1024 * 1024)} MB in one answer"

    def _trim(self) -> None:
        """Keep only the last bytes of the event being dropped (for its id), and in the
        splitter the line endings a blank line split across two chunks begins with."""
        buffer = self._splitter.buffer
        keep = min(3, len(buffer) - len(buffer.rstrip(b"\r\n")))
        self._tail = (self._tail + bytes(buffer[: len(buffer) - keep]))[-SNIFF:]
        self._splitter.keep_last(keep)

    def _drop(self, what: str) -> bytes:
        """Start dropping the event under way; its stand-in if its id is known already."""
        if not self._dropping:
            self._head = bytes(self._splitter.buffer[:SNIFF])
            self._tail = b""
            self._dropping, self._what, self._told = True, what, None
            self._trim()
        ident = leading_id(self._head, event=True)
        if ident is None or self._told is not None:
            return b""
        self._told = ident
        return self._stand_in(ident)

    def _finish(self) -> bytes:
        """The dropped event ended: its stand-in, unless one was sent."""
        self._dropping = False
        if self._told is not None:
            return b""
        ident = trailing_id(self._tail)
        return self._lost() if ident is None else self._stand_in(ident)

    def _lost(self) -> bytes:
        """A dropped event with no id at either end: whoever waits for an answer is told."""
        if self._on_lost is not None and not is_notice(self._head):
            self._on_lost(self._what.removeprefix("sent "))
        return b""

    def _stand_in(self, ident: Any) -> bytes:
        error = {"code": -32000, "message": self._message(self._what)}
        answer = json.dumps({"jsonrpc": "2.0", "id": ident, "error": error})
        return f"event: message\ndata: {answer}\n\n".encode()
