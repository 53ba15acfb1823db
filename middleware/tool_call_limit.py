"""``ToolCallLimit``: cap tool calls, of one tool or of all (LangChain's
ToolCallLimitMiddleware), against runaway loops and expensive APIs.

``thread_limit`` counts the session's calls (``ctx.session_state``, saved with the
session); ``run_limit`` the current reply's (``ctx.reply_state``). ``tool_name``
limits one tool; without it every tool call counts. Only calls that were allowed
to go ahead are counted, so the calls past a limit are exactly the ones blocked.

Why the decision is taken in ``after_model_response``: it sees the whole turn's
calls in the order the model made them, before any of them runs. Tools may run in
parallel, each gate in its own task; deciding there would make "which call was the
third" depend on scheduling. ``before_tool_call`` only applies the decision.

``exit_behavior``:

- ``"continue"`` (default): each call past the limit gets an error result telling
  the model the limit was hit; the turn's other calls run and the model carries on.
- ``"error"``: raise :class:`ToolCallLimitExceededError` before any of the turn's
  calls runs; the reply ends with an ``ErrorEvent`` naming this middleware.
- ``"end"``: the calls past the limit get the error result, the others run, then
  an assistant message saying the limit was reached is added and the reply stops
  (``stop_reason="stopped"``). LangChain refuses ``"end"`` when other tools have
  calls pending in the same turn (a limitation of its graph); here those calls
  simply run, which is what that refusal was protecting.

Give each instance its own name when several are stacked: the name is
``ToolCallLimit[<tool_name>]`` for a per-tool limit, ``ToolCallLimit`` otherwise.
"""

from __future__ import annotations

from typing import Any, ClassVar, Literal

from shell.core.messages import AssistantMessage, TextBlock, ToolCallBlock

from .base import Middleware
from .context import HookContext, ToolCallContext
from .tool_names import ToolNameCheck
from .types import BeforeToolCallResult, StopReply, TurnAction

ExitBehavior = Literal["continue", "error", "end"]


class ToolCallLimitExceededError(StopReply):
    """Raised with ``exit_behavior="error"`` when a call would pass a limit."""


class ToolCallLimit(Middleware):
    """Cap tool calls per session and per reply, for one tool or all of them."""

    builtin: ClassVar[bool] = True

    def __init__(
        self,
        *,
        tool_name: str | None = None,
        thread_limit: int | None = None,
        run_limit: int | None = None,
        exit_behavior: ExitBehavior = "continue",
    ) -> None:
        if thread_limit is None and run_limit is None:
            raise ValueError("ToolCallLimit needs thread_limit, run_limit or both")
        for label, value in (("thread_limit", thread_limit), ("run_limit", run_limit)):
            if value is not None and value < 0:
                raise ValueError(f"{label} must not be negative")
        if thread_limit is not None and run_limit is not None and run_limit > thread_limit:
            raise ValueError("run_limit cannot exceed thread_limit")
        if exit_behavior not in ("continue", "error", "end"):
            raise ValueError(f"exit_behavior must be 'continue', 'error' or 'end', not {exit_behavior!r}")
        self.tool_name = tool_name
        self.thread_limit = thread_limit
        self.run_limit = run_limit
        self.exit_behavior = exit_behavior
        self.name = f"ToolCallLimit[{tool_name}]" if tool_name else "ToolCallLimit"
        unknown = "it limits nothing until a tool of that name appears"
        self._names = ToolNameCheck("tool_name", [tool_name] if tool_name else [], unknown)

    def _tell_if_unknown(self, ctx: HookContext) -> None:
        """A ``tool_name`` that names no tool (a typo, a tool not installed) limited
        nothing and said nothing (finding T3): said once (:mod:`.tool_names`)."""
        self._names.missing(ctx, self.name)

    # -- counting ------------------------------------------------------------------
    def counts(self, ctx: HookContext) -> tuple[int, int]:
        """(allowed calls in this session, allowed calls in this reply)."""
        return int(ctx.session_state.get("thread_count", 0)), int(ctx.reply_state.get("run_count", 0))

    def _applies(self, call: ToolCallBlock) -> bool:
        return self.tool_name is None or call.name == self.tool_name

    def _decide(self, ctx: HookContext, call: ToolCallBlock) -> str | None:
        """Count ``call`` if it may run; otherwise return why it may not."""
        decided: dict[str, str | None] = ctx.reply_state.setdefault("decided", {})
        if call.id in decided:
            return decided[call.id]
        thread, run = self.counts(ctx)
        reached = [
            f"{scope} limit ({count}/{limit})"
            for scope, count, limit in (("thread", thread, self.thread_limit), ("run", run, self.run_limit))
            if limit is not None and count >= limit
        ]
        verdict = ", ".join(reached) or None
        if verdict is None:
            ctx.session_state["thread_count"] = thread + 1
            ctx.reply_state["run_count"] = run + 1
        decided[call.id] = verdict
        return verdict

    # -- messages --------------------------------------------------------------------
    def _subject(self, call: ToolCallBlock) -> str:
        return f"'{self.tool_name}'" if self.tool_name else f"'{call.name}' or any other tool"

    def blocked_message(self, call: ToolCallBlock, details: str) -> str:
        """The error result the model reads for a call past the limit."""
        where = f" for '{self.tool_name}'" if self.tool_name else ""
        return f"Tool call limit exceeded{where}: {details}. Do not call {self._subject(call)} again."

    def end_message(self, details: str) -> str:
        """The assistant message that ends the reply with ``exit_behavior="end"``."""
        which = f"'{self.tool_name}' tool call limit" if self.tool_name else "tool call limit"
        return f"Stopped: the {which} was reached ({details})."

    # -- hooks -----------------------------------------------------------------------
    async def after_model_response(self, ctx: HookContext, response: AssistantMessage) -> TurnAction | None:
        self._tell_if_unknown(ctx)
        blocked = [
            (call, why)
            for call in response.tool_calls
            if self._applies(call) and (why := self._decide(ctx, call))
        ]
        if not blocked:
            return None
        call, details = blocked[0]
        if self.exit_behavior == "error":
            raise ToolCallLimitExceededError(self.blocked_message(call, details).rstrip("."))
        if self.exit_behavior == "end":
            ctx.reply_state["end"] = True
            return TurnAction(inject_messages=(AssistantMessage((TextBlock(self.end_message(details)),)),))
        return None

    async def before_tool_call(self, ctx: ToolCallContext) -> BeforeToolCallResult | None:
        if not self._applies(ctx.call):
            return None
        details = self._decide(ctx, ctx.call)  # already decided, unless the response was replaced
        if details is None:
            return None
        if self.exit_behavior == "error":
            raise ToolCallLimitExceededError(self.blocked_message(ctx.call, details).rstrip("."))
        return BeforeToolCallResult(block=True, reason=self.blocked_message(ctx.call, details))

    async def should_stop_after_turn(self, ctx: HookContext) -> bool:
        return bool(ctx.reply_state.get("end"))

    def __repr__(self) -> str:
        limits: dict[str, Any] = {"thread": self.thread_limit, "run": self.run_limit}
        return f"<ToolCallLimit {self.name!r} {limits} {self.exit_behavior}>"
