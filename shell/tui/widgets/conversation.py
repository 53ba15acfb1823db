"""The conversation: a scrolling column that follows the bottom while streaming.

It is anchored to the bottom (Textual's ``anchor``), so new content scrolls into
view until the user scrolls up, and follows again once they return to the end.

Virtualisation: every entry is kept, but only the newest ``WINDOW`` are mounted.
Older widgets leave the tree (their entries keep the data) and come back a batch
at a time when the user scrolls to the top, so a 1,000-message session costs what
a short one does.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from typing import TYPE_CHECKING

from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.widget import Widget
from textual.widgets import Static

from .steady_scroll_bar import SteadyScrollBar

if TYPE_CHECKING:
    from textual.scrollbar import ScrollBar

    from ..entries import Entry

WINDOW = 30
SLACK = 10
BATCH = 20
PARK_DELAY_S = 0.2
MOUNT_SLICE = 10


class EarlierMarker(Static):
    """Stands for the entries that are not mounted; clicking it brings some back."""

    DEFAULT_CSS = """
    EarlierMarker { color: $text-muted; text-align: center; width: 1fr; display: none; }
    EarlierMarker.-shown { display: block; }
    """

    async def on_click(self) -> None:
        conversation = self.parent
        if isinstance(conversation, Conversation):
            await conversation.load_earlier()


class Conversation(VerticalScroll):
    """Holds :class:`Entry` objects; ``add`` mounts one at the bottom."""

    DEFAULT_CSS = """
    Conversation { height: 1fr; padding: 0 1; scrollbar-size-vertical: 1; }
    """
    BLANK = True
    """Nothing of its own to draw but its background: Textual then hands out blank lines
    instead of rendering each line of it again at every scroll (each frame of a reply)."""

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.entries: list[Entry] = []
        self.first_mounted = 0
        self._loading = False
        self._parking_scheduled = False
        self._unpark_scheduled = False
        self._fill_scheduled = False
        self._marker_count = -1
        """The count the marker shows (-1: not drawn yet)."""
        self._lock = asyncio.Lock()
        """Serialises changes to which entries are mounted (add, trim, load)."""

    @property
    def vertical_scrollbar(self) -> ScrollBar:
        """Textual's, made the same way, but drawn again only when its thumb moves
        (see :mod:`.steady_scroll_bar`): the reply grows it at every frame."""
        if self._vertical_scrollbar is None:
            bar = SteadyScrollBar(vertical=True, name="vertical", thickness=self.scrollbar_size_vertical)
            bar.display = False
            self._vertical_scrollbar = bar
            self.app._start_widget(self, bar)
        return self._vertical_scrollbar

    def compose(self) -> ComposeResult:
        yield EarlierMarker(id="earlier")

    def on_mount(self) -> None:
        self.anchor()

    async def add(self, entry: Entry) -> Widget:
        """Append ``entry`` and mount its widget (returns it once mounted)."""
        async with self._lock:
            return await self._add(entry)

    async def _add(self, entry: Entry) -> Widget:
        self.entries.append(entry)
        widget = entry.widget = entry.build()
        await self.mount(widget)
        self.schedule_parking()
        if len(self.entries) - self.first_mounted > WINDOW + SLACK and self.is_anchored_at_end:
            await self._trim()
        return widget

    async def drop(self, entry: Entry) -> None:
        """Take ``entry`` out of the conversation (a thought block that ended empty:
        a reply cancelled right after Enter left ``▶ Thought (0 words)`` behind)."""
        async with self._lock:
            if entry not in self.entries:
                return
            if self.entries.index(entry) < self.first_mounted:
                self.first_mounted -= 1
            self.entries.remove(entry)
            widget, entry.widget = entry.widget, None
            if widget is not None and widget.parent is self:
                await widget.remove()
            self._update_marker()

    async def fold(self, gone: Sequence[Entry], group: Entry | None = None, at: Entry | None = None) -> None:
        """Take the entries ``gone`` out (calls folded into a group row), in one pass,
        and put ``group`` where ``at`` is (before it; ``at`` may be one that goes).
        What stays mounted stays; the window is topped up from above if it ran short."""
        async with self._lock:
            dropped = {id(e) for e in gone}
            kept: list[Entry] = []
            first: int | None = None
            widgets: list[Widget] = []
            group_mounted = False
            for i, entry in enumerate(self.entries):
                mounted = i >= self.first_mounted
                if group is not None and entry is at:
                    if mounted and first is None:
                        first = len(kept)
                    group_mounted = mounted
                    kept.append(group)
                if id(entry) in dropped:
                    entry.capture()
                    if entry.widget is not None:
                        widgets.append(entry.widget)
                    entry.widget = None
                    continue
                if mounted and first is None:
                    first = len(kept)
                kept.append(entry)
            self.entries[:] = kept
            self.first_mounted = len(kept) if first is None else first
            if widgets:
                await self.remove_children(widgets)
            if group is not None and group_mounted:
                index = kept.index(group)
                after = next((e.widget for e in kept[index + 1 :] if e.widget is not None), None)
                widget = group.widget = group.build()
                await self.mount(widget, before=after) if after is not None else await self.mount(widget)
            if self.mounted_count == 0 and self.entries:  # all that was mounted folded away
                start = max(0, len(self.entries) - WINDOW)
                for entry in self.entries[start:]:
                    entry.widget = entry.build()
                await self.mount_all([e.widget for e in self.entries[start:] if e.widget is not None])
                self.first_mounted = start
            elif self.mounted_count < WINDOW and self.first_mounted > 0:
                await self._load_earlier(WINDOW - self.mounted_count)
            self._update_marker()

    async def add_batch(self, entries: list[Entry]) -> None:
        """Append ``entries`` as :meth:`add` would, in one mount (one layout pass
        for a frame's worth of new tool calls). Following the end, those that would
        leave the window at once are never built, and the widgets of those that
        leave it are reused where they can be (:meth:`Entry.take`: a collapsed tool
        span shows the newer call and moves to the end): a burst of calls rebinds
        a window's worth of spans instead of building, mounting, styling and
        removing one per call."""
        async with self._lock:
            start = len(self.entries)
            self.entries.extend(entries)
            spare: list[Widget] = []
            if self.is_anchored_at_end:
                await self._trim(spare)  # the new ones count as mounted: those above the window are skipped
            built: list[Widget] = []
            for entry in self.entries[max(start, self.first_mounted) :]:
                reused = next((w for w in spare if entry.take(w)), None)
                if reused is None:
                    entry.widget = entry.build()
                    built.append(entry.widget)
                    continue
                spare.remove(reused)
                if built:  # what comes before it, in order
                    await self._mount_sliced(built)
                    built = []
                self.move_child(reused, after=self.children[-1])
            if built:
                await self._mount_sliced(built)
            if spare:
                await self.remove_children(spare)
            self.schedule_parking()

    async def _mount_sliced(self, widgets: list[Widget]) -> None:
        """Mount ``widgets`` at the end, ``MOUNT_SLICE`` at a time: each widget's
        compose and mount are steps of its own message pump, and a window's worth
        mounted at once ran as one ~30 ms turn of the event loop."""
        for i in range(0, len(widgets), MOUNT_SLICE):
            await self.mount_all(widgets[i : i + MOUNT_SLICE])

    async def add_many(self, entries: list[Entry]) -> None:
        """Append many entries at once (a resumed session): only the newest
        ``WINDOW`` are built and mounted; the rest wait above the marker."""
        async with self._lock:
            await self._add_many(entries)

    async def _add_many(self, entries: list[Entry]) -> None:
        first_new = len(self.entries)
        self.entries.extend(entries)
        start = max(first_new, len(self.entries) - WINDOW)
        if start > first_new:  # entries already mounted would leave a gap: drop them
            old = self.entries[self.first_mounted : first_new]
            for entry in old:
                entry.capture()
            await self.remove_children([e.widget for e in old if e.widget is not None])
            for entry in old:
                entry.widget = None
            self.first_mounted = start
        # The last screenful first: it is drawn in the next frame; one more is mounted
        # above it once that frame is out (see _fill_window), the rest on scroll.
        # (Only for a full window, a long session resumed, and when nothing stays
        # mounted above the new entries: a gap cannot be filled.)
        alone = self.first_mounted >= first_new and len(self.entries) - start >= WINDOW
        first = max(start, len(self.entries) - self._screenful(self.entries[start:])) if alone else start
        widgets = []
        for entry in self.entries[first:]:
            entry.widget = entry.build()
            widgets.append(entry.widget)
        if widgets:
            await self.mount_all(widgets)
        if alone:
            self.first_mounted = first
        self._update_marker()
        self.schedule_parking()
        if first > start and not self._fill_scheduled:  # one fill, for the latest state
            self._fill_scheduled = True
            self.call_after_refresh(self.run_worker, self._fill_window(), group="fill-window")

    def _screenful(self, entries: list[Entry]) -> int:
        """How many of the newest ``entries`` fill the view (estimated from their text:
        lines, wrapped at the view's width), plus one; at least one."""
        width = max(20, (self.size.width or self.app.size.width) - 4)
        height = max(10, self.size.height or self.app.size.height)
        rows = 0
        for count, entry in enumerate(reversed(entries), 1):
            text = getattr(entry, "text", None)
            if isinstance(text, str) and text:
                rows += 2 + sum(1 + len(line) // width for line in text.splitlines())
            else:
                rows += 3
            if rows > height:
                return count + 1
        return len(entries)

    async def _fill_window(self) -> None:
        """After the last screenful is drawn: one more screenful above it, so there is
        something to scroll back into (reaching the top brings back more, as always).
        Not the whole window: that work would fall on the first reply after a resume."""
        async with self._lock:
            self._fill_scheduled = False
            if self.first_mounted > 0:
                await self._load_earlier(self._screenful(self.entries[: self.first_mounted]))

    @property
    def is_anchored_at_end(self) -> bool:
        return self.is_vertical_scroll_end or self.max_scroll_y == 0 or not self._anchor_released

    @property
    def mounted_count(self) -> int:
        return len(self.entries) - self.first_mounted

    async def trim(self) -> None:
        """Drop the oldest widgets so at most ``WINDOW`` entries stay mounted."""
        async with self._lock:
            await self._trim()

    async def _trim(self, spare: list[Widget] | None = None) -> None:
        """Given ``spare``, the widgets of the entries that leave go there (to be
        reused or removed by the caller) instead of being removed here."""
        drop: list[Widget] = [] if spare is None else spare
        while self.mounted_count > WINDOW:
            entry = self.entries[self.first_mounted]
            if not entry.can_leave():  # a turn of 1,000 calls is not 1,000 spans mounted
                break
            entry.capture()
            if entry.widget is not None:
                drop.append(entry.widget)
            entry.widget = None
            self.first_mounted += 1
        if drop and spare is None:
            await self.remove_children(drop)
        self._update_marker()

    def _start_loading_earlier(self) -> None:
        """In a worker of its own. Given the method, not a coroutine: a worker that a
        newer one cancels before it started leaves no coroutine behind un-awaited."""
        # (Textual's WorkType infers Never from an async method: the ignore is its stub's)
        self.run_worker(self.load_earlier, exclusive=True, group="load-earlier")  # type: ignore[arg-type]

    async def load_earlier(self) -> None:
        """Mount the previous ``BATCH`` entries above the first mounted one."""
        if self._loading or self.first_mounted == 0:
            return
        self._loading = True
        try:
            async with self._lock:
                await self._load_earlier()
        finally:
            self._loading = False

    async def _load_earlier(self, count: int | None = None) -> None:
        if self.first_mounted == 0 or self.first_mounted >= len(self.entries):
            return
        anchor = self.entries[self.first_mounted].widget
        if anchor is None or anchor.parent is not self:
            return
        start = max(0, self.first_mounted - (BATCH if count is None else count))
        batch = self.entries[start : self.first_mounted]
        widgets = [e.build() for e in batch]
        for entry, widget in zip(batch, widgets, strict=True):
            entry.widget = widget
        before_height = self.virtual_size.height
        await self.mount_all(widgets, before=anchor)
        self.first_mounted = start
        self._update_marker()

        def keep_place() -> None:
            if not (self.is_anchored and not self._anchor_released):  # (following the end: the anchor does)
                grown = self.virtual_size.height - before_height
                self.scroll_to(y=self.scroll_y + max(0, grown), animate=False)
            if self.scroll_y <= 0 and self.first_mounted > 0:
                # still at the top (the batch was not laid out yet, or it is short): a
                # scroll to the top changes nothing now, so no watch would load the next
                self._start_loading_earlier()

        self.call_after_refresh(keep_place)

    async def clear_entries(self) -> None:
        async with self._lock:
            await self._clear()

    async def _clear(self) -> None:
        widgets = [e.widget for e in self.entries if e.widget is not None]
        self.entries.clear()
        self.first_mounted = 0
        await self.remove_children(widgets)
        self._update_marker()

    def _update_marker(self) -> None:
        """Only when the count changed (it is called at every change of the window; an
        update lays out the screen)."""
        if self.first_mounted == self._marker_count:
            return
        self._marker_count = self.first_mounted
        marker = self.query_one(EarlierMarker)
        marker.set_class(self.first_mounted > 0, "-shown")
        marker.update(f"↑ {self.first_mounted} earlier items — scroll up or click to show them")

    def watch_scroll_y(self, old: float, new: float) -> None:
        super().watch_scroll_y(old, new)
        if new <= 0 and self.first_mounted > 0 and not self._loading:
            self._start_loading_earlier()
        if not self._unpark_scheduled:
            self._unpark_scheduled = self.call_after_refresh(self._start_unpark)
        self.schedule_parking()

    def _start_unpark(self) -> None:
        self.run_worker(self._unpark_in_view(), group="unpark")

    async def _unpark_in_view(self) -> None:
        """Right after the screen drew a scroll (its regions then say what the view
        shows): bring back the parked chunks in view, before anything else. Left to the
        parking pass (``PARK_DELAY_S`` later, then bringing back two screens' worth
        before parking anything), a reply scrolled back showed blank for 1.5-4 s on a
        busy machine."""
        from .assistant_message import AssistantMessage

        self._unpark_scheduled = False
        view = self.region
        for message in list(self.query_children(AssistantMessage)):
            if message.region.overlaps(view) and await message.unpark_in_view():
                self.call_after_refresh(self.schedule_parking)  # the rest near the view, lines to keep

    def schedule_parking(self) -> None:
        """Soon (debounced): park Markdown far from view, bring back what is near."""
        if not self._parking_scheduled:
            self._parking_scheduled = True
            self.set_timer(PARK_DELAY_S, self._parking_pass)

    async def _parking_pass(self) -> None:
        from .assistant_message import AssistantMessage  # not needed for the first frame

        self._parking_scheduled = False
        moved = False
        for message in list(self.query_children(AssistantMessage)):
            moved = await message.update_parking() or moved
        if moved:  # look again once the layout has placed what moved (regions lag till then)
            self.call_after_refresh(self.schedule_parking)
