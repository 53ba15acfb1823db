"""The one place where the editor protocol meets the permission policy.

``shell.permissions`` decides every call (through HumanInTheLoop, in every front
end); this module only translates between it and ACP, and decides nothing:

- **Modes** are the policy's modes, offered as ACP session modes and as the
  ``mode`` config option; switching one sets ``PermissionPolicy.mode``.
- **The dialog**: a call the policy says ``ask`` about reaches
  ``session/request_permission`` with *Allow* / *Reject* and, where the policy
  suggests the rules an "always" would keep, *Always allow RULES* (those rules,
  kept for the session) and *Always reject RULES* (the same patterns as deny rules).
  A question about a path outside the workspace (the workspace's fence asking)
  gets no "always": its answer already covers the directory for the session.
- **The rest of the reply** (the line mode's and the TUI's ``Y`` and ``N``): when later
  calls of the same reply would be answered too, *Allow this and N more TOOL calls
  of this reply like it* (``allow_rest``: approved with the rest of the batch; each
  later call is still judged by the policy first, and only the same routine question
  is covered) and *Reject this and the N calls after it* (``reject_rest``). Their
  kinds are ``allow_always`` / ``reject_always`` (ACP has no other): they keep no rule.
- What a client may add: ``_meta: {"agent-shell": {"args": {...}}}`` runs the call
  with edited arguments, ``{"agent-shell": {"message": "..."}}`` is the reason the
  model reads.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal, TypeAlias

from shell.core.approvals import ApprovalDecision, ApprovalRequest, rejected_message, rest_rejection
from shell.core.textsafety import show_blank_runs
from shell.core.tools import Tool, ToolKind
from shell.frontend.approval import approval_lines, rest_counts
from shell.permissions import paths
from shell.permissions.modes import MODES as POLICY_MODES
from shell.permissions.modes import SUMMARY, ModeError, parse_mode
from shell.permissions.policy import PermissionPolicy
from shell.permissions.rules import RuleError

OptionKind: TypeAlias = Literal["allow_once", "allow_always", "reject_once", "reject_always"]


@dataclass(frozen=True, slots=True)
class Mode:
    id: str
    name: str
    description: str


_NAMES = {
    "default": "Ask",
    "accept-edits": "Accept edits",
    "plan": "Plan (read-only)",
    "auto": "Auto (sandboxed)",
    "bypass": "Bypass permissions",
}
MODES: tuple[Mode, ...] = tuple(
    Mode(m, _NAMES.get(m, m), SUMMARY[m][:1].upper() + SUMMARY[m][1:] + ".") for m in POLICY_MODES
)
MODE_IDS = tuple(m.id for m in MODES)

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


def tool_kind(tool: Tool | None, name: str) -> ToolKind:
    """The tool's own kind; by name for a tool no longer there (a replayed session)."""
    if tool is not None:
        return tool.kind
    return _KINDS_BY_NAME.get(name, "other")


class AcpPermissions:
    """One ACP session's view of the runtime's :class:`PermissionPolicy`."""

    def __init__(self, policy: PermissionPolicy, workspace_root: Path) -> None:
        self.policy = policy
        self.workspace_root = workspace_root

    @property
    def mode(self) -> str:
        return self.policy.mode

    def set_mode(self, mode: str) -> None:
        """Raises ``ValueError`` (``ModeError``) naming the modes there are."""
        self.policy.mode = parse_mode(mode)

    def options(self, request: ApprovalRequest) -> list[tuple[str, str, OptionKind]]:
        """``(option_id, label, kind)`` for ``session/request_permission``: only what
        the request allows; "always" only where the policy has rules to keep."""
        allowed = request.allowed_decisions
        rules = () if is_path_request(request, self.workspace_root) else request.suggested_rules
        shown = ", ".join(rules)
        same, later = rest_counts(request)
        name = request.call.name
        options: list[tuple[str, str, OptionKind]] = []
        if "approve" in allowed:
            options.append(("allow_once", "Allow", "allow_once"))
            if rules:
                options.append(("allow_always", f"Always allow {shown} in this session", "allow_always"))
            if same:  # the calls are listed in the request's content (approval_text)
                more = f"{same} later {name} call{'s' if same != 1 else ''}"
                options.append(("allow_rest", f"Allow this and the {more} listed with it", "allow_always"))
        if "reject" in allowed:
            options.append(("reject_once", "Reject", "reject_once"))
            if rules:
                options.append(("reject_always", f"Always reject {shown} in this session", "reject_always"))
            if later:
                options.append(("reject_rest", f"Reject this and the {later} call{'s' if later != 1 else ''} "
                                               "after it in this reply", "reject_always"))
        return options

    def decide(
        self, request: ApprovalRequest, option_id: str | None, meta: Mapping[str, Any] | None = None
    ) -> ApprovalDecision:
        """The decision for the option the user picked (None: the dialog was cancelled)."""
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
            if option_id == "allow_always" and request.suggested_rules:
                return ApprovalDecision.approve(always=True, rules=request.suggested_rules, scope="session")
            return ApprovalDecision.approve()
        if option_id == "allow_rest" and "approve" in request.allowed_decisions and rest_counts(request)[0]:
            return ApprovalDecision.approve(rest=True)
        if option_id == "reject_rest" and "reject" in request.allowed_decisions and rest_counts(request)[1]:
            return rest_rejection(request, message or "")
        if option_id in ("reject_once", "reject_always") and "reject" in request.allowed_decisions:
            note = ""
            if option_id == "reject_always" and not is_path_request(request, self.workspace_root):
                note = self._deny(request.suggested_rules)
            return ApprovalDecision.reject((message or rejected_message(name)) + note)
        return ApprovalDecision.reject(
            f"The editor answered the permission request for {name} with an unknown option "
            f"{option_id!r}; the call was not run."
        )

    def _deny(self, rules: tuple[str, ...]) -> str:
        """Keep "always reject" as session deny rules; the model is told, so it stops."""
        try:
            for text in rules:
                self.policy.add_rule(text, "deny", "session")
        except RuleError as exc:
            return f" (The rule could not be kept: {exc}.)"
        return f" Calls matching {', '.join(rules)} are denied for the rest of this session." if rules else ""


def approval_text(request: ApprovalRequest) -> str:
    """The question as the TUI and the line mode word it (:func:`approval_lines`: the
    hidden-character warning, why it asks, every argument whole, the commands a line
    runs or the diff), for the request's content: editors show a request's title and
    content, not its ``rawInput``, so a command's tail past the title or a URL's query
    was approved unseen (finding N8). Runs of blanks are counted (J12): an editor's
    code block does not wrap, and padding would push a tail out of sight. The caller
    fences and sanitises it."""
    lines = approval_lines(request)
    if request.reason and request.reason not in "\n".join(lines):  # a tool's own description
        lines.insert(1, f"  {request.reason}")
    return "\n".join(show_blank_runs(line) for line in lines)


def is_path_request(request: ApprovalRequest, workspace_root: Path) -> bool:
    """A question about a path outside the workspace (the workspace's fence asking),
    rather than about the call as such: its ``args`` are not the call's, or they are
    only a ``path`` outside the root and no edit is offered."""
    from shell.tools.workspace import is_outside_question

    if is_outside_question(request) or dict(request.args) != dict(request.call.args):
        return True
    path = request.args.get("path")
    if set(request.args) != {"path"} or "edit" in request.allowed_decisions or not isinstance(path, str):
        return False
    try:
        resolved = paths.real(path, workspace_root)
    except paths.BadPath:
        return False  # the policy refuses such a call; nothing to ask about
    return not paths.within(resolved, workspace_root)


__all__ = ["MODES", "MODE_IDS", "AcpPermissions", "ModeError", "approval_text", "is_path_request",
           "tool_kind"]
