"""HTTP clients for MCP servers, with every answer's size capped.

A server reached over HTTP decides how long its answer is. The SDK reads an
``application/json`` body whole into memory: a body that never ends grew the
shell to 3 GB in 20 s. So every client the SDK gets from here counts the bytes of
each answer and stops at :data:`MAX_ANSWER_BYTES`, with an error naming the
server and what to do: a JSON body, and one event of an event stream (the SDK's
own cap of 1 MiB an event made a 2 MB result of a real server over streamable
HTTP fail, where over stdio it was read and cut to the usual cap; over the older
SSE transport it ended the whole connection, and there one event over the cap
fails its own call: see :mod:`.mcp_events`). The SDK
turns that error into the failure of the one request it answered (the handshake
or a tool call); the server's other requests go on.

It also decides when it stops answering. In the SDK (2.x) a transport error of one
POST (the server closed mid-answer, a body that lied in its Content-Length, a read
timeout) ended the whole connection: the server "exited" and all its tools with it.
So an answer that breaks after the server was reached fails only its own request,
with an error naming the server: a body that stalls for :data:`BODY_STALL` seconds
or breaks is a stream error the SDK gives that one request, and a POST that breaks
before its answer began gets a JSON-RPC error answer made here. A server that
cannot be reached at all (nothing listening) still ends the connection.

The SDK's HTTP library is ``httpx2`` in mcp 2.x and ``httpx`` in 1.x; both are
driven through the same names, so the one the installed SDK uses is looked up.
"""

from __future__ import annotations

import contextlib
import importlib
import inspect
import json
import urllib.parse
from collections.abc import AsyncIterator, Callable
from contextlib import AbstractAsyncContextManager
from typing import Any

import anyio

MAX_ANSWER_BYTES = 32 * 1024 * 1024
"""Bytes of one JSON answer kept in memory: far above a real one (a result is cut to
30,000 characters and 5 MB of images anyway; a list of hundreds of tools is about
1 MB), far below what hurts."""

BODY_STALL = 30.0
"""Seconds a JSON answer may pause once begun (the time before it begins is the
tool's: that is the SDK's read timeout, 300 s)."""

TOO_LARGE = "sent more than"
"""Part of the message of an answer cut at the cap (for :func:`describe_error`)."""


def sdk_httpx() -> Any:
    """The HTTP library the installed SDK's transports use (``httpx2`` or ``httpx``)."""
    utils = importlib.import_module("mcp.shared._httpx_utils")
    return getattr(utils, "httpx2", None) or importlib.import_module("httpx")


def too_large_message(server: str, limit: int = MAX_ANSWER_BYTES) -> str:
    return (f"the MCP server {server!r} {TOO_LARGE} {limit // (1024 * 1024)} MB in one answer; it was "
            "dropped. Ask for less, or remove the server from mcp_servers if it keeps doing this")


def capped_client_factory(
    server: str, limit: int = MAX_ANSWER_BYTES, refusals: list[str] | None = None, legacy: bool = False,
    on_lost: Callable[[str], None] | None = None,
) -> Callable[..., Any]:
    """A factory with the SDK's ``create_mcp_http_client`` signature whose clients cap
    every non-stream answer at ``limit`` bytes and keep a broken or stalled answer to
    its own request (see the module's docstring). ``refusals`` collects each HTTP
    error status the server answered with (the SDK says only "Server returned an
    error response"). ``legacy``: the older SSE transport, whose one event stream (a
    GET) carries every answer: an event over ``limit`` fails its own call only (see
    :class:`~shell.tools.mcp_events.EventCutter`; one whose id cannot be found is
    told to ``on_lost``). An answer to ``tools/list`` is read
    so that a tool nested too deep costs only itself (see :mod:`.mcp_events`)."""
    from .mcp_events import EventCutter, readable_listing_body  # it reads lists (mcp_results reads us)

    httpx = sdk_httpx()
    make = importlib.import_module("mcp.shared._httpx_utils").create_mcp_http_client
    body, guarded = _body_class(httpx, server, limit), _guarded_class(httpx, server)
    wrapped = _wrapped_class(httpx)
    sse_error = getattr(httpx, "SSEError", None) or httpx.StreamError

    async def cap(response: Any) -> None:
        kind = response.headers.get("content-type", "").lower()
        if response.status_code >= 400 and refusals is not None:
            what = f" ({kind.split(';')[0][:60]})" if kind else ""
            refusals.append(f"HTTP {response.status_code}{what}")
            del refusals[:-1]
        events = kind.startswith("text/event-stream")
        if legacy and events and response.request.method == "GET":
            said = lambda what: broken_message(server, what)  # noqa: E731
            cutter = EventCutter(limit, BODY_STALL, said, sse_error, on_lost)
            response.stream = wrapped(response.stream, cutter.events)
            return
        response.stream = body(response.stream, events)
        if _request_method(response.request) == "tools/list":
            response.stream = wrapped(response.stream, lambda chunks: readable_listing_body(chunks, events))

    def factory(headers: dict[str, str] | None = None, timeout: Any = None, auth: Any = None) -> Any:
        client = make(headers=headers, timeout=timeout, auth=auth)
        client.event_hooks["response"].append(cap)
        inner = getattr(client, "_transport", None)
        if inner is not None:
            client._transport = guarded(inner)
        return client

    return factory


def _body_class(httpx: Any, server: str, limit: int) -> Any:
    sse_error = getattr(httpx, "SSEError", None) or httpx.StreamError  # what the SDK's SSE reader reports

    class CappedStream(httpx.AsyncByteStream):  # type: ignore[misc]
        """The body of one answer: a JSON one raises once more than ``limit`` bytes
        came (the SDK caps each event of a stream), and either raises, naming the
        server, when it breaks or stalls for :data:`BODY_STALL` s part-way (in an
        event stream: inside an event; between events the SDK's read timeout holds)."""

        def __init__(self, inner: Any, events: bool) -> None:
            self._inner = inner
            self._events = events
            self._error = sse_error if events else httpx.StreamError

        async def __aiter__(self) -> AsyncIterator[bytes]:
            seen, tail, chunks, event = 0, b"", self._inner.__aiter__(), 0
            while True:
                mid_event = tail != b"" and not tail.endswith((b"\n\n", b"\r\n\r\n", b"\r\r"))
                try:
                    if self._events and not mid_event:  # between events: no cancel scope a chunk
                        chunk = await chunks.__anext__()
                    else:
                        with anyio.fail_after(BODY_STALL):
                            chunk = await chunks.__anext__()
                except StopAsyncIteration:
                    return
                except TimeoutError:
                    what = f"sent part of an answer, then nothing for {BODY_STALL:g} s"
                    raise self._error(broken_message(server, what)) from None
                except httpx.TransportError as exc:
                    what = f"broke off its answer ({_what(exc)})"
                    raise self._error(broken_message(server, what)) from None
                seen += len(chunk)
                if seen > limit and not self._events:
                    raise httpx.StreamError(too_large_message(server, limit))
                event = _event_size(event, tail, chunk) if self._events else 0
                if event > limit:  # one event (one answer) as large as a JSON body may be
                    raise self._error(too_large_message(server, limit))
                tail = (tail + chunk)[-4:] if self._events else b""
                yield chunk

        async def aclose(self) -> None:
            await self._inner.aclose()

    return CappedStream


def _event_size(size: int, tail: bytes, chunk: bytes) -> int:
    """Bytes of the event under way after ``chunk``: counted from the last blank line
    that ends an event (``size`` is the count before it; ``tail``, the last bytes
    before it, finds a blank line split between two chunks)."""
    seen = tail + chunk
    ends = [at + len(mark) for mark in (b"\n\n", b"\r\n\r\n", b"\r\r") if (at := seen.rfind(mark)) >= 0]
    return len(seen) - max(ends) if ends else size + len(chunk)


def _guarded_class(httpx: Any, server: str) -> Any:
    class Guarded(httpx.AsyncBaseTransport):  # type: ignore[misc]
        """A POST whose answer breaks before it began gets a JSON-RPC error answer
        for its request instead of an exception that ends the connection."""

        def __init__(self, inner: Any) -> None:
            self._inner = inner

        async def handle_async_request(self, request: Any) -> Any:
            try:
                return await self._inner.handle_async_request(request)
            except (httpx.ConnectError, httpx.ConnectTimeout):
                raise  # nothing there: the server is gone
            except httpx.TransportError as exc:
                ident = _request_id(request)
                if request.method != "POST" or ident is None:
                    raise
                message = broken_message(server, f"did not answer ({_what(exc)})")
                error = {"jsonrpc": "2.0", "id": ident, "error": {"code": -32000, "message": message}}
                return httpx.Response(502, json=error, request=request)

        async def aclose(self) -> None:
            await self._inner.aclose()

    return Guarded


STILL_CONNECTED = "this call failed, the server is still connected"
"""Part of :func:`broken_message`: the caller pings the server before it says so."""


def broken_message(server: str, what: str) -> str:
    return (f"the MCP server {server!r} {what}; {STILL_CONNECTED}. "
            "Try again; if it keeps happening, check the server")


def _what(exc: BaseException) -> str:
    text = str(exc).strip().split("\n", 1)[0][:160]
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


def _wrapped_class(httpx: Any) -> Any:
    class Wrapped(httpx.AsyncByteStream):  # type: ignore[misc]
        """A body passed through ``read`` (chunks in, chunks out)."""

        def __init__(self, inner: Any, read: Callable[[AsyncIterator[bytes]], AsyncIterator[bytes]]) -> None:
            self._inner = inner
            self._read = read

        async def __aiter__(self) -> AsyncIterator[bytes]:
            async for chunk in self._read(self._inner.__aiter__()):
                yield chunk

        async def aclose(self) -> None:
            await self._inner.aclose()

    return Wrapped


def unreachable(exc: BaseException, url: str, server: str) -> str:
    """What to do when nothing answers at a server's address (`` (…)``), or "" when that
    is not why ``exc`` happened. agent-shell starts a stdio server, never one it
    reaches over HTTP: "ConnectError: All connection attempts failed" after
    ``/mcp restart`` said neither that the server is not running nor who starts it."""
    while isinstance(exc, BaseExceptionGroup) and exc.exceptions:
        exc = exc.exceptions[0]
    if "Connect" not in type(exc).__name__:
        return ""
    try:  # no user, path or query: a token may be in them
        parts = urllib.parse.urlsplit(url)
        where = f"{parts.scheme}://{parts.hostname}{f':{parts.port}' if parts.port else ''}"
    except ValueError:
        where = "its address"
    return f" (nothing answers at {where}{start_it_yourself(server)})"


def start_it_yourself(server: str) -> str:
    return (f"; agent-shell does not start a server it reaches over HTTP: start it again, "
            f"then `/mcp restart {server}`")


def _request_method(request: Any) -> Any:
    """The JSON-RPC method a POST carries, or None."""
    try:
        data = json.loads(request.content) if request.method == "POST" else None
    except Exception:
        return None
    return data.get("method") if isinstance(data, dict) else None


def _request_id(request: Any) -> Any:
    """The JSON-RPC id of the request ``request`` carries, or None (a notification)."""
    try:
        data = json.loads(request.content)
    except Exception:
        return None
    return data.get("id") if isinstance(data, dict) else None


def streamable_http(
    server: str, url: str, headers: dict[str, str], refusals: list[str] | None = None,
) -> AbstractAsyncContextManager[Any]:
    """The SDK's streamable HTTP transport with a capped client, across the 1.x and
    2.x spellings (2.x takes a client, which is ours to close; 1.x a factory)."""
    module: Any = importlib.import_module("mcp.client.streamable_http")
    factory = capped_client_factory(server, refusals=refusals)
    modern = getattr(module, "streamable_http_client", None)
    if modern is None:  # mcp 1.x before the rename
        return module.streamablehttp_client(  # type: ignore[no-any-return]
            url, headers=headers or None, httpx_client_factory=factory
        )

    sized = "max_sse_event_size" in inspect.signature(modern).parameters
    events = {"max_sse_event_size": 2 * MAX_ANSWER_BYTES} if sized else {}  # ours cuts at MAX_ANSWER_BYTES

    @contextlib.asynccontextmanager
    async def connect() -> AsyncIterator[Any]:
        client = factory(headers=headers or None)
        async with client, modern(url, http_client=client, **events) as streams:
            yield streams

    return connect()


def sse(
    server: str, url: str, headers: dict[str, str], refusals: list[str] | None = None,
    on_lost: Callable[[str], None] | None = None,
) -> AbstractAsyncContextManager[Any]:
    """The SDK's (older) SSE transport with a capped client: its event stream reads
    events up to :data:`MAX_ANSWER_BYTES`, as streamable HTTP does (the SDK's 1 MiB
    ended the whole connection), and one over it fails its own call."""
    module: Any = importlib.import_module("mcp.client.sse")
    _lift_event_cap(module)
    factory = capped_client_factory(server, MAX_ANSWER_BYTES, refusals, legacy=True, on_lost=on_lost)
    return module.sse_client(url, headers=headers or None,  # type: ignore[no-any-return]
                             httpx_client_factory=factory)


def _lift_event_cap(module: Any) -> None:
    """Make the SDK's SSE transport open its event stream with a cap above ours (the
    cut is :class:`EventCutter`'s, per event, failing one call): ``sse_client`` takes
    no size, and opens the stream through this one name of its module."""
    opener = getattr(module, "sse_within_origin", None)
    if opener is None or getattr(opener, "agent_shell_lifted", False):
        return
    if "max_event_size" not in inspect.signature(opener).parameters:
        return  # an SDK without the cap

    def lifted(*args: Any, **kwargs: Any) -> Any:
        kwargs.setdefault("max_event_size", 2 * MAX_ANSWER_BYTES)
        return opener(*args, **kwargs)

    lifted.agent_shell_lifted = True  # type: ignore[attr-defined]
    module.sse_within_origin = lifted
