"""Connections to a provider that must not be used again."""

from __future__ import annotations

import contextlib

import httpx


async def drop_connection(response: httpx.Response) -> None:
    """Close the connection of a reply that went wrong instead of handing it back to
    the pool. A server whose Content-Length said less than it sent left the rest in
    the connection's buffer, and the next request on it read those bytes as its own
    answer ("illegal status line"): one bad reply cost the next one too."""
    stream = response.extensions.get("network_stream")
    close = getattr(stream, "aclose", None)
    if close is not None:
        with contextlib.suppress(Exception):
            await close()
