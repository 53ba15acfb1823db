"""The one place where the editor protocol meets the permission policy.

Until ``shell.permissions`` lands, the policy an ACP session can honestly offer is
built from what the shell has: ``HumanInTheLoop`` asks before calls of tools that
are not read-only, and whoever serves ``Agent.ask`` answers. This module adds the
editor's side of it and nothing else:

- **Modes** (ACP session modes and the ``mode`` config option): ``default`` (the
  rest asks), ``accept-edits`` (file edits inside the workspace run unasked),
  ``plan`` (nothing that writes, runs a command or reaches the network runs) and
  ``bypass`` (everything runs). ``auto`` needs the sandbox and is not offered
  until the sandbox exists.
- **Rules from the dialog**: "allow always" becomes HumanInTheLoop's allow-list
  (``ApprovalDecision(always=True)``), "reject always" a deny entry kept in the
  session state of :class:`PolicyGate`, so both are saved with the session.
- **What cannot be asked**: :class:`PolicyGate` is a gate at the outside of the
  stack that refuses what the mode or a deny entry forbids, also when the user
  switched HumanInTheLoop off (switching off the question is not switching off
  ``plan``).

Everything the session needs from the policy goes through :class:`AcpPolicy`,
so moving to ``shell.permissions`` later changes this file, not its callers.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar, Literal, TypeAlias

from middleware.base import Middleware
from middleware.context import ToolCallContext
from middleware.types import BeforeToolCallResult
from shell.core.approvals import ApprovalDecision, ApprovalRequest
from shell.core.tools import Tool

ToolKind: TypeAlias = Literal[
    "read", "edit", "delete", "move", "search", "execute", "think", "fetch", "switch_mode", "other"
]
OptionKind: TypeAlias = Literal["allow_once", "allow_always", "reject_once", "reject_always"]


@dataclass(frozen=True, slots=True)
class Mode:
    id: str
    name: str
    description: str


MODES: tuple[Mode, ...] = (
    Mode("default", "Ask", "Read-only tools run; edits, commands and anything else ask first."),
    Mode("accept-edits", "Accept edits", "File edits inside the workspace run without asking; commands ask."),
    Mode("plan", "Plan (read-only)", "Nothing that writes files, runs commands or reaches the network runs."),
    Mode("bypass", "Bypass permissions", "Every tool call runs without asking. Use with care."),
)
MODE_IDS = tuple(m.id for m in MODES)
DEFAULT_MODE = "default"

_KINDS_BY_NAME: Mapping[str, ToolKind] = {
    "read_file": "read",
    "list_dir": "read",
    "glob": "search",
    "grep": "search",
    "write_file": "edit",
    "edit_file": "edit",
    "run_shell": "execute",
    "fetch_url": "fetch",
    "write_todos": "think",
}
_VALID_KINDS = frozenset(ToolKind.__args__)  # type: ignore[attr-defined]
PLAN_KINDS = frozenset({"read", "search", "think"})
"""What runs in ``plan`` mode: read-only tools of these kinds, and ``think`` tools
(the plan itself: ``write_todos`` changes nothing but the agent's own notes, so it
never asks either)."""
REJECT_STATE_KEY = "always_reject"


def tool_kind(tool: Tool | None, name: str) -> ToolKind:
    """The ACP kind of a tool: its own ``kind`` when it declares one (``Tool.kind``
    is coming with ``shell.permissions``), else known by name, else ``other``."""
    kind = getattr(tool, "kind", None)
    if isinstance(kind, str) and kind in _VALID_KINDS:
        return kind  # type: ignore[return-value]
    return _KINDS_BY_NAME.get(name, "other")


class AcpPolicy:
    """One ACP session's permission state: the mode and the deny entries.

    ``state()`` gives the session-state dict of :class:`PolicyGate` (saved with the
    session, and replaced when a session is loaded, hence a function);
    ``workspace_root`` decides what "inside the workspace" means.
    """

    def __init__(
        self, workspace_root: Path, state: Callable[[], dict[str, Any]], mode: str = DEFAULT_MODE
    ) -> None:
        self.workspace_root = workspace_root
        self.state = state
        self.mode = mode if mode in MODE_IDS else DEFAULT_MODE

    def set_mode(self, mode: str) -> None:
        if mode not in MODE_IDS:
            raise ValueError(f"unknown mode {mode!r} (known: {', '.join(MODE_IDS)})")
        self.mode = mode

    @property
    def rejected_tools(self) -> list[str]:
        state = self.state()
        names = state.setdefault(REJECT_STATE_KEY, [])
        if not isinstance(names, list):  # a damaged session: start over rather than fail
            names = state[REJECT_STATE_KEY] = []
        return names

    # -- deny: what runs under no circumstances ---------------------------------
    def denial(self, tool: Tool | None, name: str) -> str | None:
        """Why this call must not run (the model reads it), or None."""
        if name in self.rejected_tools:
            return (
                f"The user chose to always reject {name} in this session; it was not run. "
                "Do not call it again; say what you would have done instead."
            )
        if self.mode == "plan" and not self._plan_allows(tool, name):
            return (
                f"{name} was not run: the session is in plan mode, where nothing that writes files, "
                "runs commands or reaches the network may run. Read and search to make a plan, then "
                "present it; the user switches the mode when it is time to carry it out."
            )
        return None

    @staticmethod
    def _plan_allows(tool: Tool | None, name: str) -> bool:
        kind = tool_kind(tool, name)
        return kind == "think" or (tool is not None and tool.read_only and kind in PLAN_KINDS)

    # -- allow: what the mode approves without asking ----------------------------
    def automatic(self, request: ApprovalRequest) -> ApprovalDecision | None:
        """The answer the mode gives on its own, or None to ask the user."""
        name = request.call.name
        reason = self.denial(request.tool, name)
        if reason is not None:
            return ApprovalDecision.reject(reason)
        if self.mode == "bypass" or tool_kind(request.tool, name) == "think":
            return ApprovalDecision.approve()  # "think" (write_todos) changes only the agent's own notes
        if (
            self.mode == "accept-edits"
            and tool_kind(request.tool, name) == "edit"
            and not is_path_request(request, self.workspace_root)
            and self._inside_workspace(request.args.get("path"))
        ):
            return ApprovalDecision.approve()
        return None

    def _inside_workspace(self, path: Any) -> bool:
        if not isinstance(path, str) or not path:
            return False
        raw = Path(path).expanduser()
        resolved = (raw if raw.is_absolute() else self.workspace_root / raw).resolve(strict=False)
        return resolved == self.workspace_root or self.workspace_root in resolved.parents

    # -- the dialog ------------------------------------------------------------------
    def options(self, request: ApprovalRequest) -> list[tuple[str, str, OptionKind]]:
        """``(option_id, label, kind)`` for ``session/request_permission``: only what
        the request allows; "always" only where it means something."""
        name = request.call.name
        allowed = request.allowed_decisions
        options: list[tuple[str, str, OptionKind]] = []
        path_request = is_path_request(request, self.workspace_root)
        if "approve" in allowed:
            options.append(("allow_once", "Allow", "allow_once"))
            if not path_request:
                options.append(("allow_always", f"Always allow {name} in this session", "allow_always"))
        if "reject" in allowed:
            options.append(("reject_once", "Reject", "reject_once"))
            if not path_request:
                options.append(("reject_always", f"Always reject {name} in this session", "reject_always"))
        return options

    def decide(
        self, request: ApprovalRequest, option_id: str | None, meta: Mapping[str, Any] | None = None
    ) -> ApprovalDecision:
        """The decision for the option the user picked (None: the dialog was
        cancelled). ``meta`` may carry ``{"agent-shell": {"args": {...}}}`` (run with
        edited arguments) or ``{"agent-shell": {"message": "..."}}`` (the reason the
        model reads), for clients that let the user say more than a button."""
        name = request.call.name
        extra = meta.get("agent-shell") if isinstance(meta, Mapping) else None
        extra = extra if isinstance(extra, Mapping) else {}
        message = extra.get("message") if isinstance(extra.get("message"), str) else None
        if option_id is None:
            return ApprovalDecision.reject(
                f"The permission request for {name} was cancelled; it was not run."
            )
        if option_id in ("allow_once", "allow_always") and "approve" in request.allowed_decisions:
            edited = extra.get("args")
            if isinstance(edited, dict) and "edit" in request.allowed_decisions:
                return ApprovalDecision.edit(edited)
            if option_id == "allow_always":  # as the option says: the whole tool, this session
                return ApprovalDecision.approve(always=True, rules=(name,), scope="session")
            return ApprovalDecision.approve()
        if option_id in ("reject_once", "reject_always") and "reject" in request.allowed_decisions:
            if (
                option_id == "reject_always"
                and not is_path_request(request, self.workspace_root)
                and name not in self.rejected_tools
            ):
                self.rejected_tools.append(name)
            return ApprovalDecision.reject(message or f"The user rejected the call to {name}.")
        return ApprovalDecision.reject(
            f"The editor answered the permission request for {name} with an unknown option "
            f"{option_id!r}; the call was not run."
        )


def is_path_request(request: ApprovalRequest, workspace_root: Path) -> bool:
    """A question about a path outside the workspace (the workspace's fence asking),
    rather than about the call as such: its ``args`` are not the call's, or they are
    only a ``path`` outside the root and no edit is offered."""
    if dict(request.args) != dict(request.call.args):
        return True
    path = request.args.get("path")
    if set(request.args) != {"path"} or "edit" in request.allowed_decisions or not isinstance(path, str):
        return False
    resolved = Path(path).expanduser()
    resolved = (resolved if resolved.is_absolute() else workspace_root / resolved).resolve(strict=False)
    return not (resolved == workspace_root or workspace_root in resolved.parents)


class PolicyGate(Middleware):
    """Refuses what the session's mode or a deny entry forbids, before any other gate.

    Not a switch for the user: it is the policy, placed outermost in an ACP
    session's stack and left out of the config options."""

    builtin: ClassVar[bool] = False
    name = "EditorPermissions"
    description = "The ACP session's permission mode and deny entries (not switchable)."

    def __init__(self) -> None:
        self.policy: AcpPolicy | None = None

    async def before_tool_call(self, ctx: ToolCallContext) -> BeforeToolCallResult | None:
        if self.policy is None:
            return None
        reason = self.policy.denial(ctx.tool, ctx.tool.name)
        return BeforeToolCallResult(block=True, reason=reason) if reason else None
