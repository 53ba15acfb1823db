"""The pieces of one MCP tool call that are not the connection's: the calls under
way (cancelled when the server goes), progress passed on at a bounded rate, and
finding out whether a server whose answer broke off is gone.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import anyio

from shell.core.messages import ToolResult

from . import mcp_http
from .mcp_deadline import Deadline
from .mcp_http import STILL_CONNECTED
from .mcp_results import connection_lost, describe_error

PROGRESS_EVERY = 0.1
"""Seconds between two progress reports of one call passed on (the last one always is)."""
PING_TIMEOUT = 5.0
"""Seconds a server whose answer broke off has to answer a ping before the call says so."""


class CallScopes:
    """The cancel scopes of the calls under way on one connection (cancelled when it ends)."""

    def __init__(self) -> None:
        self.scopes: set[anyio.CancelScope] = set()

    def cancel_all(self) -> None:
        for scope in list(self.scopes):
            scope.cancel()


def progress_relay(report: Callable[[Any], None], deadline: Deadline) -> Callable[..., Any]:
    """The SDK's progress callback for one call: every notification moves the
    deadline on (a server that reports is working); at most ten a second reach the
    front end (each is an event to draw, and a server may send them as fast as it
    can write), the last one always."""
    last = [-PROGRESS_EVERY]

    async def progress(done: float, total: float | None, message: str | None = None) -> None:
        now = anyio.current_time()
        deadline.extend()
        if now - last[0] >= PROGRESS_EVERY or (total is not None and done >= total):
            last[0] = now
            report({"progress": done, "total": total, "message": message})

    return progress


def not_ready(server: str, state: str, message: str, label: str) -> ToolResult:
    """The result of a call to a server that is not ready (failed, exited, stopped,
    or still connecting: then a restart is no advice, a moment is)."""
    why = f": {message}" if message else ""
    if state == "connecting":
        return ToolResult(
            f"The MCP server {server!r} is still starting (its tools are not listed yet). Its tool {label} "
            "cannot be used this moment; carry on without it, or call it again a little later.",
            is_error=True,
        )
    return ToolResult(
        f"The MCP server {server!r} is {state}{why}. Its tool {label} cannot be used now; carry on "
        f"without it, or ask the user to restart it (/mcp restart {server}).",
        is_error=True,
    )


async def gone_after(exc: BaseException, session: Any, server: str) -> str | None:
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
                    + mcp_http.start_it_yourself(server))
    return None
