"""The connection to one MCP server, for its whole life (one task).

A server moves through ``connecting`` → ``ready`` and may end ``failed`` (it never
got ready: bad command, handshake error, timeout) or ``exited`` (it went away
later). Every change is recorded in :class:`~.mcp_status.ServerStatus` with a
message and passed to ``notify``; one server's trouble never touches the others. A
call to a server that is gone returns an error result saying so instead of raising
or hanging.

Built on the official ``mcp`` SDK's ``ClientSession`` with its stdio, streamable
HTTP and SSE transports; results are read through ``model_dump(by_alias=True)`` so
the code does not depend on one SDK version's attribute names.
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Callable, Sequence
from contextlib import AbstractAsyncContextManager, AsyncExitStack
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

import anyio
import anyio.to_thread

from shell.core.messages import ToolResult
from shell.core.tools import ToolContext

from . import mcp_http
from .mcp_call import CallScopes, gone_after, not_ready, progress_relay
from .mcp_config import McpServerSpec
from .mcp_deadline import Deadline, expired_text, waiting_reports, within
from .mcp_identity import ToolIdentities
from .mcp_launch import launch_problem, roots_callback, start_args, start_cwd, start_env
from .mcp_listing import LenientListing, hostile_names_note, list_all_tools, refusal_note
from .mcp_redaction import listing_without_known_secrets, without_known_secrets
from .mcp_relist import Relister, change_note
from .mcp_results import (
    connection_lost,
    convert_result,
    describe_error,
    server_name_problem,
    tool_name,
    with_schema_problem,
)
from .mcp_schema import refuse_unusable
from .mcp_status import ServerStatus, State
from .mcp_stdio import StderrTail, stdio
from .mcp_tool import McpTool
from .mcp_watch import Watcher

if TYPE_CHECKING:
    from shell.permissions.sandbox import Sandbox

logging.getLogger("mcp").addHandler(logging.NullHandler())
"""The SDK logs a server's garbage with a traceback; with no handler anywhere Python
would print it on the user's terminal (over the line mode's prompt or the TUI). What
went wrong reaches the user as the server's state or the call's error instead; a
front end that configures logging (ACP's log on stderr) still gets the records."""

_log = logging.getLogger("mcp.agent_shell")
STDERR_TAIL = 1500


class McpServer:
    """The connection to one server, for its whole life (one task)."""

    def __init__(
        self, spec: McpServerSpec, notify: Callable[[ServerStatus], None], timeout: float,
        identities: ToolIdentities | None = None, *, roots: Callable[[], Sequence[Path]] = list,
        in_workspace: bool = False, sandbox: Sandbox | None = None,
    ) -> None:
        """``roots``: the directories this client names as its roots (the workspace's);
        ``in_workspace``: one of the user's servers told to start in the workspace
        (``/mcp`` says so); ``sandbox``: whose secret files' values its answers lose
        (:mod:`.mcp_values`; none: only the run's known keys)."""
        self.spec = spec
        self._roots = roots
        self._sandbox = sandbox
        self.identities = identities or ToolIdentities()
        """What the user accepted of each tool (kept across restarts by the manager)."""
        self.tools: list[McpTool] = []
        self.relister: Relister | None = None
        self.status = ServerStatus(spec.name, "connecting", transport=spec.transport, origin=spec.origin,
                                   in_workspace=in_workspace)
        self._notify = notify
        self._timeout = timeout
        self._session: Any = None
        self._stop = anyio.Event()
        self.done = anyio.Event()
        self._scope: anyio.CancelScope | None = None
        self._calls = CallScopes()
        self._listing = LenientListing(spec.name)
        self._refusals: list[str] = []
        """The last HTTP error status the server answered with (see mcp_http)."""
        self._stderr: StderrTail | None = None
        self._closing = False
        self._stray_note = ""
        """Said once per connection when the server answers requests it was never sent."""

    def _set(self, state: State, message: str = "", log: str = "") -> None:
        self.status = replace(self.status, state=state, message=message, tools=len(self.tools), log=log)
        with contextlib.suppress(Exception):
            self._notify(self.status)

    async def run(self) -> None:
        """Connect, list tools, then wait until stopped or until the server goes away."""
        error = self.spec.error or server_name_problem(self.spec.name) or launch_problem(self.spec)
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
                reason = describe_error(exc) + self._unreachable(exc)
                self._set("exited" if self.status.state == "ready" else "failed", reason, self._stderr_text())
        finally:
            self._session = None
            self._calls.cancel_all()
            if self.status.state in ("connecting", "ready"):
                self._set("stopped", "the shell closed the connection")
            self.done.set()

    async def _connect(self, stack: AsyncExitStack) -> None:
        from .mcp_session import Session

        watcher = Watcher(self.spec.name, self._listing, self._unreadable)
        relister = Relister(lambda: self._relist(session, watcher))
        watcher.on_list_changed = relister.wanted
        watcher.on_stray = self._strayed
        self._stray_note = ""
        read, write = await stack.enter_async_context(self._transport(watcher))
        tg = await stack.enter_async_context(anyio.create_task_group())
        stack.callback(tg.cancel_scope.cancel)  # the watchers stop before the transport closes
        read, write = watcher.watch_read(read, tg, self._output_closed), watcher.watch_write(write, tg)
        session = await stack.enter_async_context(
            Session(read, write, list_roots_callback=roots_callback(self._roots)))
        watcher.version = session.settled_version
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
                self._set("failed", describe_error(exc) + (self._refused() or self._unreachable(exc)),
                          self._stderr_text())
            raise exc from None
        refused = await self._take_tools(listed)
        self._session = session
        watcher.connecting = False
        self._set("ready", "; ".join(part for part in (refused, self._stray_note) if part))
        self.relister = relister
        tg.start_soon(relister.run)

    async def _take_tools(self, listed: list[Any]) -> str:
        """Offer the usable tools of ``listed``; what was refused, for the status."""
        usable, unusable = await anyio.to_thread.run_sync(
            lambda: refuse_unusable(listing_without_known_secrets(listed)))
        refused = [*self._listing.skipped, *((tool_name(self.spec.name, n), why) for n, why in unusable)]
        tools, taken = [], set()
        for info in usable:
            tool = McpTool(self, info)
            if tool.name in taken:  # only a name made to collide with a hashed one can be
                refused.append((tool.name, "its name is taken by another of its tools"))
            else:
                taken.add(tool.name)
                tools.append(tool)
        self.tools = tools
        renamed = hostile_names_note([(t.remote_name, t.name) for t in tools])
        return "; ".join(part for part in (refusal_note(refused, self._listing.cut), renamed) if part)

    async def _relist(self, session: Any, watcher: Watcher) -> None:
        """List the tools again (the server said they changed); the user is told when
        they did. A list that fails keeps the tools listed before."""
        listing = LenientListing(self.spec.name)
        watcher.listing = listing
        try:
            with anyio.fail_after(self._timeout):
                listed = await list_all_tools(session, listing)
        except Exception as exc:
            _log.warning("listing the tools of the MCP server %r again failed: %s", self.spec.name,
                         describe_error(exc))
            return
        before, self._listing = self.tools, listing
        refused = await self._take_tools(listed)
        changed = change_note(before, self.tools)
        if changed or refused != self.status.message:
            self._set("ready", "; ".join(part for part in (changed, refused) if part))

    def _transport(self, watcher: Watcher) -> AbstractAsyncContextManager[Any]:
        spec = self.spec
        if spec.transport == "stdio":
            self._stderr = StderrTail()
            args = start_args(spec)
            return stdio(spec.name, spec.command, args, start_env(spec), start_cwd(spec), self._stderr)
        if spec.transport == "sse":
            lost = watcher.unreadable  # an event too large with no id to tell whose
            return _first_two(mcp_http.sse(spec.name, spec.url, dict(spec.headers), self._refusals, lost))
        return _first_two(mcp_http.streamable_http(spec.name, spec.url, dict(spec.headers), self._refusals))

    def _output_closed(self) -> None:
        """The server's output ended: for stdio, the process exited."""
        if self.spec.transport == "stdio" and not self._stop.is_set():
            self._gone("the server process exited", self._stderr_text())

    def _unreadable(self, what: str) -> None:
        """The server broke the protocol during the handshake: it fails. (Later, only
        the call whose answer it was fails: see :mod:`.mcp_watch`.)"""
        if self.status.state == "connecting":
            self._set("failed", f"the MCP server {self.spec.name!r} sent {what} while connecting; "
                      "tell the server's author")
            if self._scope is not None:
                self._scope.cancel()

    def _strayed(self, said: str) -> None:
        """The server answered a request it was never sent: one notice per connection
        (a flood of them is counted by the watcher, not shown one by one)."""
        self._stray_note = (f"{said}; it was ignored, as any more will be. A server that does this may be "
                            "broken: if its calls fail or hang, tell its author")
        if self.status.state == "ready":
            self._set("ready", "; ".join(part for part in (self.status.message, self._stray_note) if part))

    def _gone(self, message: str, log: str = "") -> None:
        if self.status.state in ("connecting", "ready"):
            self._set("exited" if self.status.state == "ready" else "failed", message, log)
        self._stop.set()
        self._calls.cancel_all()

    def _refused(self) -> str:
        """What an HTTP server's refusal of the handshake was, and the likely cause."""
        if not self._refusals:
            return ""
        return (f" (it answered {self._refusals[-1]}: is {self.spec.url} its MCP endpoint? That address "
                "often ends in /mcp, or /sse for an SSE server)")

    def _unreachable(self, exc: BaseException) -> str:
        stdio = self.spec.transport == "stdio"
        return "" if stdio else mcp_http.unreachable(exc, self.spec.url, self.spec.name)

    def _stderr_text(self) -> str:
        return self._stderr.text(STDERR_TAIL) if self._stderr is not None else ""

    async def call(self, name: str, args: dict[str, Any], context: ToolContext) -> ToolResult:
        """Call a tool; any trouble becomes an error result the model can read. The
        answer (or error) holds none of the run's known secret values (finding V3), nor
        the values of the workspace's secret files it did not name (finding X15). Both
        read every text in every spelling, and the net may search the workspace and read
        the secret files: in a worker thread (~20 ms at the result cap, off the loop)."""
        answer = await self._call(name, args, context)
        sandbox = self._sandbox
        schema = next((t.parameters for t in self.tools if t.remote_name == name), {})
        roots = list(self._roots())

        def cleaned() -> ToolResult:
            known = without_known_secrets(answer)
            if sandbox is None:
                return known
            from .mcp_values import answer_without_hidden_values

            return answer_without_hidden_values(known, sandbox, args, schema, roots)

        return await anyio.to_thread.run_sync(cleaned, abandon_on_cancel=True)

    async def _call(self, name: str, args: dict[str, Any], context: ToolContext) -> ToolResult:
        session = self._session
        label = f"{self.spec.name}__{name}"
        if session is None or self.status.state != "ready":
            return not_ready(self.spec.name, self.status.state, self.status.message, label)
        result: Any = None
        deadline = Deadline(self.spec.timeout)
        progress = progress_relay(context.report, deadline)
        with anyio.CancelScope() as scope:
            self._calls.scopes.add(scope)
            try:
                waiting = waiting_reports(context.report, self.spec.name, label, deadline)
                result = await within(
                    deadline, lambda: session.call_tool(name, args, progress_callback=progress), waiting)
            except Exception as exc:
                # The model gets the failure as data; a dead connection also ends the server.
                if connection_lost(exc):
                    self._gone(f"connection lost: {describe_error(exc)}")
                elif (gone := await gone_after(exc, session, self.spec.name)) is not None:
                    self._gone(gone)
                    text = f"The MCP server {self.spec.name!r} went away during the call to {label}: {gone}"
                    return ToolResult(text, is_error=True, details={"server": self.spec.name})
                text = f"Calling {label} failed: {describe_error(exc)}"
                return ToolResult(text, is_error=True, details={"server": self.spec.name})
            finally:
                self._calls.scopes.discard(scope)
        if deadline.expired:
            return ToolResult(expired_text(self.spec.name, label, deadline.seconds), is_error=True,
                              details={"server": self.spec.name, "timed_out": True})
        if scope.cancelled_caught or result is None:
            text = f"The MCP server {self.spec.name!r} went away during the call to {label}"
            return ToolResult(f"{text}: {self.status.message}", is_error=True)
        converted = convert_result(result, server=self.spec.name, tool=name)
        problem = session.schema_problem(result)
        return converted if problem is None else with_schema_problem(converted, label, problem)

    def stop(self) -> None:
        self._closing = True
        self._stop.set()
        if self.status.state == "connecting" and self._scope is not None:
            self._scope.cancel()


@contextlib.asynccontextmanager
async def _first_two(cm: AbstractAsyncContextManager[Any]) -> Any:
    """Transports yield (read, write) or (read, write, get_session_id): keep the streams."""
    async with cm as streams:
        yield streams[0], streams[1]
