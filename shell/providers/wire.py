"""The bytes of one streamed reply as every HTTP provider reads them, and what a
server's numbers and chunks are taken to mean.

Kept apart from :mod:`shell.providers.base` (the request, the retries, the errors)
because each provider's parser reads from a :class:`Wire` and counts tokens with
:func:`token_count`, and the bounds here are the ones a flooding or hostile server
meets first.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import anyio
import anyio.lowlevel
import httpx

from shell.core.model import ModelChunk, TextDelta, ThinkingDelta, ToolCallDelta

from .sse import StreamLimit

MAX_REPLY_BYTES = 64 * 1024 * 1024
"""Wire bytes of one reply: ~200 bytes of JSON per streamed token puts a 128k-token
answer near 30 MB; past this the server is not answering, it is flooding."""
MAX_TOKEN_COUNT = 1 << 40
"""Far beyond any context window; a count above it is not a count."""


def token_count(value: Any) -> int | None:
    """A token count from a server: a whole number in [0, 2**40], or None when the value
    is anything else (absent or null counts 0, as servers leave out what is zero)."""
    if value is None:
        return 0
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    if value != value or not 0 <= value <= MAX_TOKEN_COUNT or int(value) != value:
        return None
    return int(value)


class Wire:
    """The bytes of one streamed response: counted, bounded, and cancellable
    between network chunks (a provider that floods never makes the event loop
    wait for a cancel: reads that find data already buffered do not yield)."""

    __slots__ = ("head", "limit", "received", "response")

    def __init__(self, response: httpx.Response, limit: int = MAX_REPLY_BYTES) -> None:
        self.response = response
        self.limit = limit
        self.received = 0
        self.head = b""
        """The first bytes, to say what a stream that made no sense was."""

    async def __aiter__(self) -> AsyncIterator[bytes]:
        checkpoint = anyio.lowlevel.checkpoint_if_cancelled
        async for chunk in self.response.aiter_bytes():
            if not self.received:
                self.head = chunk[:4096]
            self.received += len(chunk)
            if self.received > self.limit:
                raise StreamLimit(f"more than {self.limit // (1024 * 1024)} MiB in one reply")
            await checkpoint()
            yield chunk


def says_something(chunk: ModelChunk) -> bool:
    """Text, thinking or a tool call: what makes a reply not empty."""
    if isinstance(chunk, ToolCallDelta):
        return True
    return isinstance(chunk, (TextDelta, ThinkingDelta)) and bool(chunk.text)
