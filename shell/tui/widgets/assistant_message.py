"""The assistant's text, streamed as Markdown while the deltas arrive.

Deltas are batched per frame (one flush per ~1/60 s, however many deltas came),
each flush goes to the current chunk's ``MarkdownStream``, and once a chunk has
grown past ``CHUNK_LIMIT`` a fresh ``Markdown`` widget starts at the next safe
top-level block (see ``mdsplit``). Every append then touches a small document, so
streaming time grows linearly with the reply's size. A flush renders at most
``FRAME_BUDGET`` characters (a burst waits for the next frames), finished chunks
keep a fixed height while the reply grows (Textual need not measure them again),
and chunks far from view are parked (see ``parked``). benchmarks/tui_stream.py
measures all this against a plain ``MarkdownStream``.
"""

from __future__ import annotations

import asyncio

from textual.app import ComposeResult
from textual.containers import ScrollableContainer, Vertical
from textual.events import Resize
from textual.geometry import Region
from textual.widgets import Markdown
from textual.widgets._markdown import MarkdownStream

from ..mdsplit import Splitter, split_markdown
from ..textsafe import clean
from .parked import Parked

CHUNK_LIMIT = 1500
FRAME_S = 1 / 60
FRAME_BUDGET = 200
"""At most this many characters are rendered per frame, so a burst of deltas (a
fast model, a replayed session) never stalls the event loop; the rest waits for
the next frame."""


class AssistantMessage(Vertical):
    """One text block of a reply: a column of Markdown documents."""

    DEFAULT_CSS = """
    AssistantMessage { height: auto; margin: 1 0 0 0; padding: 0 1; }
    AssistantMessage > Markdown { margin: 0; padding: 0; background: transparent; }
    AssistantMessage > Markdown:last-child > MarkdownBlock:last-child { margin-bottom: 0; }
    """

    def __init__(self, text: str = "", *, streaming: bool = False) -> None:
        super().__init__()
        self._text = clean(text)
        self.streaming = streaming
        self._pending: list[str] = []
        self._flush_scheduled = False
        self._chunk_size = len(self._text)
        self._splitter = Splitter()
        self._stream: MarkdownStream | None = None
        self._current: Markdown | None = None
        self._lock = asyncio.Lock()
        self._width = 0

    @property
    def text(self) -> str:
        return self._text + "".join(self._pending)

    def compose(self) -> ComposeResult:
        parts = split_markdown(self._text, CHUNK_LIMIT) if self._text else [""]
        for part in parts:
            yield Markdown(part)

    def on_mount(self) -> None:
        if self.streaming:
            self._current = self.query(Markdown).last()
            self._stream = Markdown.get_stream(self._current)

    def append(self, delta: str) -> None:
        """Queue a delta; it is rendered at the next frame with the others."""
        self._pending.append(delta)
        self._schedule()

    def _schedule(self) -> None:
        if not self._flush_scheduled:
            self._flush_scheduled = True
            self.set_timer(FRAME_S, self._flush)

    async def _flush(self) -> None:
        self._flush_scheduled = False
        async with self._lock:  # the frame timer and finish() may both flush
            await self._flush_locked()

    async def _flush_locked(self) -> None:
        if not self._pending or self._stream is None:
            return
        pending = "".join(self._pending)
        self._pending.clear()
        if len(pending) > FRAME_BUDGET:
            keep = pending.rfind("\n", 0, FRAME_BUDGET) + 1 or FRAME_BUDGET
            self._pending.append(pending[keep:])
            pending = pending[:keep]
            self._schedule()
        text = clean(pending)
        self._text += text
        cut = self._splitter.feed(text, self._chunk_size >= CHUNK_LIMIT)
        if cut is None:
            self._chunk_size += len(text)
            await self._stream.write(text)
            return
        if cut:
            await self._stream.write(text[:cut])
        await self._stream.stop()
        self._current = Markdown()
        await self.mount(self._current)
        self._stream = Markdown.get_stream(self._current)
        rest = text[cut:]
        self._chunk_size = len(rest)
        await self._stream.write(rest)
        self.call_after_refresh(self.park_offscreen)

    async def finish(self, text: str | None = None) -> None:
        """The block ended: render what is left (a frame's budget at a time) and stop."""
        while self._pending and self._stream is not None:
            await self._flush()
            if self._pending:
                await asyncio.sleep(FRAME_S)
        async with self._lock:
            if self._stream is not None:
                await self._stream.stop()
                self._stream = None
        self.streaming = False
        for chunk in self.query_children(Markdown):  # frozen heights only matter while growing
            chunk.styles.height = "auto"
        if text is not None and not self._text:
            self._text = clean(text)
            await self.query_one(Markdown).update(self._text)

    # -- parking (see ``parked``) ------------------------------------------------------
    def _viewport(self) -> Region | None:
        """The region worth keeping live: the scroll container's, half a screen either way."""
        container = next((a for a in self.ancestors if isinstance(a, ScrollableContainer)), None)
        if container is None:
            return None
        region = container.region
        margin = region.height // 2
        return region.grow((margin, 0, margin, 0))

    async def park_offscreen(self) -> None:
        """Swap finished Markdown chunks far from the viewport for ``Parked`` spacers."""
        viewport = self._viewport()
        if viewport is None or not self.is_attached:
            return
        for chunk in list(self.query_children(Markdown)):
            if chunk is self._current and self._stream is not None:
                continue
            region = chunk.region
            if not region or chunk.source == "":
                continue
            if region.overlaps(viewport):
                if self._stream is not None:
                    self._freeze(chunk)
                continue
            parked = Parked(chunk.source, chunk.outer_size.height)
            await self.mount(parked, before=chunk)
            await chunk.remove()

    def _freeze(self, chunk: Markdown) -> None:
        """Give a finished chunk a fixed height: a growing sibling then no longer
        makes Textual measure every block of it again on each frame."""
        if chunk.styles.height is None or chunk.styles.height.is_auto:
            chunk.styles.height = chunk.outer_size.height

    def on_resize(self, event: Resize) -> None:
        """A new width changes every chunk's height: measure again, freeze later.
        (Growing taller, which happens every frame, changes nothing.)"""
        if event.size.width == self._width:
            return
        self._width = event.size.width
        for chunk in self.query_children(Markdown):
            chunk.styles.height = "auto"
        if self.is_attached:
            self.call_after_refresh(self.park_offscreen)

    async def unpark_visible(self) -> None:
        """Bring back the parked chunks that are near the viewport again."""
        viewport = self._viewport()
        if viewport is None:
            return
        for parked in list(self.query_children(Parked)):
            if parked.region.overlaps(viewport):
                await self.mount(Markdown(parked.source), before=parked)
                await parked.remove()
