"""The stdio transport for MCP servers: the SDK's protocol, lines read safely.

The SDK's ``stdio_client`` trusts the server's output in three ways that hurt:

- it joins the text it reads to what it holds (``buffer + chunk``) and splits the
  lot again for every chunk, so one 50 MB answer took 80 s of CPU (quadratic), and
  a line that never ends grew without bound;
- it decodes strictly: one byte that is not UTF-8 ended its reader, and every call
  waiting then hung until the 600 s tool timeout;
- a line pydantic cannot read (``"\\ud800"``, a lone surrogate, in a tool's
  description) is an error for the whole message, which failed the whole server.

So this module spawns the server like the SDK does (its own process group, the
SDK's inherited environment) and reads its output itself: bytes
split once at each newline, a line longer than :data:`MAX_LINE_BYTES` dropped with
an error naming the server, bytes decoded with U+FFFD for what is not UTF-8, lone
surrogates replaced the same way, and a line that is not JSON-RPC handed to the
session as a :class:`BadLine` that says so. Of its stderr the last 8 kB are kept
(:class:`StderrTail`), never shown over the screen. The session and everything above it
are the SDK's. On Windows the SDK's own transport is used (its process handling
there needs job objects); only the decoding is made lenient.
"""

from __future__ import annotations

import atexit
import contextlib
import json
import os
import re
import signal
import sys
import tempfile
import time
from collections.abc import AsyncIterator, Iterator, Mapping
from typing import IO, Any

import anyio
from anyio.abc import Process

from shell.core.deepjson import loads_any_depth
from shell.core.programs import resolve

from .mcp_http import MAX_ANSWER_BYTES
from .mcp_ids import SNIFF, is_notice, leading_id, trailing_id
from .mcp_listing import MAX_DEEP_LIST, shallow_entries

MAX_LINE_BYTES = MAX_ANSWER_BYTES
"""Bytes of one line (one JSON-RPC message) kept: the cap HTTP answers have."""
GRACE = 2.0
"""Seconds a server gets to exit after its stdin closes, and again after SIGTERM."""

_RUNNING: dict[int, Process] = {}
"""The servers whose shutdown has not finished, by process group (see :func:`_reap_at_exit`)."""


@atexit.register
def _reap_at_exit() -> None:
    """At exit, SIGTERM (then SIGKILL) the servers whose shutdown never finished: a
    front end that ends its event loop before the shutdown is done (the TUI quitting
    while a server was still connecting) left a server that ignores its closed stdin
    running on its own, in its own session, for as long as it liked."""
    groups = {group for group, process in _RUNNING.items() if _running(process)}
    for sig in (signal.SIGTERM, signal.SIGKILL):
        for group in list(groups):
            try:
                os.killpg(group, sig)
            except (ProcessLookupError, PermissionError):
                groups.discard(group)
        deadline = time.monotonic() + 0.5
        while groups and time.monotonic() < deadline:
            time.sleep(0.02)
            for group in list(groups):
                try:
                    os.killpg(group, 0)
                except (ProcessLookupError, PermissionError):
                    groups.discard(group)


def _running(process: Process) -> bool:
    try:
        return process.returncode is None  # a leader reaped may have had its pid reused
    except Exception:
        return True


class BadLine(Exception):
    """A line from the server that is no JSON-RPC message; its text says what it was.
    ``ident``: the id it begins or ends with (whose answer it was), if any;
    ``notice``: it is a request or notification, or an answer whose id is no id
    (a list, a number with a fraction): nobody waits for it."""

    def __init__(self, text: str, ident: Any = None, notice: bool = False) -> None:
        super().__init__(text)
        self.ident = ident
        self.notice = notice


def _read_bad(text: str, data: Any) -> BadLine:
    """A :class:`BadLine` for JSON the SDK refused, knowing what it is from ``data``."""
    if not isinstance(data, dict):
        return BadLine(text)
    ident = data.get("id")
    if "method" in data or ("id" in data and (type(ident) not in (int, str))):
        return BadLine(text, notice=True)
    return BadLine(text, ident)


def bad_line(text: str, head: bytes, tail: bytes = b"") -> BadLine:
    """A :class:`BadLine` saying ``text``, with what its first and last bytes tell."""
    ident = leading_id(head[:SNIFF])
    return BadLine(text, trailing_id(tail[-SNIFF:]) if ident is None else ident, is_notice(head))


class LineSplitter:
    """Bytes in, whole lines out, in linear time and bounded memory.

    Each chunk is searched for newlines once; a line that grows past ``limit``
    without one is dropped (up to its newline, whenever that comes) and reported
    in its place as a :class:`BadLine`."""

    def __init__(self, server: str, limit: int = MAX_LINE_BYTES) -> None:
        self._server = server
        self._limit = limit
        self._parts: list[bytes] = []
        self._size = 0
        self._skipping = False

    def feed(self, chunk: bytes) -> Iterator[bytes | BadLine]:
        start = 0
        while start < len(chunk):
            end = chunk.find(b"\n", start)
            if end < 0:
                self._hold(chunk[start:])
                if self._size > self._limit:
                    yield self._too_long()
                return
            if self._skipping:
                self._skipping = False
            else:
                self._hold(chunk[start:end])
                if self._size > self._limit:
                    yield self._too_long()
                    self._skipping = False
                else:
                    line = b"".join(self._parts)
                    self._parts, self._size = [], 0
                    yield line
            start = end + 1

    def _hold(self, piece: bytes) -> None:
        if not self._skipping and piece:
            self._parts.append(piece)
            self._size += len(piece)

    def _too_long(self) -> BadLine:
        head = b"".join(self._parts[:64])[:SNIFF]
        self._parts, self._size, self._skipping = [], 0, True
        size = f"{self._limit >> 20} MB" if self._limit >= 1 << 20 else f"{self._limit:,} bytes"
        what = (f"a line longer than {size} (it was dropped: ask for less, "
                f"or remove the server {self._server!r} from mcp_servers if it keeps doing this)")
        return bad_line(what, head)


_SURROGATE = re.compile("[\ud800-\udfff]")


def parse_line(line: bytes) -> Any:
    """One line as the SDK's ``SessionMessage``, or a :class:`BadLine` saying why not."""
    from mcp import types
    from mcp.shared.message import SessionMessage

    text = line.decode("utf-8", "replace")
    if not text.strip():
        return None
    adapter: Any = getattr(types, "jsonrpc_message_adapter", None)
    model: Any = types.JSONRPCMessage  # a model in mcp 1.x, a union (read through the adapter) in 2.x
    try:
        if adapter is not None:
            return SessionMessage(adapter.validate_json(text, by_name=False))
        return SessionMessage(model.model_validate_json(text))
    except ValueError as exc:
        first = exc
    data: Any = None
    try:  # JSON pydantic refuses, Python reads: a lone surrogate ("\ud800") is U+FFFD instead
        data = shallow_entries(_no_surrogates(_loads(text)))
        if adapter is not None:
            return SessionMessage(adapter.validate_python(data, by_name=False))
        return SessionMessage(model.model_validate(data))
    except (ValueError, RecursionError):
        pass
    what = f"a line that is not JSON-RPC ({_reason(first)}), starting {text[:60]!r}"
    return bad_line(what, line, line) if data is None else _read_bad(what, data)


def _loads(text: str) -> Any:
    """``json.loads``; for what looks like a tool list (bounded in size) at any depth,
    so that one tool nested too deep costs only itself (see :func:`shallow_entries`)."""
    try:
        return json.loads(text)
    except RecursionError:
        if len(text) > MAX_DEEP_LIST or '"tools"' not in text:
            raise
        return loads_any_depth(text)


def _reason(exc: Exception) -> str:
    errors = getattr(exc, "errors", None)
    if callable(errors):
        with contextlib.suppress(Exception):
            found = list(errors())
            if found:
                return str(found[0].get("msg", ""))[:160]
    return f"{type(exc).__name__}: {str(exc)[:160]}"


def _no_surrogates(data: Any) -> Any:
    """``data`` with every lone surrogate in its strings (keys too) made U+FFFD."""

    def fix(value: Any) -> Any:
        return _SURROGATE.sub("\ufffd", value) if isinstance(value, str) else value

    root = [data]
    stack: list[Any] = [root]
    while stack:
        node = stack.pop()
        items = node.items() if isinstance(node, dict) else enumerate(node)
        for key, value in list(items):
            if isinstance(node, dict) and isinstance(key, str) and _SURROGATE.search(key):
                del node[key]
                key = fix(key)
            node[key] = fix(value)
            if isinstance(value, (dict, list)):
                stack.append(value)
    return root[0]


PROGRESS_PER_SECOND = 50
"""Progress notifications a second that reach the session (the screen shows ten)."""


class ProgressGate:
    """Thins a server's progress notifications to :data:`PROGRESS_PER_SECOND`, before
    they are parsed: each one went through the SDK's validation, so a server sending
    200,000 kept a call (and a core) busy for minutes, long after the screen had
    stopped showing them. The last one held back is passed on before the next other
    message (the result), so the final count is still shown."""

    def __init__(self) -> None:
        self._second = 0.0
        self._count = 0
        self._held: bytes | None = None

    def feed(self, line: bytes | BadLine) -> list[bytes | BadLine]:
        """What to pass on now for ``line``: nothing (held back), or it, after the
        progress notification held back before it."""
        if isinstance(line, BadLine) or len(line) > 4096 or b'"notifications/progress"' not in line:
            held, self._held = self._held, None
            return [line] if held is None else [held, line]
        now = time.monotonic()
        if now - self._second >= 1.0:
            self._second, self._count = now, 0
        self._count += 1
        if self._count <= PROGRESS_PER_SECOND:
            return [line]
        self._held = line
        return []


def is_log_line(line: bytes | BadLine) -> bool:
    """Whether ``line`` is a server's log message (``notifications/message``), known
    without parsing it: nothing shows them, and each went through the SDK's
    validation first (5,000 of them cost the shell a second of CPU). A line with no
    ``"id"`` is no answer and no request, so an answer whose text quotes the method
    is never taken for one."""
    return (not isinstance(line, BadLine) and b'"notifications/message"' in line
            and b'"id"' not in line and b'"method"' in line)


class StderrTail:
    """The last :data:`STDERR_KEEP` bytes a server wrote on stderr: why it failed is
    usually there. Read from a pipe, so a server that writes without end costs
    neither memory nor disk (a file for it, as before, grew as long as it wrote)."""

    def __init__(self) -> None:
        self._data = bytearray()
        self._file: IO[bytes] | None = None
        self.done = anyio.Event()

    def add(self, chunk: bytes) -> None:
        self._data += chunk
        if len(self._data) > 2 * STDERR_KEEP:
            del self._data[:-STDERR_KEEP]

    def text(self, limit: int) -> str:
        if self._file is not None:  # pragma: no cover  (Windows: the SDK writes a file)
            with contextlib.suppress(OSError):
                self._file.seek(0, os.SEEK_END)
                self._file.seek(max(0, self._file.tell() - limit))
                self._data = bytearray(self._file.read())
        return bytes(self._data[-limit:]).decode("utf-8", "replace").strip()


STDERR_KEEP = 8192


@contextlib.asynccontextmanager
async def stdio(
    server: str, command: str, args: list[str], env: Mapping[str, str], cwd: str | None, stderr: StderrTail,
) -> AsyncIterator[tuple[Any, Any]]:
    """Run the server and yield the (read, write) streams ``ClientSession`` takes."""
    from mcp.client.stdio import StdioServerParameters, get_default_environment, stdio_client
    from mcp.shared.message import SessionMessage

    if sys.platform == "win32":  # pragma: no cover
        params = StdioServerParameters(command=command, args=args, env=dict(env) or None,
                                       cwd=cwd, encoding_error_handler="replace")
        with tempfile.TemporaryFile() as errlog:
            stderr._file = errlog
            async with stdio_client(params, errlog=errlog) as streams:  # type: ignore[arg-type]
                yield streams[0], streams[1]
        return
    environment = get_default_environment() | dict(env)
    process = await anyio.open_process([*resolve([command], environment.get("PATH")), *args],
                                       env=environment, cwd=cwd, start_new_session=True)
    _RUNNING[process.pid] = process

    async def errors() -> None:
        assert process.stderr is not None
        try:
            with contextlib.suppress(anyio.ClosedResourceError, anyio.BrokenResourceError, OSError):
                async for chunk in process.stderr:
                    stderr.add(chunk)
        finally:
            stderr.done.set()
    to_session, read = anyio.create_memory_object_stream[Any](0)
    write, from_session = anyio.create_memory_object_stream[SessionMessage](0)

    async def reader() -> None:
        assert process.stdout is not None
        splitter, listening, gate = LineSplitter(server), True, ProgressGate()
        async with to_session:
            with contextlib.suppress(anyio.ClosedResourceError, anyio.BrokenResourceError, OSError):
                async for chunk in process.stdout:
                    lines = (fed for fed in splitter.feed(chunk) if not is_log_line(fed))
                    for line in (kept for fed in lines for kept in gate.feed(fed)):
                        message = line if isinstance(line, BadLine) else parse_line(line)
                        if message is None or not listening:
                            continue  # read on without a listener: a server blocked writing cannot exit
                        try:
                            await to_session.send(message)
                        except (anyio.ClosedResourceError, anyio.BrokenResourceError):
                            listening = False
            with anyio.move_on_after(1):  # its last words on stderr, before the session hears it ended
                await stderr.done.wait()

    async def writer() -> None:
        assert process.stdin is not None
        try:
            async with from_session:
                async for message in from_session:
                    data = message.message.model_dump_json(by_alias=True, exclude_unset=True)
                    await process.stdin.send((data + "\n").encode("utf-8", "surrogatepass"))
        except (anyio.ClosedResourceError, anyio.BrokenResourceError, OSError):
            await to_session.aclose()  # the session sees the end instead of waiting forever

    async with anyio.create_task_group() as tg:
        tg.start_soon(errors)
        tg.start_soon(reader)
        tg.start_soon(writer)
        try:
            yield read, write
        finally:
            with anyio.CancelScope(shield=True):
                write.close()
                read.close()
                await _stop(process)
            tg.cancel_scope.cancel()


async def _stop(process: Process) -> None:
    """Close the server's stdin, give it :data:`GRACE` to exit, then SIGTERM its
    process group, and SIGKILL it after as long again (every wait bounded)."""
    with contextlib.suppress(OSError, anyio.BrokenResourceError, anyio.ClosedResourceError):
        if process.stdin is not None:
            await process.stdin.aclose()
    for sig in (None, signal.SIGTERM, signal.SIGKILL):
        if sig is not None:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(process.pid, sig)
        with anyio.move_on_after(GRACE):
            while process.returncode is None:  # noqa: ASYNC110  # not wait(): a child holding the pipes blocks it
                await anyio.sleep(0.01)
        if process.returncode is not None:
            break
    with contextlib.suppress(OSError, anyio.BrokenResourceError, anyio.ClosedResourceError):
        if process.stdout is not None:
            await process.stdout.aclose()
        if process.stderr is not None:
            await process.stderr.aclose()
    with contextlib.suppress(Exception), anyio.move_on_after(GRACE):
        await process.aclose()
    if process.returncode is not None:
        _RUNNING.pop(process.pid, None)
