"""Keep Python's cyclic garbage collector out of the way of streaming.

A full (generation 2) collection scans every tracked object; a Textual app has
hundreds of thousands, so each one stops the event loop for 100 ms or more, in
the middle of a streamed reply. We therefore:

- freeze what exists once the app is up (Textual, our modules, the first
  widgets: none of it becomes garbage), so later collections skip it;
- pause automatic collection while a reply streams, and collect once the reply
  has ended, when a short pause is not noticed;
- every ``UNFREEZE_EVERY`` replies, unfreeze before collecting, so cycles among
  objects frozen earlier (widgets long scrolled away) are reclaimed too.
"""

from __future__ import annotations

import gc

UNFREEZE_EVERY = 25


class GcPolicy:
    def __init__(self) -> None:
        self._replies = 0
        self._paused = False

    def started_up(self) -> None:
        gc.collect()
        gc.freeze()

    def reply_started(self) -> None:
        if gc.isenabled():
            gc.disable()
            self._paused = True

    def shut_down(self) -> None:
        """The app is leaving: never leave automatic collection switched off."""
        if self._paused:
            gc.enable()
            self._paused = False

    def reply_finished(self) -> None:
        """Collect now (the reply is over) and freeze the survivors."""
        if self._paused:
            gc.enable()
            self._paused = False
        self._replies += 1
        if self._replies % UNFREEZE_EVERY == 0:
            gc.unfreeze()
        gc.collect()
        gc.freeze()
