"""Every message between the SDK's session and its transport, watched both ways.

The SDK leaves some of what a server sends hanging: an answer it cannot read (it
logs it and the call waits for its timeout, 600 s), an answer to a request never
sent, a flood of requests it answers each in a task of its own, a tool list one
bad entry fails whole. :class:`Watcher` sits between the two and acts on these
before the SDK sees them; what it finds wrong is handed to the server
(``on_unreadable``), which decides what fails.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from typing import Any

import anyio
from anyio.abc import TaskGroup

from .mcp_listing import LenientListing
from .mcp_stdio import BadLine
from .mcp_wire import first_line, is_log, lenient_answer, stray_answer, unwrap

MAX_ASKED = 64
"""Requests from a server (ping, roots, sampling) being answered at once."""


class Watcher:
    """The two watchers of one connection and what they have seen: the ids of the
    requests sent (an answer to any other is not an answer), of the tool calls and
    ``tools/list`` requests not answered yet, and of the server's own requests not
    answered yet."""

    def __init__(self, listing: LenientListing, on_unreadable: Callable[[str], None]) -> None:
        self.sent: set[Any] = set()
        self.tool_calls: set[Any] = set()
        self.list_calls: set[Any] = set()
        self.asked: set[Any] = set()
        self.listing = listing
        self.version: Callable[[], str | None] = lambda: None
        """The protocol version the handshake settled (the session's, once there is one)."""
        self._on_unreadable = on_unreadable

    def watch_read(self, read: Any, tg: TaskGroup, on_end: Callable[[], None]) -> Any:
        """Pass the server's messages through, acting on what the SDK would leave
        hanging; ``on_end`` when the server's output closes."""
        send, receive = anyio.create_memory_object_stream[Any](0)

        async def forward() -> None:
            async with send:
                try:
                    async for message in read:
                        if isinstance(message, BadLine):
                            self._on_unreadable(str(message))
                            continue
                        if isinstance(message, Exception):
                            self._on_unreadable(f"an answer that cannot be read ({first_line(message)})")
                            continue
                        stray = stray_answer(message, self.sent)
                        if stray is not None:
                            self._on_unreadable(f"an answer to a request it was never sent (id {stray})")
                            continue
                        if is_log(message):
                            continue  # not shown anywhere: a flood of them cost a task each in the SDK
                        if not self._may_ask(message):
                            continue
                        lenient_answer(message, self.tool_calls)
                        self._lenient_listing(message)
                        await send.send(message)
                except (anyio.ClosedResourceError, anyio.BrokenResourceError, anyio.EndOfStream):
                    pass
            on_end()

        tg.start_soon(forward)
        return receive

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
                            method = getattr(inner, "method", None)
                            if method == "tools/call":
                                self.tool_calls.add(ident)
                            elif method == "tools/list":
                                self.list_calls.add(ident)
                        else:  # an answer to one of the server's requests
                            self.asked.discard(getattr(inner, "id", None))
                        await write.send(message)
                except (anyio.ClosedResourceError, anyio.BrokenResourceError):
                    pass
            with contextlib.suppress(Exception):
                await write.aclose()

        tg.start_soon(forward)
        return send

    def _lenient_listing(self, message: Any) -> None:
        """Take the entries the SDK would refuse out of an answer to ``tools/list``
        (see :mod:`.mcp_listing`): one of them failed the whole list."""
        inner: Any = unwrap(message)
        ident = getattr(inner, "id", None)
        if ident is None or ident not in self.list_calls:
            return
        self.list_calls.discard(ident)
        result = getattr(inner, "result", None)
        if isinstance(result, dict):
            inner.result = self.listing.keep_valid(result, self.version())

    def _may_ask(self, message: Any) -> bool:
        """Whether a request from the server is passed on: at most :data:`MAX_ASKED` at a
        time. The SDK answers each in a task of its own, so 50,000 pings sent without
        reading the answers held 600 MB and the event loop for seconds at a time; those
        over the bound are dropped (a server that waits for them waits)."""
        inner = unwrap(message)
        if type(inner).__name__ != "JSONRPCRequest":
            return True
        if len(self.asked) >= MAX_ASKED:
            return False
        self.asked.add(getattr(inner, "id", None))
        return True
