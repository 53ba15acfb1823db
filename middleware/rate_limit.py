"""``RateLimit``: at least ``min_interval`` seconds between model calls
(AgentScope's rate-limiting example, made a built-in).

Free tiers and local servers refuse bursts; an agent looping over tools can
call the model many times a second. This middleware spaces the calls out in
``on_model_call``. Each call reserves the next free slot before it sleeps, so
concurrent callers sharing the instance (several agents, one provider quota)
queue up in order instead of all waking at once. The limit belongs to the
instance: share one instance to share one limit. The wait is an ``anyio.sleep``,
so Esc cancels it at once; ``clock`` and ``sleep`` can be replaced in tests.
"""

from __future__ import annotations

import math
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any, ClassVar

import anyio

from shell.core.model import ModelChunk, ModelRequest

from .base import Middleware, ModelNext
from .context import HookContext


class RateLimit(Middleware):
    """Keeps at least min_interval seconds between two model calls."""

    builtin: ClassVar[bool] = True
    name = "RateLimit"
    description = "Spaces model calls at least min_interval seconds apart."

    def __init__(
        self,
        min_interval: float = 1.0,
        *,
        clock: Callable[[], float] = time.monotonic,
        sleep: Callable[[float], Awaitable[Any]] = anyio.sleep,
    ) -> None:
        if min_interval < 0:
            raise ValueError("min_interval must be >= 0")
        self.min_interval = min_interval
        self.clock = clock
        self.sleep = sleep
        self._next_free = -math.inf
        self.waited_s = 0.0
        """Seconds this instance has made callers wait, in all."""

    def reserve(self) -> float:
        """Take the next free slot; the seconds to wait for it."""
        now = self.clock()
        slot = max(now, self._next_free)
        self._next_free = slot + self.min_interval
        return slot - now

    async def on_model_call(
        self, ctx: HookContext, request: ModelRequest, next: ModelNext
    ) -> AsyncIterator[ModelChunk]:
        wait = self.reserve()
        if wait > 0:
            self.waited_s += wait
            ctx.reply_state["waited_s"] = ctx.reply_state.get("waited_s", 0.0) + wait
            await self.sleep(wait)
        async for chunk in next(request):
            yield chunk
