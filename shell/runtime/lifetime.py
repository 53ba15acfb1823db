"""The runtime's lifetime: what runs in the background (MCP servers, the workspace's
own config once trusted), started and closed."""

from __future__ import annotations

from collections.abc import AsyncIterator, Collection
from contextlib import asynccontextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any, Self

import anyio

if TYPE_CHECKING:
    from anyio.abc import TaskGroup

    from ..permissions.trust import TrustCheck

from .build import describe_project
from .conversation import ConversationPart


class LifetimePart(ConversationPart):
    """The runtime's lifetime: what runs in the background (MCP servers, the workspace's
own config once trusted), started and closed."""

    # -- background services (MCP servers) ----------------------------------------
    def workspace_trust(self) -> TrustCheck:
        """Whether this workspace's own config (``.mcp.json``, ``.agent-shell/``) may
        be used: read now, so a file changed since the last answer asks again."""
        from ..permissions.trust import TrustStore

        return TrustStore().check(self.workspace.root)

    def describe_project(self, check: TrustCheck, taken: Collection[str] = ()) -> list[str]:
        """What trusting this workspace would start, apply or ignore (see
        :func:`describe_project`), and which of the user's own servers start in it
        anyway (``cwd = "workspace"``); ``taken``: the front end's built-in command names."""
        return [*describe_project(check, taken), *self._servers_in_workspace()]

    def _servers_in_workspace(self) -> list[str]:
        """One line per server of the user's that starts in the workspace: there its
        launcher (``npx``, ``python -m``, ``uv run``) may run the workspace's code."""
        from ..core.textsafety import sanitize_line
        from ..tools.mcp_config import parse_servers
        from ..tools.mcp_launch import launch_problem, runs_in_workspace

        root = str(self.workspace.root)
        specs = [*parse_servers(self.settings.raw.get("mcp_servers") or {}, workspace=root),
                 *self.options.mcp_servers]
        return [sanitize_line(
            f"your server {spec.name!r} starts in this workspace (cwd = \"workspace\" in your config), "
            "trusted or not: uv run or a script's imports there may run the workspace's own code"
            + (f"; {launch_problem(spec)}" if launch_problem(spec) else ""))
            for spec in specs if runs_in_workspace(spec, root)]

    def untrusted_notice(self, check: TrustCheck) -> str:
        """One line saying what was not used and how to trust it (headless, banners)."""
        from ..core.textsafety import sanitize_line

        what = ", ".join(check.config.files) or "its project config"
        why = {"declined": "you chose not to trust it", "changed": "it changed since you answered"}.get(
            check.state, "the workspace is not trusted"
        )
        return sanitize_line(
            f"not using {what} in {check.config.root} ({why}); review and trust it with "
            "`agent-shell trust`, or pass --trust-workspace for this run"
        )

    async def decide_trust(self, check: TrustCheck, trusted: bool) -> None:
        """Record the user's answer for exactly the files ``check`` read; once
        trusted, its MCP servers start (also mid-session, if they still match)."""
        from ..permissions.trust import TrustStore

        TrustStore().decide(check.config, trusted)
        self.permissions.reload_project()  # the project's rules apply only when trusted
        if not trusted or self._task_group is None:
            return
        specs = self._project_servers(self.workspace_trust())
        if not specs:
            return
        if self.mcp is None:
            from ..tools.mcp import McpManager

            self.mcp = McpManager(workspace_root=self.workspace.root, on_change=self._mcp_changed,
                                  roots=self._workspace_dirs, sandbox=self.sandbox)
            self.agent.missing_tool = self.mcp.why_gone
            await self.mcp.start(self._task_group)
        self.mcp.add(specs)

    def _project_servers(self, check: TrustCheck) -> list[Any]:
        """The trusted ``.mcp.json``'s servers (``${VAR}`` expanded), parsed from the
        very bytes that were hashed; none when not trusted."""
        from ..permissions.trust import MCP_FILE
        from ..tools.mcp_config import parse_project_servers

        data = check.config.read(MCP_FILE)
        if not check.trusted or data is None:
            return []
        specs = parse_project_servers(data, check.config.root, expand=True)
        _know_keys(specs)
        return specs

    async def start(self, task_group: TaskGroup) -> None:
        """Start what runs in the background (MCP servers connect in ``task_group``;
        their tools join the agent's as each becomes ready). Returns at once.

        The user's own servers always start; a project's ``.mcp.json`` only when
        the workspace is trusted (see :mod:`shell.permissions.trust`); the front
        end asks or reports before calling this."""
        if self.mcp is not None or self._task_group is task_group:
            return
        self._task_group = task_group
        self.learn_model_soon(task_group)
        task_group.start_soon(self._find_secret_files)
        servers = self.settings.raw.get("mcp_servers") or {}
        project = self._project_servers(self.workspace_trust())
        if not servers and not project and not self.options.mcp_servers:
            return
        from ..tools.mcp import McpManager
        from ..tools.mcp_config import parse_servers

        configured = parse_servers(servers, workspace=str(self.workspace.root))
        _know_keys([*configured, *self.options.mcp_servers])
        self.mcp = McpManager(
            [*configured, *self.options.mcp_servers],
            workspace_root=self.workspace.root,
            project_servers=project,
            on_change=self._mcp_changed,
            roots=self._workspace_dirs,
            sandbox=self.sandbox,  # answers lose the hidden secret files' values (finding X15)
        )
        self.agent.missing_tool = self.mcp.why_gone  # a dead server's tool: "exited", not "unknown"
        await self.mcp.start(task_group)

    def _workspace_dirs(self) -> list[Path]:
        """The MCP roots: the workspace and the directories added to it, as they are now."""
        return [self.workspace.root, *self.workspace.added]

    async def _find_secret_files(self) -> None:
        """The workspace's secret files, searched once in a thread at start (the sandbox
        hides them from commands), so that the first command's decision does not search
        on the event loop: up to a second on a huge tree."""
        sandbox = self.sandbox
        if sandbox is None or not sandbox.available:
            return
        try:
            await anyio.to_thread.run_sync(sandbox.secrets_searched, abandon_on_cancel=True)
            await anyio.to_thread.run_sync(sandbox.home_secrets, abandon_on_cancel=True)  # home's, too
        except OSError:
            pass  # searched again, and said, when a command needs it

    def _mcp_changed(self, status: Any) -> None:
        self.agent.tools = [*self.builtin_tools, *(self.mcp.tools() if self.mcp else ())]
        for callback in self.on_mcp_change:
            callback(status)

    async def wait_for_tools(self, timeout: float = 30.0) -> None:
        """Headless runs wait until every MCP server is ready or has failed."""
        if self.mcp is not None:
            with anyio.move_on_after(timeout):
                await self.mcp.wait_settled()

    async def aclose(self) -> None:
        self._close_session()
        if self.mcp is not None:
            mcp, self.mcp = self.mcp, None
            await mcp.aclose()

    @asynccontextmanager
    async def running(self) -> AsyncIterator[Self]:
        """``async with runtime.running():`` :meth:`start`, then :meth:`aclose` at the end."""
        async with anyio.create_task_group() as tg:
            await self.start(tg)
            try:
                yield self
            finally:
                await self.aclose()
                tg.cancel_scope.cancel()


def _know_keys(specs: list[Any]) -> None:
    """MCP servers' keys (their ``env``, ``headers``, URLs, arguments) become secrets to
    the sandbox's environment scrub and to egress, as providers' keys are (finding Q4)."""
    from ..core.mcpsecrets import mcp_secret_values
    from ..permissions.sandboxenv import add_config_secrets

    add_config_secrets(mcp_secret_values(specs))
