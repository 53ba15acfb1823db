"""``HumanInTheLoop``: ask a person before a tool call runs (LangChain's
HumanInTheLoopMiddleware, on this shell's ``ctx.ask``).

Why a gate (``before_tool_call``) and not an onion: the decision has to happen
before anything runs, and the stack already knows how to turn the three answers
into outcomes. *approve* passes; *edit* returns new ``args``, which the stack
re-validates against the tool's schema (invalid edits become an error result the
model reads, the tool never runs; the call id is kept); *reject* blocks with the
user's message, which the model reads as an error tool result.

Which calls ask: ``interrupt_on`` maps a tool name to ``True`` (ask, all
decisions), ``False`` (never ask) or ``{"allowed_decisions": [...],
"description": str | callable}``. A tool with no entry asks when it can change
something (``read_only=False``) and runs freely when it is read-only, so a bare
``HumanInTheLoop()`` is a safe default.

"Always allow" lives in ``ctx.session_state["always_allow"]`` (a JSON list of tool
names), so it is saved with the session and survives replies, not just the
current one.

Each call's gate runs in its own task when tools run in parallel, so several
approvals can be pending at once; nothing here is shared between those tasks
except the session's allow-list, which is only appended to.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Mapping, Sequence
from typing import Any, ClassVar, TypeAlias, TypedDict

from shell.core.approvals import ALL_DECISIONS, ApprovalDecision, ApprovalRequest, DecisionType
from shell.core.messages import ToolCallBlock
from shell.core.tools import Tool

from .base import Middleware
from .context import ToolCallContext
from .types import BeforeToolCallResult

DescriptionFn: TypeAlias = Callable[[ToolCallBlock, Tool, dict[str, Any]], Any]
"""``(tool_call, tool, args) -> str`` (may be async): the text the approver reads."""


class InterruptConfig(TypedDict, total=False):
    """One tool's approval settings."""

    allowed_decisions: Sequence[DecisionType]
    description: str | DescriptionFn


InterruptOn: TypeAlias = Mapping[str, "bool | InterruptConfig"]

DEFAULT_DESCRIPTION_PREFIX = "Tool execution requires approval"
ALWAYS_ALLOW_KEY = "always_allow"


class _Resolved:
    """A tool's config after defaults: which decisions, and how to describe it."""

    __slots__ = ("allowed", "description")

    def __init__(self, allowed: tuple[DecisionType, ...], description: str | DescriptionFn | None) -> None:
        self.allowed = allowed
        self.description = description


def _check_config(name: str, value: bool | InterruptConfig) -> _Resolved | None:
    if value is True:
        return _Resolved(ALL_DECISIONS, None)
    if value is False:
        return None
    if not isinstance(value, Mapping):
        raise TypeError(f"interrupt_on[{name!r}] must be True, False or a dict, not {value!r}")
    unknown = set(value) - {"allowed_decisions", "description"}
    if unknown:
        raise ValueError(f"interrupt_on[{name!r}]: unknown keys {sorted(unknown)}")
    allowed = tuple(value.get("allowed_decisions", ALL_DECISIONS))
    bad = [d for d in allowed if d not in ALL_DECISIONS]
    if bad or not allowed:
        raise ValueError(
            f"interrupt_on[{name!r}]['allowed_decisions'] must be a non-empty subset of "
            f"{list(ALL_DECISIONS)}, got {list(allowed)}"
        )
    return _Resolved(allowed, value.get("description"))


class HumanInTheLoop(Middleware):
    """Ask before tool calls run: approve, edit the arguments, or reject with a reason.

    Tools that can change things ask by default; read-only tools run freely.
    """

    builtin: ClassVar[bool] = True

    def __init__(
        self,
        interrupt_on: InterruptOn | None = None,
        *,
        description_prefix: str = DEFAULT_DESCRIPTION_PREFIX,
    ) -> None:
        self.interrupt_on: dict[str, _Resolved | None] = {
            name: _check_config(name, value) for name, value in (interrupt_on or {}).items()
        }
        self.description_prefix = description_prefix

    def _config_for(self, tool: Tool) -> _Resolved | None:
        if tool.name in self.interrupt_on:
            return self.interrupt_on[tool.name]
        return None if tool.read_only else _Resolved(ALL_DECISIONS, None)

    async def _describe(self, ctx: ToolCallContext, config: _Resolved) -> str:
        description = config.description
        if callable(description):
            text = description(ctx.call, ctx.tool, dict(ctx.args))
            if inspect.isawaitable(text):
                text = await text
            return str(text)
        if isinstance(description, str):
            return description
        args = ", ".join(f"{k}={v!r}" for k, v in ctx.args.items())
        return f"{self.description_prefix}\n\nTool: {ctx.tool.name}\nArgs: {args or '(none)'}"

    @staticmethod
    def always_allowed(ctx: ToolCallContext) -> list[str]:
        """The session's "always allow" list (tool names)."""
        allowed = ctx.session_state.setdefault(ALWAYS_ALLOW_KEY, [])
        assert isinstance(allowed, list)
        return allowed

    async def before_tool_call(self, ctx: ToolCallContext) -> BeforeToolCallResult | None:
        config = self._config_for(ctx.tool)
        name = ctx.tool.name
        if config is None or name in self.always_allowed(ctx):
            return None
        request = ApprovalRequest(
            ctx.call, ctx.tool, dict(ctx.args), config.allowed, await self._describe(ctx, config)
        )
        decision = await ctx.ask(request)
        if not isinstance(decision, ApprovalDecision):
            return _block(
                f"The approval for {name} got no usable answer ({decision!r}); the call was not run."
            )
        if decision.type not in config.allowed:
            return _block(
                f"The decision {decision.type!r} is not allowed for {name} "
                f"(allowed: {', '.join(config.allowed)}); the call was not run."
            )
        if decision.type == "reject":
            return _block(decision.message or f"User rejected the tool call for {name}")
        if decision.always and name not in self.always_allowed(ctx):
            self.always_allowed(ctx).append(name)
        if decision.type == "edit":
            if decision.args is None:
                return _block(f"The edit of the call to {name} carried no arguments; the call was not run.")
            return BeforeToolCallResult(args=dict(decision.args))
        return None


def _block(reason: str) -> BeforeToolCallResult:
    return BeforeToolCallResult(block=True, reason=reason)
