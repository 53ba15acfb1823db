"""The MCP servers an editor passes in ``session/new`` / ``session/load``, as ours.

The user configured them in the editor for its agents, so they join the
config's servers for that session (same name: the editor's wins over the
config's, a project's ``.mcp.json`` still over both). MCP-over-ACP servers
(``type: "acp"``) need the client to carry MCP messages, which this agent does
not do yet; they are reported, not silently dropped.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from shell.tools.mcp_config import McpServerSpec

ORIGIN = "editor"


def mcp_specs(servers: Sequence[Any]) -> tuple[list[McpServerSpec], list[str]]:
    """(specs, notes for the user) for the SDK's server models."""
    specs: list[McpServerSpec] = []
    notes: list[str] = []
    for server in servers:
        name = str(getattr(server, "name", "") or "mcp")
        kind = getattr(server, "type", None)
        if kind in ("http", "sse"):
            headers = {h.name: h.value for h in getattr(server, "headers", None) or []}
            url = str(server.url)
            error = (
                None if url.startswith(("http://", "https://")) else "a remote server needs an http(s) url"
            )
            specs.append(McpServerSpec(name, kind, url=url, headers=headers, origin=ORIGIN, error=error))
        elif kind is None and getattr(server, "command", None):
            env = {e.name: e.value for e in getattr(server, "env", None) or []}
            specs.append(
                McpServerSpec(
                    name,
                    "stdio",
                    command=str(server.command),
                    args=tuple(str(a) for a in server.args or ()),
                    env=env,
                    origin=ORIGIN,
                )
            )
        else:
            notes.append(
                f"MCP server {name} ({kind or 'unknown transport'}) from the editor is not supported; "
                "it was left out"
            )
    return specs, notes
