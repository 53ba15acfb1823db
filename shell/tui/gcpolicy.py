"""Keep Python's cyclic garbage collector out of the way of streaming and typing.

A full (generation 2) collection scans every tracked object; a Textual app has
hundreds of thousands, so each one stops the event loop for 100 ms or more, in
the middle of a streamed reply. We therefore:

- freeze what exists once the app is up (Textual, our modules, the first
  widgets: none of it becomes garbage), so later collections skip it;
- at the start of a reply, freeze again (cheap: the generations are moved, not
  scanned), so automatic collections during the reply look only at the reply's
  own objects. Collection stays *on*: a long reply parks its old chunks and
  drops their widgets as it goes, and with collection off all of them (and the
  garbage of every frame) stayed until the reply ended, 1.6 GB for a 1 MB reply.
  With everything older frozen and parking keeping the live widgets few, the
  reply's full collections stay short;
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

import gc
import time
from collections.abc import Callable

UNFREEZE_EVERY = 25
REPLY_FULL_EVERY = 100
"""While a reply streams, a full collection is considered after this many
middle-generation ones (Python's default is 10): each one stops the loop for as
long as it takes to scan the reply's live objects (100-300 ms on a loaded 2-core
machine), so they come ten times less often, for a little more memory between."""
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


class GcPolicy:
    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self._clock = clock
        self._collections = 0
        self._streaming = False
        self._thresholds: tuple[int, int, int] | None = None
        self._due_since: float | None = None
        self._last_activity = clock()

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
        if self._thresholds is None:
            self._thresholds = gc.get_threshold()
            young, middle, _ = self._thresholds
            gc.set_threshold(young, middle, REPLY_FULL_EVERY)

    def reply_finished(self) -> None:
        """Collection is due (at the next idle moment, see :meth:`tick`)."""
        self._streaming = False
        self._restore()
        if self._due_since is None:
            self._due_since = self._clock()

    def activity(self) -> None:
        """The user did something (typed): put a due collection off a little."""
        self._last_activity = self._clock()

    def tick(self) -> bool:
        """Collect if one is due and the moment is right. True if it collected."""
        if self._due_since is None or self._streaming:
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
        self._collections += 1
        if self._collections % UNFREEZE_EVERY == 0:
            gc.unfreeze()
        gc.collect()
        gc.freeze()

    def _restore(self) -> None:
        if self._thresholds is not None:
            gc.set_threshold(*self._thresholds)
            self._thresholds = None

    def shut_down(self) -> None:
        """The app is leaving: thaw what it froze, so that the program around it
        (a test run, an embedding script) can collect the app's objects."""
        self._restore()
        release()  # a start-up that failed before ``started_up``
        gc.unfreeze()
