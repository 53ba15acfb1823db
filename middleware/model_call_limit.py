"""``ModelCallLimit``: cap the number of model calls (LangChain's
ModelCallLimitMiddleware), against runaway loops and surprise bills.

Two scopes: ``thread_limit`` counts every call of the session (kept in
``ctx.session_state``, so it survives a restart of a saved session) and
``run_limit`` the calls of the current reply (``ctx.reply_state``, fresh every
reply). ``None`` means no limit in that scope.

The check sits in ``on_model_call``, the layer nearest the model, so a call that
would pass the limit is never sent. A call is counted when it is attempted (a
failed call still cost a request). When a limit is reached:

- ``exit_behavior="end"`` (the default) ends the reply gracefully: instead of
  calling the model the layer streams a short assistant message saying which
  limit was reached, and ``after_model_response`` returns ``decision="stop"``, so
  the reply ends with ``stop_reason="stopped"`` and that notice as its message.
- ``exit_behavior="error"`` raises :class:`ModelCallLimitExceededError`; the reply
  ends with an ``ErrorEvent`` whose ``source`` is this middleware.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import ClassVar, Literal

from shell.core.messages import AssistantMessage
from shell.core.model import ModelChunk, ModelRequest, StopChunk, TextDelta

from .base import Middleware, ModelNext
from .context import HookContext
from .types import StopReply, TurnAction

ExitBehavior = Literal["end", "error"]


class ModelCallLimitExceededError(StopReply):
    """Raised with ``exit_behavior="error"`` when a model call limit is reached."""


def limit_details(thread: tuple[int, int | None], run: tuple[int, int | None]) -> str:
    """The limits that were reached, e.g. ``thread limit (3/3), run limit (2/2)``."""
    parts = [
        f"{scope} limit ({count}/{limit})"
        for scope, (count, limit) in (("thread", thread), ("run", run))
        if limit is not None and count >= limit
    ]
    return ", ".join(parts)


class ModelCallLimit(Middleware):
    """Cap model calls per session (thread_limit) and per reply (run_limit)."""

    builtin: ClassVar[bool] = True

    def __init__(
        self,
        *,
        thread_limit: int | None = None,
        run_limit: int | None = None,
        exit_behavior: ExitBehavior = "end",
    ) -> None:
        if exit_behavior not in ("end", "error"):
            raise ValueError(f"exit_behavior must be 'end' or 'error', not {exit_behavior!r}")
        for label, value in (("thread_limit", thread_limit), ("run_limit", run_limit)):
            if value is not None and value < 0:
                raise ValueError(f"{label} must not be negative")
        self.thread_limit = thread_limit
        self.run_limit = run_limit
        self.exit_behavior = exit_behavior

    def counts(self, ctx: HookContext) -> tuple[int, int]:
        """(calls in this session, calls in this reply)."""
        return int(ctx.session_state.get("thread_count", 0)), int(ctx.reply_state.get("run_count", 0))

    def _exceeded(self, ctx: HookContext) -> str | None:
        thread, run = self.counts(ctx)
        details = limit_details((thread, self.thread_limit), (run, self.run_limit))
        return details or None

    async def on_model_call(
        self, ctx: HookContext, request: ModelRequest, next: ModelNext
    ) -> AsyncIterator[ModelChunk]:
        details = self._exceeded(ctx)
        if details is not None:
            message = f"Model call limits exceeded: {details}"
            if self.exit_behavior == "error":
                raise ModelCallLimitExceededError(message)  # no final period: the error report adds one
            ctx.reply_state["ended"] = True
            yield TextDelta(f"{message}. Stopping here.")
            yield StopChunk("end_turn")
            return
        thread, run = self.counts(ctx)
        ctx.session_state["thread_count"] = thread + 1
        ctx.reply_state["run_count"] = run + 1
        async for chunk in next(request):
            yield chunk

    async def after_model_response(self, ctx: HookContext, response: AssistantMessage) -> TurnAction | None:
        if ctx.reply_state.get("ended"):
            return TurnAction(decision="stop")
        return None
