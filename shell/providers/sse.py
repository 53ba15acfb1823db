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

What a hostile or broken server cannot do here: grow a line or an event without
end (``max_line`` bytes, then :class:`StreamLimit`), or keep a stream open with
keep-alives alone (``idle``: the seconds a stream may send only comments, blank
lines and ``ping`` events, then :class:`StreamIdle`), or crash the reader with JSON
nested too deep (:func:`parse_json` says so as a :class:`MalformedLine`).
"""

from __future__ import annotations

import itertools
import json
import time
from collections.abc import AsyncIterable, AsyncIterator
from dataclasses import dataclass
from typing import Any

from shell.core.deepjson import loads_any_depth
from shell.core.textsafety import json_text

MAX_LINE = 8 * 1024 * 1024
"""Bytes one line (or one event's data) may hold: far above any real chunk (a whole
tool call's arguments in one event included), far below what would hurt memory."""


class StreamLimit(ValueError):
    """A stream broke one of our bounds; ``str()`` says which, for people."""


class StreamIdle(TimeoutError):
    """A stream sent only keep-alives for ``seconds``."""

    def __init__(self, seconds: float) -> None:
        super().__init__(f"only keep-alives for {seconds:g}s")
        self.seconds = seconds


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

    __slots__ = ("_after_cr", "_buf", "max_line")

    def __init__(self, max_line: int = MAX_LINE) -> None:
        self._buf = b""
        self._after_cr = False
        self.max_line = max_line

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
            if len(self._buf) > self.max_line:
                self._buf = b""
                raise StreamLimit(f"a line longer than {_size(self.max_line)} without a line end")
        return lines

    def flush(self) -> list[bytes]:
        """The unterminated last line, if any (end of stream)."""
        rest, self._buf = self._buf, b""
        return [rest] if rest else []


class SSEDecoder:
    """Turns lines into :class:`SSEEvent` values (the SSE interpretation rules)."""

    __slots__ = ("_data", "_event", "_id", "_size", "max_event")

    def __init__(self, max_event: int = MAX_LINE) -> None:
        self._data: list[str] = []
        self._event = ""
        self._id: str | None = None
        self._size = 0
        self.max_event = max_event

    def line(self, raw: bytes) -> SSEEvent | None:
        """Process one line; return an event when a blank line dispatches one."""
        if not raw:
            return self._dispatch()
        # Fast path: nearly every line of a model stream is "data: {...}".
        if raw[:6] == b"data: ":
            self._data.append(raw[6:].decode("utf-8", "replace"))
            if len(self._data) > 1:
                self._grow(len(raw))
            return None
        if raw[:1] == b":":
            return None  # comment / keep-alive
        text = raw.decode("utf-8", "replace")
        name, sep, value = text.partition(":")
        if sep and value[:1] == " ":
            value = value[1:]
        if name == "data":
            self._data.append(value)
            self._grow(len(raw))
        elif name == "event":
            self._event = value
        elif name == "id" and "\0" not in value:
            self._id = value
        # "retry" and unknown fields are ignored, as the spec says.
        return None

    def _grow(self, n: int) -> None:
        self._size += n
        if self._size > self.max_event:
            self._data, self._size = [], 0
            raise StreamLimit(f"an event longer than {_size(self.max_event)} (data lines without an end)")

    def _dispatch(self) -> SSEEvent | None:
        self._size = 0
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


async def iter_sse(
    chunks: AsyncIterable[bytes], *, idle: float | None = None, max_line: int = MAX_LINE
) -> AsyncIterator[SSEEvent]:
    """Server-sent events from an async iterable of byte chunks (``response.aiter_bytes()``).

    With ``idle``, a stream that sends nothing but keep-alives (comments, blank
    lines, ``ping`` events) for that many seconds raises :class:`StreamIdle`; the
    clock is read only when a keep-alive arrives, so real events cost nothing."""
    splitter = LineSplitter(max_line)
    decoder = SSEDecoder(max_line)
    line = decoder.line
    clock = time.monotonic
    last = clock()
    async for chunk in chunks:
        events = 0
        for raw in splitter.feed(chunk):
            event = line(raw)
            if event is not None:
                if event.event != "ping":
                    events += 1
                yield event
        if idle is not None:
            if events:
                last = clock()
            elif clock() - last > idle:
                raise StreamIdle(idle)
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

    def __init__(self, line: str, problem: str = "is not valid JSON") -> None:
        super().__init__(f"malformed line: {line[:200]!r}")
        self.line = line
        self.problem = problem


class MalformedField(ValueError):
    """A stream event that is valid JSON with a field of the wrong shape (a tool
    call's name that is an object, a choice that is a string): ``what`` says which."""

    def __init__(self, what: str, value: Any) -> None:
        shown = json_text(value)
        super().__init__(f"{what}: {shown[:80]}")
        self.what = what
        self.value = shown[:80]


def expect(value: Any, kind: type | tuple[type, ...], what: str) -> Any:
    """``value`` when it is None or of ``kind``; else :class:`MalformedField`."""
    if value is None or (isinstance(value, kind) and not (isinstance(value, bool) and kind is int)):
        return value
    raise MalformedField(what, value)


def parse_json(text: str, *, any_depth: bool = False) -> Any:
    """``json.loads`` that raises :class:`MalformedLine` (with the text) on garbage,
    and on JSON nested deeper than Python's recursion limit (never a bare
    ``RecursionError``). ``any_depth``: read such a line anyway, without
    recursion (:func:`~shell.core.deepjson.loads_any_depth`), for formats that
    embed a tool call's arguments as an object, where the depth is the model's
    doing and belongs to that one call (its argument error), not to the reply."""
    try:
        return json.loads(text)
    except ValueError:
        raise MalformedLine(text) from None
    except RecursionError:
        if any_depth:
            try:
                return loads_any_depth(text)
            except (ValueError, IndexError):
                raise MalformedLine(text) from None
        raise MalformedLine(text, "is nested too deep to read") from None


async def iter_ndjson(chunks: AsyncIterable[bytes], *, max_line: int = MAX_LINE) -> AsyncIterator[Any]:
    """One JSON value per non-blank line (Ollama's native streaming format). A
    line may nest as deep as its tool call's arguments do (bounded by
    ``max_line``), so depth alone never stops the reply."""
    splitter = LineSplitter(max_line)
    async for chunk in chunks:
        for raw in splitter.feed(chunk):
            if raw.strip():
                yield parse_json(raw.decode("utf-8", "replace"), any_depth=True)
    for raw in splitter.flush():
        if raw.strip():
            yield parse_json(raw.decode("utf-8", "replace"), any_depth=True)


def _size(n: int) -> str:
    return f"{n // (1024 * 1024)} MiB" if n >= 1024 * 1024 else f"{n:,} bytes"
