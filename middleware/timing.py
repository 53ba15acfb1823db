"""``Timing``: how long each model call and each tool took (AgentScope's timing
example, made a built-in).

When an agent feels slow, the first question is where the time goes: the model
(waiting for the first token, or streaming a long answer) or a tool. This
middleware measures each ``on_model_call`` (total and time to the first chunk)
and each ``on_acting`` (the tool execution, retries included when it sits
outside ``ToolRetry``), and reports each one as ``CustomEvent("timing", {...})``
(or an info ``Notice`` with ``report="notice"``). Totals are kept per reply in
``reply_state`` and for the instance's lifetime in ``totals``; at the end of a
reply a summary ``CustomEvent("timing", {"kind": "reply", ...})`` is yielded just
before ``ReplyEnd``. Cancelled calls are not reported: they did not finish.
"""

from __future__ import annotations

import time
from collections.abc import AsyncIterator, Callable
from typing import Any, ClassVar, Literal

from shell.core.events import CustomEvent, Event, Notice, ReplyEnd
from shell.core.messages import ToolResult
from shell.core.model import ModelChunk, ModelRequest, model_label

from .base import Middleware, ModelNext, ReplyNext
from .context import HookContext, ToolCallContext
from .types import ReplyRequest, ToolRequest
from .watching import watch

EVENT_NAME = "timing"


def _zero() -> dict[str, float]:
    return {"model_calls": 0, "model_s": 0.0, "tool_calls": 0, "tool_s": 0.0}


class Timing(Middleware):
    """Reports how long each model call and tool execution took, with totals."""

    builtin: ClassVar[bool] = True
    name = "Timing"
    description = "Times every model call (and its first token) and every tool execution."

    def __init__(
        self,
        *,
        report: Literal["event", "notice", "none"] = "event",
        clock: Callable[[], float] = time.perf_counter,
    ) -> None:
        if report not in ("event", "notice", "none"):
            raise ValueError("report must be 'event', 'notice' or 'none'")
        self.report = report
        self.clock = clock
        self.totals: dict[str, float] = _zero()
        """Lifetime totals of this instance: calls and seconds, model and tools."""

    async def on_reply(
        self, ctx: HookContext, request: ReplyRequest, next: ReplyNext
    ) -> AsyncIterator[Event]:
        async for event in next(request):
            if isinstance(event, ReplyEnd) and "totals" in ctx.reply_state and self.report == "event":
                yield CustomEvent(EVENT_NAME, {"kind": "reply", **ctx.reply_state["totals"]})
            yield event

    def on_model_call(
        self, ctx: HookContext, request: ModelRequest, next: ModelNext
    ) -> AsyncIterator[ModelChunk]:
        # It only looks at the chunks (when the first came, when they ended): a watcher,
        # not a generator layer, so the stream crosses no frame of ours.
        start = self.clock()
        label = model_label(request.model)
        first: float | None = None

        def each(chunk: ModelChunk) -> None:
            nonlocal first
            if first is None:
                first = self.clock() - start

        def end(error: BaseException | None) -> None:
            if error is None or isinstance(error, Exception):  # not a cancel, not a stop
                self._record(ctx, "model", label, start, error is None, first_chunk_s=first)

        return watch(next(request), each, end=end)

    async def on_acting(
        self, ctx: ToolCallContext, request: ToolRequest, next: Callable[[ToolRequest], Any]
    ) -> ToolResult:
        start = self.clock()
        try:
            result: ToolResult = await next(request)
        except Exception:
            self._record(ctx, "tool", request.tool.name, start, False, call_id=request.call.id)
            raise
        self._record(ctx, "tool", request.tool.name, start, not result.is_error, call_id=request.call.id)
        return result

    def _record(
        self,
        ctx: HookContext,
        kind: Literal["model", "tool"],
        label: str,
        start: float,
        ok: bool,
        **extra: Any,
    ) -> None:
        duration = self.clock() - start
        totals = ctx.reply_state.setdefault("totals", _zero())
        for bucket in (totals, self.totals):
            bucket[f"{kind}_calls"] += 1
            bucket[f"{kind}_s"] += duration
        data = {"kind": kind, "name": label, "duration_s": duration, "ok": ok, **extra}
        if self.report == "event":
            ctx.emit(CustomEvent(EVENT_NAME, data))
        elif self.report == "notice":
            first = extra.get("first_chunk_s")
            detail = f" (first chunk after {first:.2f}s)" if isinstance(first, float) else ""
            status = "" if ok else ", failed"
            ctx.emit(Notice("info", f"{kind} {label}: {duration:.2f}s{detail}{status}", self.name))
