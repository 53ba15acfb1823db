"""MCP servers as tools: connected in the background, each one on its own.

:class:`McpManager` starts one task per server (:class:`~.mcp_server.McpServer`)
in a task group the caller owns (the app's), so the first frame never waits for a
slow ``npx``; it serves the tools of the servers that are ready, and starts one
again on ``/mcp restart``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

import anyio
from anyio.abc import TaskGroup

from shell.core.tools import Tool

from .mcp_call import not_ready
from .mcp_config import McpServerSpec, merge_specs, parse_servers
from .mcp_identity import ToolIdentities
from .mcp_launch import runs_in_workspace
from .mcp_results import server_prefix
from .mcp_server import McpServer
from .mcp_status import ServerStatus

if TYPE_CHECKING:
    from shell.permissions.sandbox import Sandbox

CONNECT_TIMEOUT = 60.0


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
        roots: Callable[[], Sequence[Path]] | None = None,
        sandbox: Sandbox | None = None,
    ) -> None:
        """``servers``: a name → entry mapping (the user's config) or parsed specs,
        started in a private folder (:mod:`.mcp_launch`; ``cwd = "workspace"``:
        ``workspace_root``); ``project_servers``: those of a ``.mcp.json`` the
        user trusted (they override by name). The manager never reads a project's
        ``.mcp.json`` by itself: whether to is the trust decision's, not the manager's.
        ``roots``: the directories servers are given as the client's roots (the
        workspace's, asked each time; by default ``workspace_root``). ``sandbox``: whose
        secret files' values the servers' answers lose (finding X15)."""
        if isinstance(servers, Mapping):
            specs = parse_servers(servers, workspace=str(workspace_root) if workspace_root else None)
        else:
            specs = list(servers or ())
        specs = _one_per_prefix(merge_specs(specs, list(project_servers)))
        self.on_change = on_change
        self._timeout = connect_timeout
        if roots is None:
            listed = [Path(workspace_root)] if workspace_root is not None else []
            roots = lambda: listed  # noqa: E731
        self._roots = roots
        self._sandbox = sandbox
        self._workspace = str(workspace_root) if workspace_root is not None else None
        self._identities: dict[str, ToolIdentities] = {}
        """What the user accepted of each server's tools, across its restarts."""
        self._servers = {s.name: self._server(s) for s in specs}
        self._started = False
        self._task_group: TaskGroup | None = None
        self._own_tg: TaskGroup | None = None

    def _server(self, spec: McpServerSpec) -> McpServer:
        identities = self._identities.setdefault(spec.name, ToolIdentities())
        return McpServer(spec, self._changed, self._timeout, identities, roots=self._roots,
                         in_workspace=runs_in_workspace(spec, self._workspace), sandbox=self._sandbox)

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
            server = self._server(spec)
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

    def why_gone(self, tool_name: str) -> str | None:
        """For a call to ``tool_name`` of a server that is not ready (it exited, failed
        or was stopped, so its tools left the list): what the call to it would have
        answered, the way back included (``/mcp restart``); None for another name."""
        for server in self._servers.values():
            status = server.status
            if tool_name.startswith(f"{server_prefix(server.spec.name)}__") and status.state != "ready":
                return not_ready(server.spec.name, status.state, status.message, tool_name).text
        return None

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
