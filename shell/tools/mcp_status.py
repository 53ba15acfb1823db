"""Where one MCP server stands, as the front ends show it.

Kept apart from the connection itself (:mod:`.mcp_server`) so that whoever only
shows a server's state (the side panel, ``/mcp``) needs nothing else.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

State = Literal["connecting", "ready", "failed", "exited", "stopped"]


@dataclass(frozen=True, slots=True)
class ServerStatus:
    """Where one server stands; ``message`` says why it failed or exited."""

    name: str
    state: State
    message: str = ""
    transport: str = "stdio"
    tools: int = 0
    origin: str = "config"
    in_workspace: bool = False
    """One of the user's own servers that starts in the workspace (``cwd = "workspace"``)."""
    log: str = ""
    """The server's last stderr lines when it failed or exited: for the user (``/mcp``,
    the notice), never in what the model reads. A server's log is where keys turn up
    ("invalid key sk-…", a config dump), and it is not a tool's answer (finding T6)."""

    @property
    def reason(self) -> str:
        """``message`` and, under it, the server's last stderr lines: what a user is shown
        (redacted by the front end like any error)."""
        tail = f"\nserver stderr (last lines):\n{self.log}" if self.log else ""
        return self.message + tail
