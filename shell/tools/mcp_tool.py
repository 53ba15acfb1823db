"""One tool of one MCP server, as the agent and the permission policy see it.

Tools appear as ``SERVER__tool`` with the server's ``inputSchema``. Annotations
are hints: ``readOnlyHint`` with ``openWorldHint: false`` makes a tool's kind
``read`` (the permission policy lets it run unasked only for a server the user
configured or trusted), ``destructiveHint`` always asks, and an open world (the
spec's default when ``openWorldHint`` is missing) makes a read-only tool a network
(``fetch``) tool, which asks: a web or code search sends its query out.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Protocol

from shell.core.messages import ToolResult
from shell.core.tools import Tool, ToolContext

from .mcp_config import McpServerSpec
from .mcp_identity import ToolIdentities
from .mcp_results import tool_name


class ToolServer(Protocol):
    """What a tool needs of its server: its spec, a way to call it, and what the user
    accepted of its tools (see :mod:`.mcp_identity`)."""

    spec: McpServerSpec
    identities: ToolIdentities

    async def call(self, name: str, args: dict[str, Any], context: ToolContext) -> ToolResult: ...


class McpTool(Tool):
    """One tool of one MCP server; calls go through the server's live session."""

    def __init__(self, server: ToolServer, info: Mapping[str, Any]) -> None:
        annotations = info.get("annotations") or {}
        if not isinstance(annotations, Mapping):
            annotations = {}
        schema = info.get("inputSchema") or {"type": "object", "properties": {}}
        self.destructive = annotations.get("destructiveHint") is True
        """The server says a call may destroy something: the policy always asks."""
        claims_read_only = annotations.get("readOnlyHint") is True and not self.destructive
        closed_world = annotations.get("openWorldHint") is False
        # MCP's openWorldHint defaults to true: a search tool that only says it is
        # read-only still sends what it is given to the outside world (finding J4)
        network = annotations.get("openWorldHint") is True or (claims_read_only and not closed_world)
        read_only = claims_read_only and closed_world
        super().__init__(
            tool_name(server.spec.name, str(info["name"])),
            str(info.get("description") or info.get("title") or ""),
            dict(schema),
            read_only=read_only,
            kind="fetch" if network else "read" if read_only else "other",
        )
        self.hints_trusted = hints_trusted(server.spec)
        """Whether ``readOnlyHint`` may lower the ask: only for a server the user
        configured (or a project server in a workspace the user trusted); a hint
        from anyone else is a claim, not a fact."""
        self.server_name = server.spec.name
        self.remote_name = str(info["name"])
        self.source = f"mcp:{server.spec.name}"
        self._server = server
        self.prints, self.changed = server.identities.check(self.remote_name, info)
        """What the tool says it is, and what of that changed since the user accepted it
        ("" when nothing did): the permission policy asks before a changed tool runs."""

    def accept_change(self) -> None:
        """The user approved a call after being told what changed: this version is the
        one accepted from now on."""
        self._server.identities.accept(self.remote_name, self.prints)
        self.changed = ""

    async def run(self, args: dict[str, Any], context: ToolContext) -> ToolResult:
        return await self._server.call(self.remote_name, args, context)


USER_ORIGINS = ("config", "editor")
"""Servers the user named themselves: in their config, or in their editor (ACP)."""


def hints_trusted(spec: McpServerSpec) -> bool:
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
