"""HTTP clients for MCP servers, with every answer's size capped.

A server reached over HTTP decides how long its answer is. The SDK caps one SSE
event at 1 MiB, but reads an ``application/json`` body whole into memory: a body
that never ends grew the shell to 3 GB in 20 s. So every client the SDK gets from
here counts the bytes of each answer that is not an event stream and stops at
:data:`MAX_ANSWER_BYTES`, with an error naming the server and what to do. The SDK
turns that error into the failure of the one request it answered (the handshake
or a tool call); the server's other requests go on.

The SDK's HTTP library is ``httpx2`` in mcp 2.x and ``httpx`` in 1.x; both are
driven through the same names, so the one the installed SDK uses is looked up.
"""

from __future__ import annotations

import contextlib
import importlib
from collections.abc import AsyncIterator, Callable
from contextlib import AbstractAsyncContextManager
from typing import Any

MAX_ANSWER_BYTES = 32 * 1024 * 1024
"""Bytes of one JSON answer kept in memory: far above a real one (a result is cut to
30,000 characters and 5 MB of images anyway; a list of hundreds of tools is about
1 MB), far below what hurts."""

TOO_LARGE = "sent more than"
"""Part of the message of an answer cut at the cap (for :func:`describe_error`)."""


def sdk_httpx() -> Any:
    """The HTTP library the installed SDK's transports use (``httpx2`` or ``httpx``)."""
    utils = importlib.import_module("mcp.shared._httpx_utils")
    return getattr(utils, "httpx2", None) or importlib.import_module("httpx")


def too_large_message(server: str, limit: int = MAX_ANSWER_BYTES) -> str:
    return (f"the MCP server {server!r} {TOO_LARGE} {limit // (1024 * 1024)} MB in one answer; it was "
            "dropped. Ask for less, or remove the server from mcp_servers if it keeps doing this")


def capped_client_factory(server: str, limit: int = MAX_ANSWER_BYTES) -> Callable[..., Any]:
    """A factory with the SDK's ``create_mcp_http_client`` signature whose clients cap
    every non-stream answer at ``limit`` bytes (see the module's docstring)."""
    httpx = sdk_httpx()
    make = importlib.import_module("mcp.shared._httpx_utils").create_mcp_http_client

    class CappedStream(httpx.AsyncByteStream):  # type: ignore[misc,name-defined]
        """The body of one answer, raising once more than ``limit`` bytes came."""

        def __init__(self, inner: Any) -> None:
            self._inner = inner

        async def __aiter__(self) -> AsyncIterator[bytes]:
            seen = 0
            async for chunk in self._inner:
                seen += len(chunk)
                if seen > limit:
                    raise httpx.StreamError(too_large_message(server, limit))
                yield chunk

        async def aclose(self) -> None:
            await self._inner.aclose()

    async def cap(response: Any) -> None:
        kind = response.headers.get("content-type", "").lower()
        if not kind.startswith("text/event-stream"):  # the SDK caps each event of a stream
            response.stream = CappedStream(response.stream)

    def factory(headers: dict[str, str] | None = None, timeout: Any = None, auth: Any = None) -> Any:
        client = make(headers=headers, timeout=timeout, auth=auth)
        client.event_hooks["response"].append(cap)
        return client

    return factory


def streamable_http(server: str, url: str, headers: dict[str, str]) -> AbstractAsyncContextManager[Any]:
    """The SDK's streamable HTTP transport with a capped client, across the 1.x and
    2.x spellings (2.x takes a client, which is ours to close; 1.x a factory)."""
    module: Any = importlib.import_module("mcp.client.streamable_http")
    factory = capped_client_factory(server)
    modern = getattr(module, "streamable_http_client", None)
    if modern is None:  # mcp 1.x before the rename
        return module.streamablehttp_client(  # type: ignore[no-any-return]
            url, headers=headers or None, httpx_client_factory=factory
        )

    @contextlib.asynccontextmanager
    async def connect() -> AsyncIterator[Any]:
        async with factory(headers=headers or None) as client, modern(url, http_client=client) as streams:
            yield streams

    return connect()


def sse(server: str, url: str, headers: dict[str, str]) -> AbstractAsyncContextManager[Any]:
    """The SDK's (older) SSE transport with a capped client for its POSTs' answers."""
    from mcp.client.sse import sse_client

    return sse_client(url, headers=headers or None, httpx_client_factory=capped_client_factory(server))
