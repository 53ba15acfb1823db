"""``paced(events)``: a reply's events, with the event loop given a turn every few
milliseconds however fast they come.

The engine hands events over through a buffer; when a provider streams faster
than a front end draws, the buffer holds thousands of events and taking them
never waits, so a consumer that only ``await``\\s the next one would run for
seconds without letting anything else happen: not Ctrl+C's handler (asyncio runs
signal handlers from the loop), not Esc (Textual's key events are messages on
the same loop). Every front end reads its events through this, so a cancel is
seen within a slice of the time, and it stops the drawing at once.
"""

from __future__ import annotations

import time
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import TypeVar

import anyio
import anyio.lowlevel

T = TypeVar("T")

SLICE_S = 0.004
"""The longest stretch of event handling between two turns of the event loop."""


Hold = Callable[[], Awaitable[None] | None]


async def paced(
    events: AsyncIterator[T], slice_s: float = SLICE_S, hold: Hold | None = None
) -> AsyncIterator[T]:
    """Pass ``events`` through; after each ``slice_s`` of work, let the loop run once.
    ``hold``, called before each next event is asked for, may return something to
    await first (the TUI: Esc's end is drawn before the engine's last step runs)."""
    clock = time.perf_counter
    turn = clock() + slice_s
    async for event in events:
        yield event
        if clock() >= turn:
            await anyio.lowlevel.checkpoint()
            turn = clock() + slice_s
        if hold is not None:
            waiting = hold()
            if waiting is not None:
                await waiting
