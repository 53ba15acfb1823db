"""The one question the core knows how to ask: may this tool call run?

A middleware (``HumanInTheLoop``) builds an :class:`ApprovalRequest` and awaits
``ctx.ask(request)``; whoever serves the agent's ``ask`` (the TUI dialog, the line
mode prompt, the headless policy) answers with an :class:`ApprovalDecision`.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal, TypeAlias

from .messages import ToolCallBlock

if TYPE_CHECKING:
    from .tools import Tool

DecisionType: TypeAlias = Literal["approve", "edit", "reject"]
ALL_DECISIONS: tuple[DecisionType, ...] = ("approve", "edit", "reject")
RuleScope: TypeAlias = Literal["session", "project", "user"]
"""Where an "always" is kept: this session, this project, or everywhere (user config)."""
RULE_SCOPES: tuple[RuleScope, ...] = ("session", "project", "user")


@dataclass(frozen=True, slots=True)
class ApprovalRequest:
    call: ToolCallBlock
    tool: Tool | None
    args: dict[str, Any]
    allowed_decisions: tuple[DecisionType, ...] = ALL_DECISIONS
    description: str = ""
    reason: str = ""
    """Why this call asks (the permission policy's words), for the approver."""
    suggested_rules: tuple[str, ...] = ()
    """What "always" would remember (e.g. ``run_shell(git status:*)``), for the
    approver to edit and scope; empty: "always" is not offered."""
    preview: str = ""
    """What the call would change, e.g. a unified diff for a file edit."""

    def own_words(self) -> str:
        """``description`` without a paragraph that only restates the call
        (``Tool: NAME`` / ``Args: …``, as HumanInTheLoop's default description ends):
        every front end shows the tool and its arguments on its own."""
        paragraphs = self.description.strip().split("\n\n")
        restated = f"Tool: {self.call.name}\n"
        return "\n\n".join(p for p in paragraphs if not p.startswith(restated)).strip()


@dataclass(frozen=True, slots=True)
class ApprovalDecision:
    """``edit`` runs the call with ``args``; ``reject`` shows ``message`` to the model.

    ``always`` (with ``approve``) remembers ``rules`` (default: the request's
    ``suggested_rules``) in ``scope``."""

    type: DecisionType
    args: dict[str, Any] | None = None
    message: str | None = None
    always: bool = False
    rules: tuple[str, ...] | None = None
    scope: RuleScope = "session"

    @classmethod
    def approve(
        cls, *, always: bool = False, rules: tuple[str, ...] | None = None, scope: RuleScope = "session"
    ) -> ApprovalDecision:
        return cls("approve", always=always, rules=rules, scope=scope)

    @classmethod
    def edit(cls, args: dict[str, Any]) -> ApprovalDecision:
        return cls("edit", args=args)

    @classmethod
    def reject(cls, message: str | None = None) -> ApprovalDecision:
        return cls("reject", message=message)


def rejected_message(name: str) -> str:
    """What the model reads when the user rejects a call and gives no reason (every
    front end, and HumanInTheLoop for a rejection that carries no message)."""
    return f"The user rejected the call to {name}; it was not run."


def rejection(request: ApprovalRequest, reason: str = "") -> ApprovalDecision:
    """The user's "no", with their reason after the one default message: a bare reason
    ("not that") would read to the model as the tool's own error, and it would retry."""
    said = rejected_message(request.call.name)
    reason = reason.strip()
    return ApprovalDecision.reject(f"{said} Their reason: {reason}" if reason else said)


def unattended_rejection(request: ApprovalRequest) -> ApprovalDecision:
    """The answer when nobody serves ``ask``: reject, and tell the model why."""
    return ApprovalDecision.reject(
        f"No one was there to approve the call to {request.call.name}; it was not run. "
        "Ask the user to run the shell interactively or to allow this tool."
    )


def parse_edited_args(request: ApprovalRequest, text: str) -> dict[str, Any]:
    """Arguments the user edited as JSON, checked against the tool's schema.

    Raises ``ValueError`` (a ``ToolArgumentError`` for schema problems) with a
    message to show next to the editor; every front end's "edit" uses this.
    """
    try:
        args: Any = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ValueError(f"Not valid JSON: {exc.msg} (line {exc.lineno}, column {exc.colno})") from None
    except RecursionError:
        raise ValueError("Not valid JSON: nested too deeply") from None
    if not isinstance(args, dict):
        raise ValueError("The arguments must be a JSON object ({...}).")
    if request.tool is not None:
        return request.tool.validate(args)
    return args
