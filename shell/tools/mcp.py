"""MCP servers as tools: connected in the background, each one on its own.

:class:`McpManager` starts one task per server in a task group the caller owns
(the app's), so the first frame never waits for a slow ``npx``. Each server moves
through ``connecting`` → ``ready`` and may end ``failed`` (it never got ready:
bad command, handshake error, timeout) or ``exited`` (it went away later). Every
change is recorded in :class:`ServerStatus` with a message and passed to
``on_change``; one server's trouble never touches the others.

Tools appear as ``SERVER__tool`` with the server's ``inputSchema``. Annotations
are hints: ``readOnlyHint`` makes a tool's kind ``read`` (the permission policy
lets it run unasked only for a server the user configured or trusted),
``destructiveHint`` always asks, ``openWorldHint: true`` makes it a network
(``fetch``) tool. A call to a server that is gone
returns an error result saying so instead of raising or hanging.

Built on the official ``mcp`` SDK's ``ClientSession`` with its stdio, streamable
HTTP and SSE transports; results are read through ``model_dump(by_alias=True)`` so
the code does not depend on one SDK version's attribute names.
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Callable, Iterable, Mapping
from contextlib import AbstractAsyncContextManager, AsyncExitStack
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Literal

import anyio
import anyio.to_thread
from anyio.abc import TaskGroup

from shell.core.messages import ToolResult
from shell.core.tools import Tool, ToolContext

from . import mcp_http
from .mcp_config import McpServerSpec, merge_specs, parse_servers
from .mcp_deadline import Deadline, expired_text, waiting_reports, within
from .mcp_http import STILL_CONNECTED
from .mcp_listing import LenientListing, list_all_tools, refusal_note
from .mcp_results import (
    connection_lost,
    convert_result,
    describe_error,
    server_name_problem,
    server_prefix,
    tool_name,
    with_schema_problem,
)
from .mcp_schema import refuse_unusable
from .mcp_stdio import BadLine, StderrTail, stdio
from .mcp_wire import first_line, is_log, lenient_answer, stray_answer

logging.getLogger("mcp").addHandler(logging.NullHandler())
"""The SDK logs a server's garbage with a traceback; with no handler anywhere Python
would print it on the user's terminal (over the line mode's prompt or the TUI). What
went wrong reaches the user as the server's state or the call's error instead; a
front end that configures logging (ACP's log on stderr) still gets the records."""

State = Literal["connecting", "ready", "failed", "exited", "stopped"]
CONNECT_TIMEOUT = 60.0
MAX_ASKED = 64
"""Requests from a server (ping, roots, sampling) being answered at once."""
PROGRESS_EVERY = 0.1
"""Seconds between two progress reports of one call passed on (the last one always is)."""
STDERR_TAIL = 1500
PING_TIMEOUT = 5.0
"""Seconds a server whose answer broke off has to answer a ping before the call says so."""


@dataclass(frozen=True, slots=True)
class ServerStatus:
    """Where one server stands; ``message`` says why it failed or exited."""

    name: str
    state: State
    message: str = ""
    transport: str = "stdio"
    tools: int = 0
    origin: str = "config"


class McpTool(Tool):
    """One tool of one MCP server; calls go through the server's live session."""

    def __init__(self, server: McpServer, info: Mapping[str, Any]) -> None:
        annotations = info.get("annotations") or {}
        if not isinstance(annotations, Mapping):
            annotations = {}
        schema = info.get("inputSchema") or {"type": "object", "properties": {}}
        self.destructive = annotations.get("destructiveHint") is True
        """The server says a call may destroy something: the policy always asks."""
        read_only = annotations.get("readOnlyHint") is True and not self.destructive
        network = annotations.get("openWorldHint") is True
        super().__init__(
            tool_name(server.spec.name, str(info["name"])),
            str(info.get("description") or info.get("title") or ""),
            dict(schema),
            read_only=read_only and not network,
            kind="fetch" if network else "read" if read_only else "other",
        )
        self.hints_trusted = _hints_trusted(server.spec)
        """Whether ``readOnlyHint`` may lower the ask: only for a server the user
        configured (or a project server in a workspace the user trusted); a hint
        from anyone else is a claim, not a fact."""
        self.server_name = server.spec.name
        self.remote_name = str(info["name"])
        self.source = f"mcp:{server.spec.name}"
        self._server = server

    async def run(self, args: dict[str, Any], context: ToolContext) -> ToolResult:
        return await self._server.call(self.remote_name, args, context)


USER_ORIGINS = ("config", "editor")
"""Servers the user named themselves: in their config, or in their editor (ACP)."""


def _hints_trusted(spec: McpServerSpec) -> bool:
    """A server the user configured, or a project's server in a workspace the user
    trusted (checked now: the trust is per file hash)."""
    if spec.origin in USER_ORIGINS:
        return True
    if spec.cwd is None:
        return False
    from shell.permissions.trust import is_trusted

    try:
        return is_trusted(spec.cwd)
    except Exception:  # an unreadable trust store trusts nothing
        return False


class McpServer:
    """The connection to one server, for its whole life (one task)."""

    def __init__(self, spec: McpServerSpec, notify: Callable[[ServerStatus], None], timeout: float) -> None:
        self.spec = spec
        self.tools: list[McpTool] = []
        self.status = ServerStatus(spec.name, "connecting", transport=spec.transport, origin=spec.origin)
        self._notify = notify
        self._timeout = timeout
        self._session: Any = None
        self._stop = anyio.Event()
        self.done = anyio.Event()
        self._scope: anyio.CancelScope | None = None
        self._calls: set[anyio.CancelScope] = set()
        self._failed: dict[anyio.CancelScope, str] = {}
        """Why a call was cut short by what the server sent (its scope → the reason)."""
        self._sent: set[Any] = set()
        """The ids of every request sent: an answer to any other is not an answer."""
        self._tool_calls: set[Any] = set()
        self._list_calls: set[Any] = set()
        """The ids of the ``tools/list`` requests not answered yet."""
        self._listing = LenientListing(spec.name)
        self._version: Callable[[], str | None] = lambda: None
        self._asked: set[Any] = set()
        self._refusals: list[str] = []
        """The last HTTP error status the server answered with (see mcp_http)."""
        """The ids of the server's own requests not answered yet (see :meth:`_may_ask`)."""
        """The ids of the ``tools/call`` requests not answered yet."""
        self._stderr: StderrTail | None = None
        self._closing = False

    def _set(self, state: State, message: str = "") -> None:
        self.status = replace(self.status, state=state, message=message, tools=len(self.tools))
        with contextlib.suppress(Exception):
            self._notify(self.status)

    async def run(self) -> None:
        """Connect, list tools, then wait until stopped or until the server goes away."""
        error = self.spec.error or server_name_problem(self.spec.name)
        if error:
            self._set("failed", error)
            self.done.set()
            return
        self._set("connecting")
        try:
            with anyio.CancelScope() as self._scope:
                async with AsyncExitStack() as stack:
                    await self._connect(stack)
                    await self._stop.wait()
        except Exception as exc:
            # Any failure is reported as the server's state, never raised into the app.
            # Errors while the shell hangs up are not news about the server.
            if not self._closing and self.status.state in ("connecting", "ready"):
                reason = describe_error(exc) + self._unreachable(exc) + self._stderr_tail()
                self._set("exited" if self.status.state == "ready" else "failed", reason)
        finally:
            self._session = None
            for scope in list(self._calls):
                scope.cancel()
            if self.status.state in ("connecting", "ready"):
                self._set("stopped", "the shell closed the connection")
            self.done.set()

    async def _connect(self, stack: AsyncExitStack) -> None:
        from .mcp_session import Session

        read, write = await stack.enter_async_context(self._transport())
        tg = await stack.enter_async_context(anyio.create_task_group())
        stack.callback(tg.cancel_scope.cancel)  # the watchers stop before the transport closes
        read, write = self._watch(read, tg), self._watch_sent(write, tg)
        session = await stack.enter_async_context(Session(read, write))
        self._version = session.settled_version
        try:
            with anyio.fail_after(self._timeout):
                await session.initialize()
                listed = await list_all_tools(session, self._listing)
        except Exception as exc:
            # Said now: closing the connection may take seconds (a stuck server is
            # given time to exit, then killed), and nobody should wait for that.
            if isinstance(exc, TimeoutError):
                exc = TimeoutError(f"no answer to the MCP handshake within {self._timeout:g} s (a first npx "
                                   "or uvx run may still be downloading: start agent-shell again later)")
            if self.status.state == "connecting":
                self._set("failed", describe_error(exc) + (self._refused() or self._unreachable(exc))
                          + self._stderr_tail())
            raise exc from None
        usable, unusable = await anyio.to_thread.run_sync(refuse_unusable, listed)
        refused = [*self._listing.skipped, *((tool_name(self.spec.name, n), why) for n, why in unusable)]
        self.tools, taken = [], set()
        for info in usable:
            tool = McpTool(self, info)
            if tool.name in taken:  # only a name made to collide with a hashed one can be
                refused.append((tool.name, "its name is taken by another of its tools"))
            else:
                taken.add(tool.name)
                self.tools.append(tool)
        self._session = session
        self._set("ready", refusal_note(refused, self._listing.cut))

    def _transport(self) -> AbstractAsyncContextManager[Any]:
        spec = self.spec
        if spec.transport == "stdio":
            self._stderr = StderrTail()
            return stdio(spec.name, spec.command, list(spec.args), spec.env, spec.cwd or None, self._stderr)
        if spec.transport == "sse":
            return _first_two(mcp_http.sse(spec.name, spec.url, dict(spec.headers), self._refusals))
        return _first_two(mcp_http.streamable_http(spec.name, spec.url, dict(spec.headers), self._refusals))

    def _watch(self, read: Any, tg: TaskGroup) -> Any:
        """Pass the server's messages through, and act on what the SDK would leave
        hanging: an answer it cannot read (the SDK logs it and the call waits for its
        timeout, 600 s) or an answer to a request never sent fails the calls waiting
        now, at once; a closed output (stdio: the process exited) ends the server."""
        send, receive = anyio.create_memory_object_stream[Any](0)

        async def forward() -> None:
            async with send:
                try:
                    async for message in read:
                        if isinstance(message, BadLine):
                            self._unreadable(str(message))
                            continue
                        if isinstance(message, Exception):
                            self._unreadable(f"an answer that cannot be read ({first_line(message)})")
                            continue
                        stray = stray_answer(message, self._sent)
                        if stray is not None:
                            self._unreadable(f"an answer to a request it was never sent (id {stray})")
                            continue
                        if is_log(message):
                            continue  # not shown anywhere: a flood of them cost a task each in the SDK
                        if not self._may_ask(message):
                            continue
                        lenient_answer(message, self._tool_calls)
                        self._lenient_listing(message)
                        await send.send(message)
                except (anyio.ClosedResourceError, anyio.BrokenResourceError, anyio.EndOfStream):
                    pass
            if self.spec.transport == "stdio" and not self._stop.is_set():
                self._gone("the server process exited" + self._stderr_tail())

        tg.start_soon(forward)
        return receive

    def _watch_sent(self, write: Any, tg: TaskGroup) -> Any:
        """Pass our messages on, noting the id of each request."""
        send, receive = anyio.create_memory_object_stream[Any](0)

        async def forward() -> None:
            async with receive:
                try:
                    async for message in receive:
                        inner = getattr(message.message, "root", message.message)
                        if type(inner).__name__ == "JSONRPCRequest":
                            self._sent.add(getattr(inner, "id", None))
                            if getattr(inner, "method", None) == "tools/call":
                                self._tool_calls.add(getattr(inner, "id", None))
                            elif getattr(inner, "method", None) == "tools/list":
                                self._list_calls.add(getattr(inner, "id", None))
                        else:  # an answer to one of the server's requests
                            self._asked.discard(getattr(inner, "id", None))
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
        inner: Any = getattr(getattr(message, "message", None), "root", getattr(message, "message", None))
        ident = getattr(inner, "id", None)
        if ident is None or ident not in self._list_calls:
            return
        self._list_calls.discard(ident)
        result = getattr(inner, "result", None)
        if isinstance(result, dict):
            inner.result = self._listing.keep_valid(result, self._version())

    def _may_ask(self, message: Any) -> bool:
        """Whether a request from the server is passed on: at most :data:`MAX_ASKED` at a
        time. The SDK answers each in a task of its own, so 50,000 pings sent without
        reading the answers held 600 MB and the event loop for seconds at a time; those
        over the bound are dropped (a server that waits for them waits)."""
        inner = getattr(message.message, "root", message.message)
        if type(inner).__name__ != "JSONRPCRequest":
            return True
        if len(self._asked) >= MAX_ASKED:
            return False
        self._asked.add(getattr(inner, "id", None))
        return True

    def _unreadable(self, what: str) -> None:
        """The server broke the protocol: which request that answer was for cannot be
        known, so every call waiting now fails (the server stays: the next may work);
        during the handshake the server fails."""
        reason = (f"the MCP server {self.spec.name!r} sent {what}; the result is lost. Try again; "
                  "if it keeps happening, tell the server's author")
        if self.status.state == "connecting":
            self._set("failed", f"the MCP server {self.spec.name!r} sent {what} while connecting; "
                      "tell the server's author")
            if self._scope is not None:
                self._scope.cancel()
            return
        for scope in list(self._calls):
            self._failed[scope] = reason
            scope.cancel()

    def _gone(self, message: str) -> None:
        if self.status.state in ("connecting", "ready"):
            self._set("exited" if self.status.state == "ready" else "failed", message)
        self._stop.set()
        for scope in list(self._calls):
            scope.cancel()

    def _refused(self) -> str:
        """What an HTTP server's refusal of the handshake was, and the likely cause."""
        if not self._refusals:
            return ""
        return (f" (it answered {self._refusals[-1]}: is {self.spec.url} its MCP endpoint? That address "
                "often ends in /mcp, or /sse for an SSE server)")

    def _unreachable(self, exc: BaseException) -> str:
        stdio = self.spec.transport == "stdio"
        return "" if stdio else mcp_http.unreachable(exc, self.spec.url, self.spec.name)

    def _stderr_tail(self) -> str:
        text = self._stderr.text(STDERR_TAIL) if self._stderr is not None else ""
        return f"\nserver stderr (last lines):\n{text}" if text else ""

    async def call(self, name: str, args: dict[str, Any], context: ToolContext) -> ToolResult:
        """Call a tool; any trouble becomes an error result the model can read."""
        session = self._session
        label = f"{self.spec.name}__{name}"
        if session is None or self.status.state != "ready":
            why = f": {self.status.message}" if self.status.message else ""
            return ToolResult(
                f"The MCP server {self.spec.name!r} is {self.status.state}{why}. Its tool {label} "
                f"cannot be used now; carry on without it, or ask the user to restart it (/mcp restart "
                f"{self.spec.name}).",
                is_error=True,
            )

        last = [-PROGRESS_EVERY]

        async def progress(done: float, total: float | None, message: str | None = None) -> None:
            # At most ten a second reach the front end: each is an event to draw, and a
            # server may send them as fast as it can write.
            now = anyio.current_time()
            deadline.extend()  # a server that reports is working
            if now - last[0] >= PROGRESS_EVERY or (total is not None and done >= total):
                last[0] = now
                context.report({"progress": done, "total": total, "message": message})

        result: Any = None
        deadline = Deadline(self.spec.timeout)
        with anyio.CancelScope() as scope:
            self._calls.add(scope)
            try:
                waiting = waiting_reports(context.report, self.spec.name, label, deadline)
                result = await within(
                    deadline, lambda: session.call_tool(name, args, progress_callback=progress), waiting)
            except Exception as exc:
                # The model gets the failure as data; a dead connection also ends the server.
                if connection_lost(exc):
                    self._gone(f"connection lost: {describe_error(exc)}")
                elif (gone := await self._gone_after(exc, session)) is not None:
                    self._gone(gone)
                    text = f"The MCP server {self.spec.name!r} went away during the call to {label}: {gone}"
                    return ToolResult(text, is_error=True, details={"server": self.spec.name})
                text = f"Calling {label} failed: {describe_error(exc)}"
                return ToolResult(text, is_error=True, details={"server": self.spec.name})
            finally:
                self._calls.discard(scope)
        if deadline.expired:
            return ToolResult(expired_text(self.spec.name, label, deadline.seconds), is_error=True,
                              details={"server": self.spec.name, "timed_out": True})
        failed = self._failed.pop(scope, None)
        if failed is not None:
            text = f"Calling {label} failed: {failed}"
            return ToolResult(text, is_error=True, details={"server": self.spec.name})
        if scope.cancelled_caught or result is None:
            text = f"The MCP server {self.spec.name!r} went away during the call to {label}"
            return ToolResult(f"{text}: {self.status.message}", is_error=True)
        converted = convert_result(result, server=self.spec.name, tool=name)
        problem = session.schema_problem(result)
        return converted if problem is None else with_schema_problem(converted, label, problem)

    async def _gone_after(self, exc: BaseException, session: Any) -> str | None:
        """Why the server is gone, when an HTTP answer broke off because it was (a ping
        finds no server there), else None: a broken answer is usually that call's
        alone, but a server that died mid-call breaks its answer the same way, and its
        tools would stay offered, each call failing, until the next one found out."""
        if STILL_CONNECTED not in str(exc):
            return None
        try:
            with anyio.fail_after(PING_TIMEOUT):
                await session.send_ping()
        except Exception as ping:
            if connection_lost(ping):
                return (f"its answer broke off, then it did not answer a ping ({describe_error(ping)})"
                        + mcp_http.start_it_yourself(self.spec.name))
        return None

    def stop(self) -> None:
        self._closing = True
        self._stop.set()
        if self.status.state == "connecting" and self._scope is not None:
            self._scope.cancel()


class McpManager:
    """Starts the configured servers in the background and serves their tools."""

    def __init__(
        self,
        servers: Mapping[str, Any] | Iterable[McpServerSpec] | None = None,
        *,
        workspace_root: str | Path | None = None,
        project_servers: Iterable[McpServerSpec] = (),
        on_change: Callable[[ServerStatus], None] | None = None,
        connect_timeout: float = CONNECT_TIMEOUT,
    ) -> None:
        """``servers``: a name → entry mapping (the user's config) or parsed specs,
        run in ``workspace_root``; ``project_servers``: those of a ``.mcp.json`` the
        user trusted (they override by name). The manager never reads a project's
        ``.mcp.json`` by itself: whether to is the trust decision's, not the manager's."""
        if isinstance(servers, Mapping):
            specs = parse_servers(servers, cwd=str(workspace_root) if workspace_root else None)
        else:
            specs = list(servers or ())
        specs = _one_per_prefix(merge_specs(specs, list(project_servers)))
        self.on_change = on_change
        self._timeout = connect_timeout
        self._servers = {s.name: McpServer(s, self._changed, connect_timeout) for s in specs}
        self._started = False
        self._task_group: TaskGroup | None = None
        self._own_tg: TaskGroup | None = None

    def _changed(self, status: ServerStatus) -> None:
        if self.on_change is not None:
            self.on_change(status)

    async def start(self, task_group: TaskGroup) -> None:
        """Begin connecting every server in ``task_group``; returns at once."""
        if self._started:
            raise RuntimeError("McpManager.start() was already called")
        self._started = True
        self._task_group = task_group
        for server in self._servers.values():
            task_group.start_soon(server.run, name=f"mcp:{server.spec.name}")

    def add(self, specs: Iterable[McpServerSpec]) -> list[str]:
        """Start more servers after :meth:`start` (a workspace trusted mid-session);
        a name already running is kept. Returns the names started."""
        if self._task_group is None:
            raise RuntimeError("McpManager.add() needs start() first")
        started = []
        for spec in specs:
            running = self._servers.get(spec.name)
            if running is not None and running.status.state in ("connecting", "ready"):
                continue
            others = [s.spec for n, s in self._servers.items() if n != spec.name]
            spec = _one_per_prefix([*others, spec])[-1]
            server = McpServer(spec, self._changed, self._timeout)
            self._servers[spec.name] = server
            self._task_group.start_soon(server.run, name=f"mcp:{spec.name}")
            started.append(spec.name)
        return started

    def restart(self, name: str) -> str | None:
        """Start again a server that failed, exited or was stopped (its tools come back
        when it is ready, as at start); why it cannot be, else None."""
        server = self._servers.get(name)
        if server is None:
            known = ", ".join(sorted(self._servers)) or "none"
            return f"there is no MCP server named {name!r} (configured: {known})"
        if server.status.state in ("connecting", "ready"):
            state = server.status.state
            return f"the MCP server {name!r} is {state}; only a failed or exited one is started again"
        if server.spec.error:
            return f"the MCP server {name!r} cannot start: {server.spec.error}"
        self.add([server.spec])
        return None

    def tools(self) -> list[Tool]:
        """The tools of the servers that are ready right now."""
        return [t for s in self._servers.values() if s.status.state == "ready" for t in s.tools]

    def statuses(self) -> list[ServerStatus]:
        return [s.status for s in self._servers.values()]

    def status(self, name: str) -> ServerStatus:
        return self._servers[name].status

    async def wait_settled(self, timeout: float | None = None) -> None:
        """Wait until no server is still connecting (for tests, headless runs and /mcp)."""
        with anyio.fail_after(timeout):
            for server in self._servers.values():
                while server.status.state == "connecting" and not server.done.is_set():  # noqa: ASYNC110
                    await anyio.sleep(0.02)

    async def aclose(self) -> None:
        """Disconnect every server and wait (bounded) until their processes are gone."""
        for server in self._servers.values():
            server.stop()
        with anyio.CancelScope(shield=True), anyio.move_on_after(10):
            for server in self._servers.values():
                if self._started:
                    await server.done.wait()
        if self._own_tg is not None:
            self._own_tg.cancel_scope.cancel()

    async def __aenter__(self) -> McpManager:
        """``async with McpManager(...) as mcp:`` runs the servers in a task group of its own."""
        self._own_tg = anyio.create_task_group()
        await self._own_tg.__aenter__()
        await self.start(self._own_tg)
        return self

    async def __aexit__(self, *exc: object) -> None:
        tg = self._own_tg
        await self.aclose()
        if tg is not None:
            self._own_tg = None
            await tg.__aexit__(None, None, None)


def _one_per_prefix(specs: list[McpServerSpec]) -> list[McpServerSpec]:
    """Specs where a server whose tools would be named like an earlier one's (``my
    server`` and ``my_server`` are both ``my_server__…``) cannot start, saying why:
    a tool name and a rule ``my_server__*`` must name one server's tools."""
    seen: dict[str, str] = {}
    out = []
    for spec in specs:
        prefix = server_prefix(spec.name)
        first = seen.setdefault(prefix, spec.name)
        if first != spec.name and not spec.error:
            spec = replace(spec, error=(f"its tools would be named {prefix}__… like those of the server "
                                        f"{first!r}; rename one of them"))
        out.append(spec)
    return out


@contextlib.asynccontextmanager
async def _first_two(cm: AbstractAsyncContextManager[Any]) -> Any:
    """Transports yield (read, write) or (read, write, get_session_id): keep the streams."""
    async with cm as streams:
        yield streams[0], streams[1]
