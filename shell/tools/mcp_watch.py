"""Every message between the SDK's session and its transport, watched both ways.

The SDK leaves some of what a server sends hanging: an answer it cannot read (it
logs it and the call waits for its timeout, 600 s), an answer to a request never
sent, a flood of requests it answers each in a task of its own, a tool list one
bad entry fails whole. :class:`Watcher` sits between the two and acts on these
before the SDK sees them.

Whose answer was lost is worked out, so that only its call fails: an answer that
cannot be read but whose id can be found (at either end, :mod:`.mcp_ids`) fails
that request at once, with an error answer made here; one with no id fails the
request it must have been for, which is known at once when one request waits,
else as soon as the others are answered (:class:`LostAnswer`). An answer for an
id nobody waits for is dropped; the calls under way go on. Such strays are counted,
never kept: a server sending 100,000 of them costs a counter, one log line (its text
through the one sanitiser: a stray's id is the server's text) and one notice to the
user (:attr:`Watcher.on_stray`), not one per stray.
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Callable
from typing import Any

import anyio
from anyio.abc import TaskGroup

from shell.core.textsafety import sanitize_line

from .mcp_listing import LenientListing
from .mcp_stdio import BadLine
from .mcp_wire import error_answer, first_line, lenient_answer, unwrap

MAX_ASKED = 64
"""Requests from a server (ping, roots, sampling) being answered at once."""
MAX_LOST = 64
"""Lost answers whose request is still being worked out (more are forgotten)."""

_log = logging.getLogger("mcp.agent_shell")
"""Under the SDK's logger, whose NullHandler keeps records off the user's terminal."""


class LostAnswer:
    """An answer that was lost with its id: it was for one of ``candidates`` (the
    requests waiting when it came); each answered or cancelled since was not it."""

    def __init__(self, candidates: set[Any], reason: str) -> None:
        self.candidates = candidates
        self.reason = reason


class Watcher:
    """The two watchers of one connection and what they have seen: the ids of the
    requests sent (an answer to any other is not an answer), of the tool calls and
    ``tools/list`` requests not answered yet, and of the server's own requests not
    answered yet."""

    def __init__(self, server: str, listing: LenientListing, on_unreadable: Callable[[str], None]) -> None:
        self.server = server
        self.sent: set[Any] = set()
        self.pending: set[Any] = set()
        """Our requests not answered (or cancelled) yet."""
        self.lost: list[LostAnswer] = []
        self.strays = 0
        """Answers nobody waited for (and lost answers with no call to fail): counted, not kept."""
        self.on_stray: Callable[[str], None] | None = None
        """Told at the first stray, with what it was (sanitised): the server shows one notice."""
        self._send: Any = None
        self._tg: TaskGroup | None = None
        self.tool_calls: set[Any] = set()
        self.list_calls: set[Any] = set()
        self.asked: set[Any] = set()
        self.listing = listing
        self.version: Callable[[], str | None] = lambda: None
        """The protocol version the handshake settled (the session's, once there is one)."""
        self._on_unreadable = on_unreadable
        """Told what broke while connecting (the server fails), and nothing else."""
        self.connecting = True
        self.on_list_changed: Callable[[], None] | None = None
        """Told when the server says its tool list changed (once it is connected)."""

    def watch_read(self, read: Any, tg: TaskGroup, on_end: Callable[[], None]) -> Any:
        """Pass the server's messages through, acting on what the SDK would leave
        hanging; ``on_end`` when the server's output closes."""
        send, receive = anyio.create_memory_object_stream[Any](0)
        self._send, self._tg = send, tg

        async def forward() -> None:
            async with send:
                try:
                    async for message in read:
                        if isinstance(message, Exception):
                            self._broken(message)
                        elif self._passes(message):
                            await send.send(message)
                except (anyio.ClosedResourceError, anyio.BrokenResourceError, anyio.EndOfStream):
                    pass
            on_end()

        tg.start_soon(forward)
        return receive

    def _broken(self, message: Exception) -> None:
        if isinstance(message, BadLine):
            if not message.notice:
                self.unreadable(str(message), message.ident)
        else:
            self.unreadable(f"an answer that cannot be read ({first_line(message)})")

    def _passes(self, message: Any) -> bool:
        """Whether ``message`` goes on to the SDK, acting on it on the way. Read once
        for what it is: a server may send thousands a second (progress)."""
        inner: Any = unwrap(message)
        kind = type(inner).__name__
        if kind == "JSONRPCNotification":
            method = getattr(inner, "method", None)
            if method == "notifications/tools/list_changed":
                if self.on_list_changed is not None and not self.connecting:
                    self.on_list_changed()
                return False  # the SDK has nothing to do with it
            return method != "notifications/message"  # logs are shown nowhere: each cost the SDK a task
        if kind == "JSONRPCRequest":
            return self._may_ask(inner)
        ident = getattr(inner, "id", None)
        if kind not in ("JSONRPCResponse", "JSONRPCError") or ident is None:
            return True
        if not self._answered(ident):
            return False
        if ident in self.tool_calls:
            self.tool_calls.discard(ident)
            lenient_answer(inner)
        elif ident in self.list_calls:
            self.list_calls.discard(ident)
            self._lenient_listing(inner)
        return True

    def watch_write(self, write: Any, tg: TaskGroup) -> Any:
        """Pass our messages on, noting the id of each request."""
        send, receive = anyio.create_memory_object_stream[Any](0)

        async def forward() -> None:
            async with receive:
                try:
                    async for message in receive:
                        inner = unwrap(message)
                        if type(inner).__name__ == "JSONRPCRequest":
                            ident = getattr(inner, "id", None)
                            self.sent.add(ident)
                            self.pending.add(ident)
                            method = getattr(inner, "method", None)
                            if method == "tools/call":
                                self.tool_calls.add(ident)
                            elif method == "tools/list":
                                self.list_calls.add(ident)
                        elif type(inner).__name__ == "JSONRPCNotification":
                            if getattr(inner, "method", None) == "notifications/cancelled":
                                params = getattr(inner, "params", None)
                                self._settled(getattr(params, "requestId", None)
                                              if not isinstance(params, dict) else params.get("requestId"))
                        else:  # an answer to one of the server's requests
                            self.asked.discard(getattr(inner, "id", None))
                        await write.send(message)
                except (anyio.ClosedResourceError, anyio.BrokenResourceError):
                    pass
            with contextlib.suppress(Exception):
                await write.aclose()

        tg.start_soon(forward)
        return send

    def _lenient_listing(self, inner: Any) -> None:
        """Take the entries the SDK would refuse out of an answer to ``tools/list``
        (see :mod:`.mcp_listing`): one of them failed the whole list."""
        result = getattr(inner, "result", None)
        if isinstance(result, dict):
            inner.result = self.listing.keep_valid(result, self.version())

    def _may_ask(self, inner: Any) -> bool:
        """Whether a request from the server is passed on: at most :data:`MAX_ASKED` at a
        time. The SDK answers each in a task of its own, so 50,000 pings sent without
        reading the answers held 600 MB and the event loop for seconds at a time; those
        over the bound are dropped (a server that waits for them waits)."""
        if len(self.asked) >= MAX_ASKED:
            return False
        self.asked.add(getattr(inner, "id", None))
        return True

    def _answered(self, ident: Any) -> bool:
        """Whether an answer for ``ident`` goes on to the SDK: for a request that
        waits, yes; for any other it is dropped (noted once), and nothing else fails."""
        if ident in self.pending:
            self._settled(ident)
            return True
        if ident in self.sent:
            return True  # a call cancelled meanwhile: the SDK drops its answer quietly
        self._stray("an answer to a request it was never sent", ident)
        return False

    def _stray(self, what: str, ident: Any = None) -> None:
        """Count a stray; the first is logged and told (nothing is built for the rest:
        a flood of them costs a counter)."""
        self.strays += 1
        if self.strays > 1:
            return
        shown = f"{what} (id {str(ident)[:40]})" if ident is not None else what
        said = sanitize_line(f"the MCP server {self.server!r} sent {shown}")
        _log.warning("%s; it was ignored, as any more will be (counted, not logged)", said)
        if self.on_stray is not None:
            with contextlib.suppress(Exception):
                self.on_stray(said)

    def unreadable(self, what: str, ident: Any = None) -> None:
        """An answer that cannot be read: its request fails, once known (see the module's
        docstring); while connecting, the server fails."""
        if self.connecting:
            self._on_unreadable(what)
            return
        reason = (f"the MCP server {self.server!r} sent {what}; the result is lost. Try again; "
                  "if it keeps happening, tell the server's author")
        if ident is not None:
            if ident in self.pending:
                self._fail(ident, reason)
            else:
                self._stray(what)
            return
        if not self.pending:
            self._stray(what)
            return
        if len(self.lost) < MAX_LOST:
            self.lost.append(LostAnswer(set(self.pending), reason))
        self._settle_lost()

    def _settled(self, ident: Any) -> None:
        """``ident`` was answered or cancelled: it was no lost answer's request."""
        self.pending.discard(ident)
        for lost in self.lost:
            lost.candidates.discard(ident)
        self._settle_lost()

    def _settle_lost(self) -> None:
        for lost in list(self.lost):
            if len(lost.candidates) <= 1:
                self.lost.remove(lost)
                for ident in lost.candidates:
                    self._fail(ident, lost.reason)

    def _fail(self, ident: Any, reason: str) -> None:
        """Fail the request ``ident`` with an error answer given to the SDK, as if the
        server had sent it (from any task: the stream takes it when the SDK reads)."""
        self.pending.discard(ident)
        for lost in self.lost:
            lost.candidates.discard(ident)
        send, tg = self._send, self._tg
        if send is None or tg is None:
            return
        message = error_answer(ident, reason)
        try:
            send.send_nowait(message)
        except anyio.WouldBlock:
            tg.start_soon(_send_later, send, message)
        except (anyio.ClosedResourceError, anyio.BrokenResourceError):
            pass


async def _send_later(send: Any, message: Any) -> None:
    with contextlib.suppress(anyio.ClosedResourceError, anyio.BrokenResourceError):
        await send.send(message)
