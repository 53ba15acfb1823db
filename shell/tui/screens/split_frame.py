"""A screen that draws each frame in two turns of the event loop: layout, then render.

Why: Textual's screen update lays out what changed and renders every line in view in
one callback. While a reply streams that is one step of ~20-35 ms (of it ~40 % layout,
~60 % render), and nothing else runs meanwhile: a key press (Esc) and the next deltas
wait for both halves. Split in two, the longest step is the larger half (issue 21:
p99 of the longest loop step 38.2 -> 27.7 ms CPU at load 8, benchmarks/tui_stream.py
against main); the frame costs the same.

Textual already draws this way inside ``App.batch_update``: ``_refresh_layout`` then
hands the render to ``call_later`` (a message to this screen, after what is queued).
This screen opens such a batch around its own layout only, and only for the frames
its update timer draws (the streaming ones). A layout for any other reason (the
terminal resized, the screen resumed) is laid out and drawn in one turn as Textual
does: split, a start-up ``Resize`` re-sent itself to the screen at every frame (the
conversation 19 rows, then 20, for ever), the app never settled and Ctrl+Q at the
trust dialog hung. A widget that asks for a repaint between the two halves (the
prompt, echoing a key typed meanwhile) is drawn by the render half, not dropped with
the dirty set Textual clears there; a render half due while another batch is open
(``ChatMarkdown.append`` holds one across its mounts) waits for it to close instead of
being rendered and thrown away by ``App._display``. Either loss left a typed key
unechoed until the prompt's next repaint (its cursor's blink): the 1-2 s echoes under a
flood that made a18eee5 revert the split. Callbacks waiting for the
next refresh (``call_after_refresh``: "the reply's end is on screen", the first frame
shown) are run after that render, as before, not between the two halves.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from time import perf_counter, thread_time

from textual.geometry import Size
from textual.message import Message
from textual.message_pump import MessagePump
from textual.screen import UPDATE_PERIOD, Screen, ScreenResultType
from textual.timer import Timer

from ..textual_internals import SPLIT_FRAME, lacks

REST = 0.5
"""After a split frame, the update timer starts no other for this many times the
frame's own cost (see :meth:`SplitFrameScreen._frame`), in this thread's CPU time: in
wall time a loaded machine stretched the rest with other processes' time (a frame's
halves of 18 + 25 ms CPU took 107 + 147 ms of wall at load 8, so the next waited
~125 ms more): ~3 frames a second during a flood against main's ~5 in the same traced
runs, and a typed key's echo waits for a frame."""


@contextmanager
def _messages_held(screen: MessagePump, held: list[tuple[MessagePump, Message]]) -> Iterator[None]:
    """While a split frame's layout runs, the messages it posts to widgets (``Resize``,
    ``Show``, ``Hide`` to the blocks entering and leaving the view, ``Prompt``) are
    kept in ``held`` instead of queued; the screen's own (the render half's call)
    are queued as usual, and so are those of other threads.

    Why: each queued message wakes its widget's message loop, a ready task, and
    asyncio runs what is ready before the timers that fell due during the layout. A
    flood's frame woke ~50 of them, 60-80 µs each: 3.5 ms added to a layout half
    before a sleep that ended meanwhile (a key's repeat, a cursor's blink) woke, in
    the worst windows left (issue 21). Delivered by :func:`_deliver` after those
    timers, in the order posted, they wait two loop turns more, as the render half."""
    post = MessagePump.post_message
    loop_thread = threading.get_ident()

    def hold(pump: MessagePump, message: Message) -> bool:
        if pump is screen or threading.get_ident() != loop_thread:
            return post(pump, message)
        held.append((pump, message))
        return True

    MessagePump.post_message = hold  # type: ignore[method-assign,assignment]
    try:
        yield
    finally:
        MessagePump.post_message = post  # type: ignore[method-assign]


def _deliver(held: list[tuple[MessagePump, Message]]) -> None:
    """Queue what :func:`_messages_held` kept (a pump closed meanwhile refuses its own).
    Textual's own posting, not the pump's: a class's ``post_message`` (a filter, a
    check) already ran when the message was posted and held."""
    for pump, message in held:
        MessagePump.post_message(pump, message)


class SplitFrameScreen(Screen[ScreenResultType]):
    """A ``Screen`` whose render runs in the loop turn after its layout."""

    _render_deferred = False
    """A layout handed its render to the next turn, which has not run yet."""
    _layouts = 0
    """Split layouts done: the callbacks wait for the render of one of them once only."""
    _waited_for = -1
    """The split layout whose render the callbacks last waited for."""
    _render_held = False
    """That render came while another batch was open: the update timer draws it after."""
    _in_frame = False
    """The layout being done is a frame's (the update timer's), the one split."""
    _frame_timer: Timer | None = None
    _frame_cost = 0.0
    """CPU seconds the current split frame's layout took."""
    _next_frame_at = 0.0
    """``perf_counter`` time before which the update timer draws no split frame."""
    _render_armed: asyncio.TimerHandle | None = None
    """The render half, waiting on the loop's timers (see :meth:`_compositor_refresh`)."""
    _callbacks_wait = False
    """Callbacks for the refresh came while the render half was armed: run after it."""

    _splits: bool | None = None
    """Whether this Textual has the internals the split relies on (checked once)."""

    @property
    def _update_timer(self) -> Timer:
        """Textual's update timer, calling :meth:`_frame` instead: a refresh Textual
        or a test's pilot forces (``_on_timer_update``) is drawn whole, at once. With
        a Textual that renamed what the split relies on, Textual's own timer: frames
        are drawn whole, and the shell works as before the split."""
        if self._splits is None:
            SplitFrameScreen._splits = not (lacks(self, SPLIT_FRAME) or lacks(self.app, SPLIT_FRAME))
        if not self._splits:
            timer: Timer = super()._update_timer
            return timer
        if self._frame_timer is None:
            self._frame_timer = self.set_interval(UPDATE_PERIOD, self._frame, name="screen_update",
                                                  pause=True)
        return self._frame_timer

    def _frame(self) -> None:
        """A tick of the update timer: draw the frame, split, unless the last split
        frame ended less than ``REST`` times its own cost ago. Split, the loop turns
        between the halves let the timer start frames sooner: a 10 KB flood drew 112
        frames instead of 75 at load 24 (+40 % CPU per reply) for nothing the eye
        sees; with the rest, 53 against 59, frames taking at most two thirds of the
        loop's time. The timer keeps ticking meanwhile (a frame pauses it)."""
        if self._render_held:  # due while a batch was open: drawn once it is over
            if not self.app._batch_count:
                self._render_held = False
                self._render_half()
            return
        if perf_counter() < self._next_frame_at or self._render_armed is not None:
            return  # (armed: the last layout's render is still to come)
        self._in_frame = True
        try:
            self._on_timer_update()
        finally:
            self._in_frame = False

    def _refresh_layout(self, size: Size | None = None, scroll: bool = False) -> None:
        if not self._in_frame:
            super()._refresh_layout(size, scroll)
            return
        app = self.app
        start = thread_time()
        app._begin_batch()  # Textual then defers the render with call_later
        held: list[tuple[MessagePump, Message]] = []
        try:
            with _messages_held(self, held):
                super()._refresh_layout(size, scroll)
        finally:
            app._batch_count -= 1  # not _end_batch: no idle check halfway through a frame
        if held:
            loop = asyncio.get_running_loop()
            loop.call_later(0, loop.call_soon, _deliver, held)
        self._render_deferred = self.is_current
        self._layouts += 1
        self._frame_cost = thread_time() - start

    def _compositor_refresh(self) -> None:
        if not self._render_deferred:
            super()._compositor_refresh()
            return
        self._render_deferred = False
        # Here is Textual's call for the render, a message the layout half queued: a
        # ready callback, so it ran before every timer that fell due during the layout
        # (asyncio runs what is ready, then the timers due). A key's repeat, a blinking
        # cursor, a progress tick, a sleep ending: each waited for both halves, and the
        # split gave them nothing (issue 21: the worst 5 ms sleeps woke after a layout
        # *and* a render, 25 + 14 ms). As a timer due now that then queues the render,
        # it runs after the timers already due and what they wake (a task's sleep ends
        # in a timer that queues the task's next step): two turns after this one.
        loop = asyncio.get_running_loop()
        self._render_armed = loop.call_later(0, loop.call_soon, self._armed_render)

    def _armed_render(self) -> None:
        self._render_armed = None
        try:
            if self.is_attached:
                self._render_or_hold()
        except Exception as error:  # a loop callback's error would only be logged
            self.app._handle_exception(error)
        if self._callbacks_wait:
            self._callbacks_wait = False
            self.call_later(self._invoke_and_clear_callbacks, True)

    def _render_or_hold(self) -> None:
        if self.app._batch_count:
            # Another batch is open across loop turns (``ChatMarkdown.append`` holds one
            # while it mounts blocks): rendered now, the frame would be dropped
            # (``App._display`` draws nothing in a batch) and its regions with it, so
            # what changed since the last frame (a key's echo) would wait for its next
            # repaint. The update timer draws it once the batch is over (:meth:`_frame`).
            self._render_held = True
            self._update_timer.resume()
            return
        self._render_half()

    def _render_half(self) -> None:
        """The frame's render, a turn after its layout; then the rest before the next."""
        start = thread_time()
        # Widgets that asked for a repaint between the halves (the prompt echoing a key
        # typed meanwhile) are drawn now: Textual's render clears ``_dirty_widgets``, and
        # the layout half took its regions before they were marked. Dropped, a typed key
        # showed only at the prompt's next repaint (its cursor's blink).
        compositor = self._compositor
        dirty = self._dirty_widgets
        unplaced = set() if compositor._full_map_invalidated else dirty - compositor._full_map.keys()
        # Widgets mounted between the halves (a flood's new blocks) are not placed yet:
        # handed to the compositor, they marked its map out of date, and the first
        # widget this render drew asked for its region and arranged the whole
        # conversation again from the root, inside the render (issue 21: 25 of a 50 KB
        # flood's ~45 renders, 2-4 ms each, in its longest steps). This render draws
        # what the layout half placed; the layout that places them paints their
        # regions (a reflow marks what it added dirty). The map is marked out of date
        # after the render, as Textual would have: a region asked for later is right.
        compositor.update_widgets(dirty - unplaced if unplaced else dirty)
        super()._compositor_refresh()
        if unplaced:
            compositor._full_map_invalidated = True
        cost = self._frame_cost + thread_time() - start
        self._next_frame_at = perf_counter() + REST * cost

    async def _invoke_and_clear_callbacks(self, requeued: bool = False) -> None:
        if self._render_armed is not None:  # "after refresh" means drawn: run by the render
            self._callbacks_wait = True
            return
        if self._render_deferred and not requeued and self._waited_for != self._layouts:
            # Queued behind the render (call_later keeps order): "after refresh" means
            # drawn. Once only: under a flood a newer layout may defer a newer render by
            # then, and waiting for that one too could put the callbacks off for ever.
            # Once per layout too: a layout that ended without queueing its render (an
            # error Textual reported, an empty size) left the flag up, and waiting again
            # at every idle spun the app at 100 % CPU instead of letting it end.
            self._waited_for = self._layouts
            self.call_later(self._invoke_and_clear_callbacks, True)
            return
        await super()._invoke_and_clear_callbacks()
