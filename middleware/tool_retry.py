"""``ToolRetry``: try a failing tool again, with exponential backoff (LangChain's
ToolRetryMiddleware).

Network tools fail transiently; a retry a second later usually works and the
model never needs to know. In ``on_acting``, ``next()`` raises the tool's
exception, so this layer can catch it, wait and call ``next()`` again.

Only exceptions are retried: a tool that *returns* an error result has already
answered, and repeating it would repeat whatever it did. The wait before retry
``n`` (0-based) is ``initial_delay * backoff_factor ** n`` capped at
``max_delay`` (``backoff_factor=0`` waits ``initial_delay`` every time), then
moved by up to ±25% when ``jitter`` is on, so many clients failing together do
not come back together. Each retry is announced with an
info ``Notice`` so the user knows why a tool is slow.

``on_failure`` when the retries run out: ``"return_message"`` gives the model an
error result saying what failed and how often; a callable turns the exception
into that message; ``"raise"`` stops the agent: the reply ends as an error that
names the tool and the last exception. (Re-raising the tool's own exception
would not do that: the engine turns a tool's exception into an error result,
never into the end of the reply. So "raise" raises ``StopReply``, chained to the
tool's exception, which ends the reply reported as a deliberate stop.)
"""

from __future__ import annotations

import random
from collections.abc import Awaitable, Callable, Sequence
from typing import Any, ClassVar, Literal, TypeAlias

import anyio

from shell.core.events import Notice
from shell.core.messages import ToolResult
from shell.core.tools import Tool

from .base import Middleware
from .context import ToolCallContext
from .tool_names import ToolNameCheck
from .types import StopReply, ToolRequest

RetryOn: TypeAlias = tuple[type[BaseException], ...] | Callable[[Exception], bool]
OnFailure: TypeAlias = Literal["return_message", "raise"] | Callable[[Exception], str]
Sleep: TypeAlias = Callable[[float], Awaitable[Any]]

JITTER = 0.25


class ToolRetry(Middleware):
    """Retries failed tool calls with exponential backoff before giving up."""

    builtin: ClassVar[bool] = True
    name = "ToolRetry"
    description = "Retries failing tool calls with exponential backoff and jitter."

    def __init__(
        self,
        *,
        max_retries: int = 2,
        tools: Sequence[str | Tool] | None = None,
        retry_on: RetryOn = (Exception,),
        on_failure: OnFailure = "return_message",
        backoff_factor: float = 2.0,
        initial_delay: float = 1.0,
        max_delay: float = 60.0,
        jitter: bool = True,
        sleep: Sleep | None = None,
        rng: random.Random | None = None,
    ) -> None:
        """``max_retries`` attempts after the first (3 calls in all by default);
        ``tools`` limits retrying to these (None: every tool); ``sleep`` and
        ``rng`` are for tests (``anyio.sleep`` and the ``random`` module)."""
        if max_retries < 0:
            raise ValueError("max_retries must be >= 0")
        if initial_delay < 0 or max_delay < 0 or backoff_factor < 0:
            raise ValueError("initial_delay, max_delay and backoff_factor must be >= 0")
        if isinstance(on_failure, str) and on_failure not in ("return_message", "raise"):
            raise ValueError("on_failure must be 'return_message', 'raise' or a callable")
        self.max_retries = max_retries
        self.tools = None if tools is None else frozenset(t if isinstance(t, str) else t.name for t in tools)
        self._names = ToolNameCheck("tools", sorted(self.tools or ()), "it retries nothing under that name")
        self.retry_on = retry_on
        self.on_failure = on_failure
        self.backoff_factor = backoff_factor
        self.initial_delay = initial_delay
        self.max_delay = max_delay
        self.jitter = jitter
        self.sleep: Sleep = sleep or anyio.sleep
        self.rng = rng or random.Random()

    def delay(self, retry: int) -> float:
        """Seconds to wait before retry number ``retry`` (0 for the first retry)."""
        growth = self.backoff_factor**retry if self.backoff_factor else 1.0  # 0: a constant delay
        base = min(self.initial_delay * growth, self.max_delay)
        if self.jitter and base > 0:
            base *= 1 + self.rng.uniform(-JITTER, JITTER)
        return max(0.0, base)

    def should_retry(self, exc: Exception) -> bool:
        if isinstance(self.retry_on, tuple):
            return isinstance(exc, self.retry_on)
        return bool(self.retry_on(exc))

    async def on_acting(
        self,
        ctx: ToolCallContext,
        request: ToolRequest,
        next: Callable[[ToolRequest], Any],
    ) -> ToolResult:
        self._names.missing(ctx, self.name)
        if self.tools is not None and request.tool.name not in self.tools:
            result: ToolResult = await next(request)
            return result
        retry = 0
        while True:
            try:
                result = await next(request)
                return result
            except Exception as exc:
                if not self.should_retry(exc):
                    raise
                if retry >= self.max_retries:
                    return self._give_up(ctx, request, exc, retry + 1)
                wait = self.delay(retry)
                retry += 1
                ctx.emit(
                    Notice(
                        "info",
                        f"{request.tool.name} failed ({type(exc).__name__}: {exc}); "
                        f"retry {retry}/{self.max_retries} in {wait:.1f}s.",
                        self.name,
                    )
                )
                await self.sleep(wait)

    def _give_up(
        self, ctx: ToolCallContext, request: ToolRequest, exc: Exception, attempts: int
    ) -> ToolResult:
        plural = "s" if attempts != 1 else ""
        text = f"{request.tool.name} failed after {attempts} attempt{plural}: {type(exc).__name__}: {exc}"
        if callable(self.on_failure):
            return ToolResult(self.on_failure(exc), is_error=True)
        if self.on_failure == "raise":
            raise StopReply(text) from exc
        return ToolResult(text, is_error=True)
