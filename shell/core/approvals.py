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
from .textsafety import sanitize_line
from .tools import ToolArgumentError

if TYPE_CHECKING:
    from .tools import Tool

DecisionType: TypeAlias = Literal["approve", "edit", "reject"]
ALL_DECISIONS: tuple[DecisionType, ...] = ("approve", "edit", "reject")
RuleScope: TypeAlias = Literal["session", "project", "user"]
"""Where an "always" is kept: this session, this project, or everywhere (user config)."""
RULE_SCOPES: tuple[RuleScope, ...] = ("session", "project", "user")


@dataclass(frozen=True, slots=True)
class BatchPlace:
    """Where an asking call sits among the calls of its model turn (one reply's batch):
    the dialog says "call 2 of 5" and offers "the rest" answers only when there is a rest.
    ``key`` names the batch (reply and round): a standing answer never reaches another."""

    key: str
    index: int
    """0-based position in the batch."""
    size: int
    later_same: tuple[tuple[int, ToolCallBlock], ...] = ()
    """The calls after this one in the batch to the same tool, each with its 0-based
    position: what "approve the rest" would cover, listed to the user before the key
    is taken (what is approved is what is seen)."""

    @property
    def later_same_tool(self) -> int:
        """How many calls after this one in the batch go to the same tool."""
        return len(self.later_same)

    @property
    def later(self) -> int:
        """Calls after this one in the batch."""
        return self.size - self.index - 1


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
    batch: BatchPlace | None = None
    """Where the call sits in its batch (None: not known, or asked from inside a tool)."""
    routine: bool = False
    """The policy asks this only because the mode asks about every such call (no path
    outside the workspace, no file that runs later, no secret, no rule that asks, no
    network): only then may "approve the rest" be offered and cover it."""

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
    ``suggested_rules``) in ``scope``. ``rest`` also answers the calls after this
    one in the same batch: with ``approve`` only those the question listed
    (``BatchPlace.later_same``), with the arguments listed, that ask the same
    routine question (each still judged by the policy first), with ``reject`` all
    of them (see ``HumanInTheLoop``)."""

    type: DecisionType
    args: dict[str, Any] | None = None
    message: str | None = None
    always: bool = False
    rules: tuple[str, ...] | None = None
    scope: RuleScope = "session"
    rest: bool = False

    @classmethod
    def approve(
        cls, *, always: bool = False, rules: tuple[str, ...] | None = None, scope: RuleScope = "session",
        rest: bool = False,
    ) -> ApprovalDecision:
        return cls("approve", always=always, rules=rules, scope=scope, rest=rest)

    @classmethod
    def edit(cls, args: dict[str, Any]) -> ApprovalDecision:
        return cls("edit", args=args)

    @classmethod
    def reject(cls, message: str | None = None, *, rest: bool = False) -> ApprovalDecision:
        return cls("reject", message=message, rest=rest)


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


def rest_rejection(request: ApprovalRequest, reason: str = "") -> ApprovalDecision:
    """The user's "no to this call and the rest of the batch" (the model reads it for
    this call; each later call gets :func:`rest_refusal`)."""
    said = (f"The user rejected the call to {request.call.name} and the other tool calls after it in "
            "your last message; none of them was run.")
    reason = reason.strip()
    return ApprovalDecision.reject(f"{said} Their reason: {reason}" if reason else said, rest=True)


def rest_refusal(name: str) -> str:
    """What the model reads for each later call of a batch whose rest the user rejected
    (their reason, if any, is in the result of the call they answered)."""
    return (f"The user rejected the rest of the tool calls in your last message, this call to {name} "
            "among them; it was not run.")


UNATTENDED = "No one was there to approve the call to "


def unattended_rejection(request: ApprovalRequest) -> ApprovalDecision:
    """The answer when nobody serves ``ask``: reject, and tell the model why."""
    return ApprovalDecision.reject(
        f"{UNATTENDED}{request.call.name}; it was not run. "
        "Ask the user to run the shell interactively or to allow this tool."
    )


def is_unattended(decision: ApprovalDecision) -> bool:
    """Whether ``decision`` is :func:`unattended_rejection`'s (no user said no)."""
    return decision.type == "reject" and (decision.message or "").startswith(UNATTENDED)


def json_object(text: str) -> dict[str, Any]:
    """``text`` as a JSON object; ``ValueError`` saying what to fix where it is not one."""
    try:
        value: Any = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ValueError(f"Not valid JSON: {exc.msg} (line {exc.lineno}, column {exc.colno})") from None
    except RecursionError:
        raise ValueError("Not valid JSON: nested too deeply") from None
    if not isinstance(value, dict):
        raise ValueError("The arguments must be a JSON object ({...}).")
    return value


def parse_edited_args(request: ApprovalRequest, text: str) -> dict[str, Any]:
    """Arguments the user edited as JSON, checked against the tool's schema.

    Raises ``ValueError`` (a ``ToolArgumentError`` for schema problems) with a
    message to show next to the editor; every front end's "edit" uses this.
    """
    args = json_object(text)
    if request.tool is not None:
        problems = argument_problems(request.tool.parameters, args)
        if problems:
            said = "; ".join(problems)
            raise ToolArgumentError(f"{said[0].upper()}{said[1:]}. {accepted_arguments(request.tool)}")
        return request.tool.validate(args)
    return args


NAMES_SHOWN = 12
"""How many argument names a message lists before "and N more" (an MCP tool may
declare hundreds)."""


def _names(names: list[str]) -> str:
    shown = [sanitize_line(n)[:60] for n in names[:NAMES_SHOWN]]
    more = f" and {len(names) - NAMES_SHOWN} more" if len(names) > NAMES_SHOWN else ""
    return ", ".join(shown) + more


def argument_problems(schema: Any, args: dict[str, Any]) -> list[str]:
    """What a person's edit gets wrong about the tool's argument names: an argument
    the schema does not declare (a typo like ``contnet`` would otherwise be ignored by
    the tool, and ``"extra": 1`` passed as valid) and a required one that is missing.

    Stricter than the check of the model's calls (tools ignore unknown arguments):
    an edit is the user saying exactly what should run. A schema that declares no
    ``properties`` at all, or allows more (``additionalProperties`` not false), lets
    any name through."""
    schema = schema if isinstance(schema, dict) else {}
    properties = schema.get("properties")
    required = schema.get("required")
    required = [k for k in required if isinstance(k, str)] if isinstance(required, list) else []
    problems: list[str] = []
    open_ended = schema.get("additionalProperties", False) not in (False, None)
    if isinstance(properties, dict) and not open_ended:
        unknown = [k for k in args if k not in properties]
        if unknown:
            problems.append(f"unknown argument{'s' if len(unknown) > 1 else ''}: {_names(unknown)}")
    missing = [k for k in required if k not in args]
    if missing:
        problems.append(f"missing required argument{'s' if len(missing) > 1 else ''}: {_names(missing)}")
    return problems


def accepted_arguments(tool: Tool) -> str:
    """``write_file takes: path (string, required), content (string, required)``: what
    an edit may say, for the message next to the editor."""
    schema = tool.parameters if isinstance(tool.parameters, dict) else {}
    properties = schema.get("properties")
    properties = properties if isinstance(properties, dict) else {}
    required = schema.get("required")
    required = set(required) if isinstance(required, list) else set()
    name = sanitize_line(tool.name)
    if not properties:
        return f"{name} takes no arguments."
    parts = []
    for key, spec in list(properties.items())[:NAMES_SHOWN]:
        kind = spec.get("type") if isinstance(spec, dict) else None
        kinds = [kind] if isinstance(kind, str) else [k for k in kind if isinstance(k, str)] \
            if isinstance(kind, list) else []
        said = [" or ".join(sanitize_line(k)[:20] for k in kinds)] if kinds else []
        if key in required:
            said.append("required")
        parts.append(sanitize_line(str(key))[:60] + (f" ({', '.join(said)})" if said else ""))
    more = len(properties) - NAMES_SHOWN
    return f"{name} takes: {', '.join(parts)}" + (f" and {more} more." if more > 0 else ".")
