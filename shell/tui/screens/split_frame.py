"""A screen that draws each frame in two turns of the event loop: layout, then render.

Why: Textual's screen update lays out what changed and renders every line in view in
one callback. While a reply streams that is one step of ~20-35 ms (of it ~40 % layout,
~60 % render), and nothing else runs meanwhile: a key press (Esc) and the next deltas
wait for both halves. Split in two, the longest step is the larger half (issue 21:
p99 of the longest loop step ~41-43 -> ~24 ms CPU at load 8, benchmarks/tui_stream.py);
the frame costs the same.

Textual already draws this way inside ``App.batch_update``: ``_refresh_layout`` then
hands the render to ``call_later`` (a message to this screen, after what is queued).
This screen opens such a batch around its own layout only. Callbacks waiting for the
next refresh (``call_after_refresh``: "the reply's end is on screen", the first frame
shown) are run after that render, as before, not between the two halves.
"""

from __future__ import annotations

from textual.geometry import Size
from textual.screen import Screen, ScreenResultType


class SplitFrameScreen(Screen[ScreenResultType]):
    """A ``Screen`` whose render runs in the loop turn after its layout."""

    _render_deferred = False
    """A layout handed its render to the next turn, which has not run yet."""

    def _refresh_layout(self, size: Size | None = None, scroll: bool = False) -> None:
        app = self.app
        app._begin_batch()  # Textual then defers the render with call_later
        try:
            super()._refresh_layout(size, scroll)
        finally:
            app._batch_count -= 1  # not _end_batch: no idle check halfway through a frame
        self._render_deferred = self.is_current

    def _compositor_refresh(self) -> None:
        self._render_deferred = False
        super()._compositor_refresh()

    async def _invoke_and_clear_callbacks(self, requeued: bool = False) -> None:
        if self._render_deferred and not requeued:
            # Queued behind the render (call_later keeps order): "after refresh" means
            # drawn. Once only: under a flood a newer layout may defer a newer render by
            # then, and waiting for that one too could put the callbacks off for ever.
            self.call_later(self._invoke_and_clear_callbacks, True)
            return
        await super()._invoke_and_clear_callbacks()
