"""Keep Python's cyclic garbage collector out of the way of streaming and typing.

A full (generation 2) collection scans every tracked object; a Textual app has
hundreds of thousands, so each one stops the event loop for 100 ms or more, in
the middle of a streamed reply. We therefore:

- freeze what exists once the app is up (Textual, our modules, the first
  widgets: none of it becomes garbage), so later collections skip it;
- at the start of a reply, freeze again (cheap: the generations are moved, not
  scanned), so collections during the reply look only at the reply's own
  objects. The young generations are collected as usual; *full* collections
  are not made automatically while a reply streams (nor until the idle moment
  after it): each scanned every object the reply had kept and stopped the loop
  150-700 ms, and a reply keeps few objects for long now that ``unlink`` makes
  the widgets it drops (parked chunks, spans out of the window) free by
  reference counting (a 150 KB reply left ~660 objects for a full collection,
  ~170k before). So that memory stays bounded if something else builds up
  cycles, a full collection is made during the reply anyway once the peak RSS
  has grown ``REPLY_RSS_BUDGET_MB`` since the last one (checked at each tick);
- while a reply streams in an event loop, the middle generation is collected in a
  loop step of its own (every ``MIDDLE_CHECK_S``, when Python would have collected
  it), not by the allocation that happened to cross its threshold: that was inside
  a frame's layout or render half, 1.5-2.7 ms added to a third of them (36 middle
  collections in a 50 KB flood), the longest loop steps among them (issue 21);
- collect once the reply has ended *and* the user has been idle for
  ``IDLE_S`` (no typing), so the pause (~20 ms after a 5 KB reply, a few
  hundred after a 50 KB one) falls while they read, not while they type; after
  ``MAX_DEFER_S`` it happens regardless, so memory never waits long;
- every ``UNFREEZE_EVERY`` collections, unfreeze first, so cycles among objects
  frozen earlier (widgets long scrolled away) are reclaimed too.

The app calls :meth:`tick` a few times a second; it does nothing unless a
collection is due.

Start-up is a special case: importing Textual, the engine and the tools makes
hundreds of thousands of objects and almost no garbage, yet the automatic
collector runs through them again and again on the way (a full collection of
50-60 ms and several middle-generation ones of 2-10 ms before the welcome, half
of them in front of the first frame). The CLI therefore calls :func:`hold` before
it imports the TUI, and :meth:`GcPolicy.started_up` (the shell is ready) collects
once, freezes what survived and lets the collector run again.
"""

from __future__ import annotations

import asyncio
import gc
import resource
import sys
import time
from collections.abc import Callable

UNFREEZE_EVERY = 25
REPLY_FULL_EVERY = 2**31 - 1
"""The third GC threshold from a reply's start to the idle collection after it:
no automatic full collection (Python's default is one per 10 middle ones)."""
REPLY_RSS_BUDGET_MB = 150.0
"""During a reply, a full collection once the peak RSS has grown this much since
the last one: a pause, but memory stays bounded whatever builds up."""
MIDDLE_CHECK_S = 1 / 60
"""While a reply streams, how often the middle generation is looked at (a frame)..."""
MIDDLE_QUIET_S = 0.25
"""...or, when nothing was collected since the last look (the model thinking, an
approval waiting for the user), this much later: no wake-up each frame for nothing."""
NEVER = REPLY_FULL_EVERY
"""A threshold no count reaches: that generation is not collected automatically."""
IDLE_S = 1.0
MAX_DEFER_S = 10.0


_held = False


def hold() -> None:
    """Switch automatic collection off for the start-up (see the module docstring);
    :meth:`GcPolicy.started_up` switches it on again. A no-op when it is off already
    (someone else's choice, which this module then leaves alone)."""
    global _held
    if gc.isenabled():
        gc.disable()
        _held = True


def release() -> None:
    """Automatic collection on again if :func:`hold` switched it off."""
    global _held
    if _held:
        _held = False
        gc.enable()


def peak_rss_mb() -> float:
    """This process's peak resident memory (cheap: one getrusage call)."""
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return peak / (1024 * 1024) if sys.platform == "darwin" else peak / 1024


class GcPolicy:
    def __init__(
        self, clock: Callable[[], float] = time.monotonic, rss_mb: Callable[[], float] = peak_rss_mb
    ) -> None:
        self._clock = clock
        self._rss_mb = rss_mb
        self._rss_at_collection = 0.0
        self.budget_collections = 0
        """Full collections made during a reply because memory grew past the budget."""
        self._collections = 0
        self._streaming = False
        self._thresholds: tuple[int, int, int] | None = None
        self._due_since: float | None = None
        self._last_activity = clock()
        self._middle: asyncio.TimerHandle | None = None
        """The next look at the middle generation while a reply streams."""

    @property
    def pending(self) -> bool:
        """A reply has ended and its garbage is not collected yet."""
        return self._due_since is not None

    def started_up(self) -> None:
        gc.collect()
        gc.freeze()
        release()

    def reply_started(self) -> None:
        self._streaming = True
        gc.freeze()
        self._rss_at_collection = self._rss_mb()
        if self._thresholds is None:
            self._thresholds = gc.get_threshold()
        young, middle, _ = self._thresholds
        if self._middle is None:
            try:
                loop = asyncio.get_running_loop()
            except RuntimeError:  # no loop to take turns in: Python collects it as usual
                loop = None
            if loop is not None:
                self._middle = loop.call_later(MIDDLE_CHECK_S, self._collect_middle)
        gc.set_threshold(young, middle if self._middle is None else NEVER, REPLY_FULL_EVERY)

    def _collect_middle(self) -> None:
        """Collect the middle generation if Python would have by now, in this loop
        step of its own (see the module's docstring); look again a frame later."""
        self._middle = None
        if not self._streaming or self._thresholds is None:
            return
        young_collections = gc.get_count()[1]
        if young_collections >= self._thresholds[1]:
            gc.collect(1)
        later = MIDDLE_CHECK_S if young_collections else MIDDLE_QUIET_S
        self._middle = asyncio.get_running_loop().call_later(later, self._collect_middle)

    def _cancel_middle(self) -> None:
        if self._middle is not None:
            self._middle.cancel()
            self._middle = None

    def _stop_middle(self) -> None:
        """The middle generation collected automatically again (no frames to keep it out of)."""
        self._cancel_middle()
        if self._thresholds is not None:
            young, middle, _ = self._thresholds
            gc.set_threshold(young, middle, REPLY_FULL_EVERY)

    def reply_finished(self) -> None:
        """Collection is due (at the next idle moment, see :meth:`tick`). Until then
        full collections stay off: the first automatic one would otherwise come at
        once, in the middle of the next frames."""
        self._streaming = False
        self._stop_middle()
        if self._due_since is None:
            self._due_since = self._clock()

    def activity(self) -> None:
        """The user did something (typed): put a due collection off a little."""
        self._last_activity = self._clock()

    def tick(self) -> bool:
        """Collect if one is due and the moment is right. True if it collected."""
        if self._streaming:
            if self._rss_mb() - self._rss_at_collection < REPLY_RSS_BUDGET_MB:
                return False
            self.budget_collections += 1
            gc.collect()  # the reply's own objects (older ones are frozen)
            self._rss_at_collection = self._rss_mb()
            return True
        if self._due_since is None:
            return False
        now = self._clock()
        idle = now - max(self._last_activity, self._due_since) >= IDLE_S
        if idle or now - self._due_since >= MAX_DEFER_S:
            self.collect()
            return True
        return False

    def collect(self) -> None:
        """Collect now and freeze the survivors."""
        self._due_since = None
        self._restore()
        self._collections += 1
        if self._collections % UNFREEZE_EVERY == 0:
            gc.unfreeze()
        gc.collect()
        gc.freeze()

    def _restore(self) -> None:
        self._cancel_middle()
        if self._thresholds is not None:
            gc.set_threshold(*self._thresholds)
            self._thresholds = None

    def shut_down(self) -> None:
        """The app is leaving: thaw what it froze, so that the program around it
        (a test run, an embedding script) can collect the app's objects."""
        self._restore()
        release()  # a start-up that failed before ``started_up``
        gc.unfreeze()
