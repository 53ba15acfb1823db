"""What a runtime is built from and answers with: its options, its errors, rows it lists."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ..core.messages import Message

HITL = "HumanInTheLoop"


DEFAULT_MIDDLEWARE = (HITL, "ProjectInstructions")
"""Switched on when the config does not list ``[middleware] enabled``."""


class ShellError(Exception):
    """A usage or configuration mistake; the message is one line for the user."""


@dataclass(slots=True)
class RuntimeOptions:
    """The command line's say in building the runtime (all optional)."""

    model: str | None = None
    system: str | None = None
    middleware_on: list[str] = field(default_factory=list)
    middleware_off: list[str] = field(default_factory=list)
    cwd: str | None = None
    config_path: str | None = None
    max_rounds: int = 50
    record: bool = True
    """Save the conversation as a session (``--no-session`` turns it off)."""
    mcp_servers: list[Any] = field(default_factory=list)
    """More MCP servers (``McpServerSpec``) besides the config's, e.g. an ACP client's."""
    permission_mode: str | None = None
    """``--permission-mode`` (``--approve always`` maps to ``bypass``); None: the config's."""
    cli_strict: bool = False
    """The command line chose the permission policy (``--permission-mode`` or
    ``--approve``): rules restored from a saved session do not widen it."""
    trust_workspace: bool = False
    """``--trust-workspace``: use the project's config for this run without asking
    (and without recording it)."""
    add_dirs: list[str] = field(default_factory=list)
    """``--add-dir DIR`` (repeatable): more directories that count as the workspace."""
    rules: dict[str, list[str]] = field(default_factory=dict)
    """``--allow`` / ``--ask`` / ``--deny`` rules for this run, by effect (the
    command line's, listed first by ``/permissions``)."""
    middleware_later: bool = False
    """Build only the middleware the start needs (the switched-on ones and
    HumanInTheLoop, the policy's gate) and leave the switched-off rest for
    ``runtime.complete_middleware()``, which a front end calls once its first
    screen is out (the TUI: after the welcome, before the side panel). The full
    list is built at once whenever a plugin or a name outside the built-ins is
    involved (see :mod:`.middleware_later`)."""


@dataclass(frozen=True, slots=True)
class Compaction:
    """One ``/compact``: the history before and after, and what it was asked to keep."""

    before: list[Message]
    after: list[Message]
    replaced: int
    """How many messages the summary stands for."""
    focus: str
    at: float


@dataclass(frozen=True, slots=True)
class MiddlewareInfo:
    """One row of the side panel / ``/middleware`` listing."""

    name: str
    enabled: bool
    description: str
    calls: int
    time_s: float
    errors: int
    last_error: str | None
