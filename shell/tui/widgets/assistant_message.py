"""The assistant's text, streamed as Markdown while the deltas arrive.

Deltas are batched per frame (one flush per ~1/60 s, however many deltas came),
each flush goes to the current chunk's ``MarkdownStream``, and once a chunk has
grown past ``CHUNK_LIMIT`` a fresh ``ChatMarkdown`` widget starts at the next
safe top-level block (see ``mdsplit``). Every append then touches a small document, so
streaming time grows linearly with the reply's size. A flush renders a budget that
follows the backlog (``FRAME_BUDGET`` characters, or a ``BACKLOG_FRAMES``-th of what
waits, up to ``MAX_FRAME_BUDGET``), so a model that streams faster than a frame can
draw is caught up with instead of leaving an ever-growing queue; on cancel, what
was not drawn yet is dropped at once (:meth:`drop_backlog`) and said. Finished chunks
near the view become the lines they rendered to, neighbours sharing one widget up to
a screenful (see ``rendered_chunk``: a frame then lays out and draws the last
document's blocks, not every block near the view), and chunks far from view are
parked (see ``parked``): while the view follows a
streaming reply, at each cut, counted by height from the bottom; otherwise by
place on screen, re-checked until nothing moves. benchmarks/tui_stream.py
measures all this against a plain ``MarkdownStream``.
"""

from __future__ import annotations

import asyncio

from textual.app import ComposeResult
from textual.containers import ScrollableContainer, Vertical
from textual.events import Resize
from textual.geometry import Region
from textual.timer import Timer
from textual.widgets import Markdown
from textual.widgets._markdown import MarkdownStream

from shell.core.partial import CANCELLED_KEEP
from shell.core.textsafety import StreamSanitizer, sanitize

from ..mdsplit import Cutter, FrameDocument, cancel_note, capped, closing_marks, grouped, split_markdown
from ..pacing import (
    BACKLOG_FRAMES,
    CHUNK_LIMIT,
    FRAME_BUDGET,
    FRAME_S,
    HIDDEN_BUDGET,
    MAX_FRAME_BUDGET,
    PIECE_LIMIT,
    SETTLE_S,
    SETTLE_TRIES,
    SHOWN_LIMIT,
    VIEW_MARGIN,
)
from .arrange_once import ArrangedOnce
from .chat_markdown import ChatMarkdown, chained
from .chunk_swaps import (
    Chunk,
    following,
    mount_hidden,
    park,
    release_render_caches,
    retire,
    source_before,
    unpark_within,
)
from .parked import Parked, beyond_the_fold, least_height, text_width
from .rendered_chunk import RenderedChunk, capture, warm

_STOPPING: set[asyncio.Future[None]] = set()
"""Streams of live replies that left the window, stopping (a task is held only weakly)."""


class AssistantMessage(Vertical, ArrangedOnce):
    """One text block of a reply: a column of Markdown documents."""

    BLANK = True
    """Nothing of its own to draw (its children cover it): Textual then hands out blank
    lines instead of rendering every line of it again whenever it grows (each frame)."""

    DEFAULT_CSS = """
    AssistantMessage { height: auto; margin: 1 0 0 0; padding: 0 1; }
    AssistantMessage > Markdown { margin: 0; padding: 0; background: transparent; }
    """

    def __init__(self, text: str = "", *, streaming: bool = False) -> None:
        super().__init__()
        self._text = sanitize(text)
        self._drawn: list[str] = []  # appended since: joined lazily (+= on an attribute copies it all)
        self._sanitizer = StreamSanitizer()  # a \r\n or a surrogate pair cut between two frames stays whole
        self.streaming = streaming
        self._pending: list[str] = []
        self._backlog = 0
        self.received = len(self._text)
        """Characters it was given (its first text and every delta)."""
        self.dropped = 0
        """Characters never drawn because the reply was cancelled."""
        self._flush_scheduled = False
        self._cancelled = False
        self._cutter = Cutter(len(self._text))
        self._stream: MarkdownStream | None = None
        self._current: Markdown | None = None
        self._lock = asyncio.Lock()
        self._parking = asyncio.Lock()
        """One parking pass at a time: the widget's own and the conversation's overlap,
        and a chunk parked (or a spacer unparked) by both would then show twice."""
        self._tasks: set[asyncio.Task[None]] = set()
        self._width = 0
        self._unkept = 0
        """Finished chunks near the view left live by the last pass: the screen had not
        laid them out since they changed, so their lines could not be kept yet."""
        self._settle_tries = 0
        self._keep_timer: Timer | None = None
        """A pass that keeps finished chunks as lines, waiting (see ``_render_finished``)."""
        self._keep_tries = 0

    @property
    def text(self) -> str:
        return self._shown() + "".join(self._pending)

    def _shown(self) -> str:
        if self._drawn:
            self._text += "".join(self._drawn)
            self._drawn.clear()
        return self._text

    @property
    def quiet(self) -> bool:
        """All it received is drawn and no frame is being drawn: it can leave the screen
        while live, its text kept by its entry (see ``AssistantEntry.can_leave``)."""
        return not self._pending and not self._flush_scheduled and not self._lock.locked()

    @property
    def backlog(self) -> int:
        """Characters received and not drawn yet."""
        return self._backlog

    def compose(self) -> ComposeResult:
        parts = split_markdown(capped(self._text), SHOWN_LIMIT) if self._text else [""]
        yield from chained(parts, None)

    def on_mount(self) -> None:
        if self.streaming:
            self._current = self.query(Markdown).last()
            self._stream = Markdown.get_stream(self._current)
        self.app.theme_changed_signal.subscribe(self, self._theme_changed)
        if not self.streaming:
            self.set_timer(SETTLE_S, self._settle_unsized)

    async def _settle_unsized(self) -> None:
        """The first pass of a finished reply is started by its first ``Resize``; on a
        busy machine Textual can lay the widget out without ever sending it one, and
        the reply then stayed a live Markdown tree (never parked, never kept as lines)
        until something else moved. This starts that pass if the ``Resize`` has not."""
        if not self._width and self.is_attached:
            await self._settle()

    def on_unmount(self) -> None:
        """Leave the theme signal: its subscription (a closure over this widget) would
        otherwise keep every reply ever shown alive. Removed while live (it left the
        window, see ``AssistantEntry.can_leave``), its stream stops: the stream's task
        would otherwise wait for more forever, holding the widget."""
        self.app.theme_changed_signal.unsubscribe(self)
        if self._stream is not None:
            stream, self._stream = self._stream, None
            task = asyncio.ensure_future(stream.stop())
            _STOPPING.add(task)
            task.add_done_callback(_STOPPING.discard)

    def _chunks(self) -> list[Chunk]:
        return [child for child in self.children if isinstance(child, (ChatMarkdown, RenderedChunk))]

    def append(self, delta: str) -> None:
        """Queue a delta; it is rendered at the next frame with the others."""
        self._pending.append(delta)
        self._backlog += len(delta)
        self.received += len(delta)
        if len(self._pending) > 256:  # thousands of small strings cost ten times their text
            self._pending[:] = ["".join(self._pending)]
        self._schedule()

    def drop_backlog(self) -> int:
        """Forget what was received but not drawn (the reply was cancelled: drawing it
        would keep the user waiting); returns how many characters that was."""
        dropped, self._backlog = self._backlog, 0
        self._pending.clear()
        self._cancelled = True  # and a frame being drawn stops at its next piece
        self.dropped += dropped
        return dropped

    def _budget(self) -> int:
        return min(MAX_FRAME_BUDGET, max(FRAME_BUDGET, self._backlog // BACKLOG_FRAMES))

    def _schedule(self) -> None:
        """A flush at the next frame, in a task of its own. Not a Textual timer: its
        callback would run in this widget's message loop, and while a fast reply
        kept it flushing, the widget's own messages (each ``mount`` queues one that
        holds every child, parked chunks included) waited in its queue until the
        reply ended, and so did the memory of every chunk parked meanwhile."""
        if not self._flush_scheduled:
            self._flush_scheduled = True
            asyncio.get_running_loop().call_later(FRAME_S, self._start_flush)

    def _start_flush(self) -> None:
        task = asyncio.create_task(self._flush())
        self._tasks.add(task)
        task.add_done_callback(self._flushed)

    def _flushed(self, task: asyncio.Task[None]) -> None:
        self._tasks.discard(task)
        error = None if task.cancelled() else task.exception()
        if isinstance(error, Exception) and self.is_attached:
            self.app._handle_exception(error)  # as a timer's error would: shown, app ended

    async def _flush(self) -> None:
        async with self._lock:  # the frame and finish() may both flush
            # Scheduled again only from here: while a frame is drawn (many turns of the
            # loop under a flood), the deltas that come meanwhile schedule one flush, not
            # one per frame queued on the lock. Esc waited for each of them in turn, 50
            # and more, before the reply's end could take the lock (F9).
            self._flush_scheduled = False
            await self._flush_locked()

    async def _flush_locked(self) -> None:
        if not self._pending or self._stream is None or not self.is_attached:
            return
        pending = "".join(self._pending)
        self._pending.clear()
        budget = self._budget()
        if self._cutter.hiding:  # the rest of a block too long is only counted: all of it now
            budget += min(HIDDEN_BUDGET, self._cutter.cap.hidden_span(pending))
        if len(pending) > budget:
            keep = pending.rfind("\n", 0, budget) + 1 or budget
            self._pending.append(pending[keep:])
            pending = pending[:keep]
            self._schedule()
        self._backlog -= len(pending)
        text = self._sanitizer.feed(pending)
        if self._cancelled:  # Esc before this frame: it is dropped at once
            self.dropped += len(text)
            return
        cut_any = await self._draw(self._cutter.cut(text, CHUNK_LIMIT, PIECE_LIMIT))
        if cut_any and not self._cancelled:  # (cancelled: the reply's end parks, once it is shown)
            # Now, not after the next refresh: while a reply streams that can be many
            # cuts later, and every chunk left live meanwhile slows every frame.
            await self.park_offscreen()
            # The chunk just finished is drawn by the next refresh: keep its lines then.
            self.call_after_refresh(self._render_finished)

    async def _draw(self, documents: list[FrameDocument]) -> bool:
        """Write a frame's documents; True if a new one was started. The current
        document and the last one are written a piece at a time and stop at Esc; the
        documents begun and finished within the frame (many, when a backlog is caught
        up with) are mounted together, whole. One at a time, each mount let a screen
        update run, and each update laid out every document of the frame mounted
        before it: a frame's cost grew with the square of its size (1,000 short paragraphs
        in one delta 9.4 s). Those sure to land above the view are parked at once."""
        first, *others = documents
        if not await self._write_pieces(first, others) or not others:
            return False
        await self._stop_stream()
        finished, last = others[:-1], others[-1]
        if self._cancelled:  # Esc while the first was written: the frame's whole documents are dropped too
            self.dropped += sum(d.size for d in others)
            return False
        previous, view = self._current, self._container()
        view = view if view is not None and following(view) else None
        far, near = beyond_the_fold(grouped(finished, SHOWN_LIMIT), last.source, view, self.size.width)
        before = far[-1][0] if far else previous.source if previous is not None else None
        *whole, self._current = chained([*near, ""], before)
        self._drawn.extend(part for document in finished for part in document.raw)
        await self.mount_all([*([Parked(far)] if far else []), *whole, self._current])
        if isinstance(previous, ChatMarkdown):
            previous.mark_end()  # no longer the last: its last block gets its margin back
        self._stream = Markdown.get_stream(self._current)
        await self._write_pieces(last, [])
        return True

    async def _write_pieces(self, document: FrameDocument, after: list[FrameDocument]) -> bool:
        """``document``'s pieces into the current document; on Esc, what is left of the
        frame (its pieces and the documents ``after`` it) is dropped. False if it was."""
        assert self._stream is not None
        for at, (shown, raw) in enumerate(zip(document.shown, document.raw, strict=True)):
            if self._cancelled:  # Esc while this frame was drawn: the rest is dropped at once
                self.dropped += sum(map(len, document.raw[at:])) + sum(d.size for d in after)
                return False
            self._drawn.append(raw)
            if shown:  # (nothing: the rest of a block too long, left out)
                await self._stream.write(shown)
        if self._cancelled and after:
            self.dropped += sum(d.size for d in after)
            return False
        return True

    async def _stop_stream(self) -> None:
        """Stop the current document's stream and wait for its last append: a stopped
        ``MarkdownStream`` can leave one running (shielded from the cancel), which
        must not still be mounting blocks once the document is parked."""
        assert self._stream is not None
        await self._stream.stop()
        if self._current is not None:
            async with self._current.lock:
                pass

    async def finish(self, text: str | None = None, *, cancelled: bool = False) -> None:
        """The block ended: render what is left (a frame's budget at a time) and stop.
        ``cancelled``: what waits is dropped instead, and the drop is said."""
        if cancelled:
            self.drop_backlog()
        while self._pending and self._stream is not None:
            await self._flush()
            if self._pending:
                await asyncio.sleep(FRAME_S)
        async with self._lock:
            if self._stream is not None:
                held = self._sanitizer.flush()  # a lone \r or half a pair the reply ended on
                if held:
                    self._drawn.append(held)
                    if not self._cutter.hiding:
                        await self._stream.write(held)
                if self._cutter.hiding and self._current is not None:  # a block too long ended the reply
                    note = closing_marks(self._current.source) + self._cutter.end_note()
                    await self._stream.write(note)
                await self._stop_stream()
                self._stream = None
                shown = self.received - self.dropped
                cut = self._cancelled and shown > CANCELLED_KEEP  # the history keeps the first ones
                if self._cancelled and self._current is not None:  # (a backlog dropped: cancelled too)
                    # after the document's last line: an open code fence or span is closed first,
                    # or the note showed as a literal *…* in the code block (and a lone ` at the end)
                    note = closing_marks(self._current.source) + cancel_note(self.dropped, shown, cut)
                    self._drawn.append(note)
                    await self._current.append(note)
        self.streaming = False
        if text is not None and not self._shown():
            self._text = sanitize(text)
            await self.query_one(Markdown).update(capped(self._text))
        # While streaming, chunks not laid out yet could not be counted; once the
        # layout has caught up, park by place on screen whatever is still out of view.
        self.set_timer(SETTLE_S, self._settle)

    async def _settle(self) -> None:
        self._unkept = 0
        moved = await self.update_parking()
        if moved or (self._unkept and self._settle_tries < SETTLE_TRIES):
            self._settle_tries = 0 if moved else self._settle_tries + 1
            self.set_timer(SETTLE_S, self._settle)
        else:
            self._settle_tries = 0

    # -- parking (see ``parked``) ------------------------------------------------------
    def _container(self) -> ScrollableContainer | None:
        return next((a for a in self.ancestors if isinstance(a, ScrollableContainer)), None)

    def _viewport(self, margin_screens: float = VIEW_MARGIN) -> Region | None:
        """The region worth keeping live: the scroll container's, half a screen either way."""
        container = self._container()
        if container is None:
            return None
        region = container.region
        margin = int(region.height * margin_screens)
        return region.grow((margin, 0, margin, 0))

    @property
    def parking(self) -> bool:
        """A parking pass is under way (chunks and spacers are being swapped)."""
        return self._parking.locked()

    async def update_parking(self) -> bool:
        """Bring back what came near the view, or else park what went far from it.
        True if anything moved: regions mean nothing until the next layout, so the
        caller runs this again after one (until nothing moves)."""
        async with self._parking:
            if await self._unpark_visible(0) or await self._unpark_visible():
                return True  # (what the view shows first: the rest near it, next pass)
            return await self._park_offscreen()

    async def unpark_in_view(self) -> bool:
        """Bring back the parked chunks the view shows, as soon as a scroll is drawn."""
        async with self._parking:
            return await self._unpark_visible(0)

    async def park_offscreen(self) -> bool:
        """Swap finished Markdown chunks far from the viewport for ``Parked`` spacers.
        True if any was parked."""
        async with self._parking:
            return await self._park_offscreen()

    async def _park_offscreen(self) -> bool:
        container = self._container()
        if container is None or not self.is_attached:
            return False
        if self._stream is not None and following(container):
            return await self._park_above_the_fold(container)
        viewport = self._viewport()
        assert viewport is not None
        parked = False
        for chunk in self._chunks():
            if chunk is self._current and self._stream is not None:
                continue
            region = chunk.region
            if not region or not chunk.outer_size.height or chunk.source == "":
                self._unkept += 1  # not laid out since it was mounted: look again later
                continue
            if region.overlaps(viewport):
                await self._keep_lines(chunk)
                continue
            await park(self, chunk)
            parked = True
        return parked

    async def _park_above_the_fold(self, container: ScrollableContainer) -> bool:
        """Streaming with the view following the end: only the last screenful (and a
        margin) can be seen, so every chunk above it is parked. Counted by height from
        the bottom, because regions lag behind while the event loop is this busy.
        A chunk no layout has measured yet (under a flood, several flushes mount their
        documents between two frames) counts its :func:`least_height` once its blocks
        are mounted (a lower bound: what it parks is above the fold). Left live, the
        next layout measured every one of them (up to ~60 documents, 30-45 ms, issue
        21's worst stalls) only for this pass to park them after it."""
        keep = container.region.height * (1 + VIEW_MARGIN)
        width = text_width(self.size.width, container)
        below = 0
        parked = False
        for chunk in reversed(self._chunks()):
            height = chunk.outer_size.height
            if chunk is self._current:  # (its blocks may lag its source: only what is laid out)
                below += height
                continue
            if not height and chunk.display and chunk.children:  # mounted, not laid out yet
                height = least_height(chunk.source, width)
            if height and chunk.source and below > keep:
                await park(self, chunk, height)
                parked = True
                continue
            below += height
        return parked

    async def _render_finished(self) -> None:
        """Swap the finished live chunks for their rendered lines (see ``rendered_chunk``).
        One the screen has not laid out anew yet (its last block just got its bottom
        margin back) is looked at again shortly: while the reply streams, the next cut
        would do it, but a model that pauses makes no next cut."""
        if not self.is_attached:
            return
        async with self._parking:
            self._unkept = 0
            container = self._container()
            if self._stream is not None and container is not None and following(container):
                # a caught-up backlog mounts many documents at once: those above the fold
                # are parked, not drawn once more to keep lines no one will see
                await self._park_above_the_fold(container)
            for chunk in self._chunks():
                await self._keep_lines(chunk)
            again = self._unkept and self._stream is not None and self._keep_tries < SETTLE_TRIES
        self._keep_tries = self._keep_tries + 1 if again else 0
        if again and self._keep_timer is None:
            self._keep_timer = self.set_timer(SETTLE_S, self._keep_later)

    async def _keep_later(self) -> None:
        self._keep_timer = None
        await self._render_finished()

    async def _keep_lines(self, chunk: Chunk) -> None:
        """A finished live chunk becomes the lines it shows, if the screen's layout of it
        is up to date (else it stays live until the next pass). The last chunk of the
        reply stays live: it is the one a reply's end or a late update changes."""
        if not isinstance(chunk, ChatMarkdown) or not chunk.is_attached or not chunk.source:
            return
        if chunk is self.children[-1]:  # the chunk streaming now is always the last
            return
        if chunk.has_end_block():  # laid out as the reply's end: its margin comes next pass
            chunk.mark_end()
            self._unkept += 1
            return
        await warm(chunk)  # a slice at a time: a list of hundreds of lines held the loop
        if not chunk.is_attached or chunk is self.children[-1]:
            return
        lines = capture(chunk)
        if lines is None:
            self._unkept += 1
            return
        siblings = list(self.children)
        at = siblings.index(chunk)
        before = siblings[at - 1] if at else None
        container = self._container()
        most = container.region.height if container is not None else 0
        if isinstance(before, RenderedChunk) and before.can_take(lines, most):
            # One widget for neighbouring chunks (up to a screenful): fewer to lay out.
            before.extend(chunk.source, lines)
            await retire(chunk)
        else:
            mounting = self.mount(RenderedChunk(chunk.source, lines), before=chunk)
            await retire(chunk)
            await mounting
        release_render_caches()

    async def _thaw(self) -> None:
        """Rendered lines hold a width and a theme: make them Markdown again (measured,
        drawn and rendered anew once the layout has placed them)."""
        async with self._parking:
            for chunk in self.query_children(RenderedChunk):
                if not chunk.display or chunk.parent is not self:
                    continue  # retired (parked or joined) meanwhile: its text is shown elsewhere
                live = ChatMarkdown(chunk.source, after=source_before(self, chunk))
                await mount_hidden(self, [live], before=chunk)
                await retire(chunk)

    def _theme_changed(self, _theme: object) -> None:
        if self.query_children(RenderedChunk):
            self.run_worker(self._thaw_and_settle(), group="thaw")

    async def _thaw_and_settle(self) -> None:
        await self._thaw()
        self.set_timer(SETTLE_S, self._settle)

    def on_resize(self, event: Resize) -> None:
        """A new width changes every chunk's height: kept lines are rendered again.
        (Growing taller, which happens every frame, changes nothing.)"""
        if event.size.width == self._width:
            return
        old_width, self._width = self._width, event.size.width
        if old_width:  # parked text would wrap anew too: estimate, it is measured when back
            for parked in self.query_children(Parked):
                parked.rescale(old_width / self._width)
        if self.is_attached:
            if self.query_children(RenderedChunk):
                self.run_worker(self._thaw_and_settle(), group="thaw")
            else:
                self.set_timer(SETTLE_S, self._settle)

    async def _unpark_visible(self, margin: float = VIEW_MARGIN) -> bool:
        """Bring back the parked chunks within ``margin`` screens of the view. True if
        any came back (see :func:`.chunk_swaps.unpark_within`)."""
        viewport = self._viewport(margin)
        return viewport is not None and await unpark_within(self, viewport)
