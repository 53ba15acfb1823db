"""Server-sent events and NDJSON over an async byte stream.

Every streaming provider funnels through here, once per network chunk, so this
is the hot path: the line splitter works on ``bytes`` with ``bytes.splitlines``
(C speed, and it treats ``\\r``, ``\\n`` and ``\\r\\n`` alike, as the SSE spec
wants), decodes only complete lines (so a UTF-8 character split across two
network chunks is never broken), and allocates one small object per event.
``benchmarks/provider_stream.py`` measures it against reading the bytes raw.

What the SSE reader handles (https://html.spec.whatwg.org/#event-stream-interpretation):
CR, LF and CRLF line ends, also a CRLF split across two chunks; several
``data:`` lines joined with ``\\n``; ``:`` comment lines (keep-alives); ``event:``
names; ``id:``; blank keep-alive lines between events; an event left without a
final blank line at the end of the stream (dispatched leniently, because real
servers and recorded fixtures end that way). ``[DONE]`` is passed through as an
ordinary event: whether it ends the stream is the provider's business.
"""

from __future__ import annotations

import itertools
import json
from collections.abc import AsyncIterable, AsyncIterator
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True, slots=True)
class SSEEvent:
    """One dispatched event. ``event`` is ``"message"`` when no ``event:`` line came."""

    data: str
    event: str = "message"
    id: str | None = None


class LineSplitter:
    """Incremental splitter: ``feed(bytes)`` returns the complete lines so far.

    A line is complete once its terminator arrived. A trailing ``\\r`` counts as
    complete at once, and a ``\\n`` opening the next chunk is then dropped, so a
    CRLF split across chunks yields one line, not an extra blank one.
    """

    __slots__ = ("_after_cr", "_buf")

    def __init__(self) -> None:
        self._buf = b""
        self._after_cr = False

    def feed(self, chunk: bytes) -> list[bytes]:
        if not chunk:
            return []
        if self._after_cr:
            self._after_cr = False
            if chunk[:1] == b"\n":
                chunk = chunk[1:]
        data = self._buf + chunk if self._buf else chunk
        if not data:
            return []
        lines = data.splitlines()
        last = data[-1]
        if last == 13:  # b"\r"
            self._after_cr = True
            self._buf = b""
        elif last == 10:  # b"\n"
            self._buf = b""
        else:
            self._buf = lines.pop()
        return lines

    def flush(self) -> list[bytes]:
        """The unterminated last line, if any (end of stream)."""
        rest, self._buf = self._buf, b""
        return [rest] if rest else []


class SSEDecoder:
    """Turns lines into :class:`SSEEvent` values (the SSE interpretation rules)."""

    __slots__ = ("_data", "_event", "_id")

    def __init__(self) -> None:
        self._data: list[str] = []
        self._event = ""
        self._id: str | None = None

    def line(self, raw: bytes) -> SSEEvent | None:
        """Process one line; return an event when a blank line dispatches one."""
        if not raw:
            return self._dispatch()
        # Fast path: nearly every line of a model stream is "data: {...}".
        if raw[:6] == b"data: ":
            self._data.append(raw[6:].decode("utf-8", "replace"))
            return None
        if raw[:1] == b":":
            return None  # comment / keep-alive
        text = raw.decode("utf-8", "replace")
        name, sep, value = text.partition(":")
        if sep and value[:1] == " ":
            value = value[1:]
        if name == "data":
            self._data.append(value)
        elif name == "event":
            self._event = value
        elif name == "id" and "\0" not in value:
            self._id = value
        # "retry" and unknown fields are ignored, as the spec says.
        return None

    def _dispatch(self) -> SSEEvent | None:
        if not self._data:
            self._event = ""
            return None
        data = self._data[0] if len(self._data) == 1 else "\n".join(self._data)
        event = SSEEvent(data, self._event or "message", self._id)
        self._data = []
        self._event = ""
        return event

    def end(self) -> SSEEvent | None:
        """End of stream: dispatch a pending event that lacked its blank line."""
        return self._dispatch()


async def iter_sse(chunks: AsyncIterable[bytes]) -> AsyncIterator[SSEEvent]:
    """Server-sent events from an async iterable of byte chunks (``response.aiter_bytes()``)."""
    splitter = LineSplitter()
    decoder = SSEDecoder()
    line = decoder.line
    async for chunk in chunks:
        for raw in splitter.feed(chunk):
            event = line(raw)
            if event is not None:
                yield event
    for raw in splitter.flush():
        event = line(raw)
        if event is not None:
            yield event
    event = decoder.end()
    if event is not None:
        yield event


def decode_sse(data: bytes, *, splits: list[int] | None = None) -> list[SSEEvent]:
    """Synchronous helper: all events of ``data``, fed in pieces cut at ``splits``."""
    cuts = [0, *sorted(splits or []), len(data)]
    splitter = LineSplitter()
    decoder = SSEDecoder()
    out: list[SSEEvent] = []
    pieces = [data[a:b] for a, b in itertools.pairwise(cuts)]
    for piece in pieces:
        for raw in splitter.feed(piece):
            ev = decoder.line(raw)
            if ev is not None:
                out.append(ev)
    for raw in splitter.flush():
        ev = decoder.line(raw)
        if ev is not None:
            out.append(ev)
    ev = decoder.end()
    if ev is not None:
        out.append(ev)
    return out


class MalformedLine(ValueError):
    """A stream line that is not the JSON it should be; ``line`` is the offending text."""

    def __init__(self, line: str) -> None:
        super().__init__(f"malformed line: {line[:200]!r}")
        self.line = line


def parse_json(text: str) -> Any:
    """``json.loads`` that raises :class:`MalformedLine` (with the text) on garbage."""
    try:
        return json.loads(text)
    except ValueError:
        raise MalformedLine(text) from None


async def iter_ndjson(chunks: AsyncIterable[bytes]) -> AsyncIterator[Any]:
    """One JSON value per non-blank line (Ollama's native streaming format)."""
    splitter = LineSplitter()
    async for chunk in chunks:
        for raw in splitter.feed(chunk):
            if raw.strip():
                yield parse_json(raw.decode("utf-8", "replace"))
    for raw in splitter.flush():
        if raw.strip():
            yield parse_json(raw.decode("utf-8", "replace"))
