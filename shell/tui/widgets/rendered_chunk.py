"""A finished chunk of a reply, shown from the lines its Markdown rendered to.

Why: while a reply streams, every frame makes Textual lay out and draw again
every widget near the view, and a Markdown chunk is a tree of them (the
document, a block per paragraph, heading and fence, a grid and two widgets per
list item): ~80 widgets near the view made a frame cost 20-50 ms. A chunk that
will not change again is drawn once by its widgets, its lines are kept
(:func:`capture`, the same strips the screen showed, colours, highlighting and
link actions included), and the widgets make way for one ``RenderedChunk``
that hands those lines back: one widget to lay out, nothing to draw again.

Its lines hold a width and a theme: when either changes, the conversation puts
the chunk back as Markdown (its ``source``), which renders anew and is captured
again. A click on a link says which address it opens, as on the live document;
text can be selected and copied as on the live blocks.

A chunk of a long list or fence is hundreds of lines, and drawing them all in one
step held the loop for 0.35-0.6 s under load (a 2,000-item list sent in one delta,
findings I6): :func:`warm` draws them first a slice at a time, letting the loop run
between slices, into the lines Textual keeps per widget, so :func:`capture` only
composes what is drawn already.

Its lines are handed to the screen as they are (:meth:`RenderedChunk.render_lines`),
not through Textual's styles cache: they came out of it already (the blocks'
backgrounds, the app's line filters), the chunk has no style of its own to add, and
a chunk that grows (the next one joins it) or is new had every line in view put
through it again, ~60 µs a line: 1.5 ms of a ~10 ms render half on average while a
reply streams, up to 6 ms (issue 21, round 11's profile).
"""

from __future__ import annotations

import asyncio
import time

from rich.style import Style
from textual._compositor import Compositor
from textual.geometry import Region, Size
from textual.selection import Selection
from textual.strip import Strip
from textual.widget import Widget

from ..linkopen import open_link
from .strip_selection import selectable, with_selection

WARM_SLICE = 8
"""Lines drawn between two looks at the clock while warming a chunk."""
WARM_STEP_S = 0.012
"""Drawing time after which warming lets the loop run (keys, Esc, the next frame)."""
WARM_FROM = 40
"""Lines from which a chunk is warmed first: a shorter one (nearly all, while a reply
streams: chunks are cut every ~150 characters) is captured at once, as before."""


def _laid_out(chunk: Widget) -> Compositor | None:
    """``chunk`` and its children placed at its size, if the screen's last layout of
    each is what they show now (else None: the lines would be the wrong size)."""
    size = chunk.size
    if not size.width or not size.height:
        return None
    compositor = Compositor()
    compositor.reflow(chunk, size)
    for widget, geometry in compositor.full_map.items():
        if widget.region.size != geometry.region.size:
            compositor.clear()
            return None  # the screen has not laid out what it shows now
    return compositor


async def warm(chunk: Widget) -> None:
    """Draw the lines of ``chunk``'s widgets a slice at a time, letting the loop run
    every ``WARM_STEP_S``: each widget keeps the lines it drew (Textual's styles cache),
    so the :func:`capture` that follows takes them instead of drawing all in one step.
    Only a head start: whatever changes meanwhile (a new width, a theme, the chunk
    removed) is drawn again or refused by ``capture``, which stays the judge."""
    if chunk.size.height < WARM_FROM:
        return
    compositor = _laid_out(chunk)
    if compositor is None:
        return
    regions = [(widget, geometry.region) for widget, geometry in compositor.full_map.items()]
    compositor.clear()
    began = time.perf_counter()
    for widget, region in regions:
        for top in range(0, region.height, WARM_SLICE):
            if not widget.is_attached or widget.region.size != region.size:
                break  # gone or resized while the loop ran: capture will tell
            widget.render_lines(Region(0, top, region.width, min(WARM_SLICE, region.height - top)))
            if time.perf_counter() - began >= WARM_STEP_S:
                await asyncio.sleep(0)
                began = time.perf_counter()


def capture(chunk: Widget) -> list[Strip] | None:
    """The lines ``chunk`` and its children draw at its current size, composed as the
    screen composes them; None if the screen's last layout of it is out of date (a
    block changed size since), or it was never laid out."""
    compositor = _laid_out(chunk)
    if compositor is None:
        return None
    size = chunk.size
    shown = [child for child in chunk.children if child.display]
    if shown:
        # The last block's bottom margin is the blank line before the next chunk: a
        # chunk laid out while that block was still the reply's end (no margin) is one
        # line short, and kept so, two paragraphs would run together at the cut.
        last = shown[-1]
        needed = last.region.bottom + last.styles.margin.bottom - chunk.content_region.y
        if chunk.content_region.height < needed:
            compositor.clear()
            return None
    lines = compositor.render_strips(size)
    compositor.clear()
    return lines


class RenderedChunk(Widget):
    """A finished Markdown chunk as lines: ``source`` is kept to render it again."""

    DEFAULT_CSS = """
    RenderedChunk { width: 1fr; height: auto; }
    """

    def __init__(self, source: str, lines: list[Strip]) -> None:
        super().__init__()
        self.source = source
        self.lines = [selectable(line, y) for y, line in enumerate(lines)]
        self.rendered_width = lines[0].cell_length if lines else 0
        self.styles.height = len(lines)

    def can_take(self, lines: list[Strip], most: int) -> bool:
        """Whether the lines of the next chunk may join these (same width; together
        no taller than ``most``: a spacer takes chunks whole, and one that never
        stopped growing could never be parked)."""
        width = lines[0].cell_length if lines else 0
        return width == self.rendered_width and len(self.lines) + len(lines) <= most

    def extend(self, source: str, lines: list[Strip]) -> None:
        """Take the next chunk's source and lines, below these."""
        top = len(self.lines)
        self.source += source
        self.lines += [selectable(line, top + y) for y, line in enumerate(lines)]
        self.styles.height = len(self.lines)

    def get_content_height(self, container: Size, viewport: Size, width: int) -> int:
        return len(self.lines)

    def render_line(self, y: int) -> Strip:
        line = self.lines[y] if 0 <= y < len(self.lines) else Strip.blank(self.size.width)
        return with_selection(self, line, y)

    def render_lines(self, crop: Region) -> list[Strip]:
        """The kept lines in ``crop``, as Textual's styles cache would hand them out for
        a widget with no style of its own (padded or cut to the width it is laid out
        at, a hovered link in its hover style), without putting each through it."""
        width = self.size.width
        blank = Strip.blank(width)
        lines = [self.lines[y] if 0 <= y < len(self.lines) else blank for y in crop.line_range]
        # The screen can draw a chunk removed since its layout (parked, or joined to the
        # one before, between a frame's two halves): it has no screen then, so no
        # selection to ask it for (asking raised NoScreen and ended the app).
        if self.is_attached and self.text_selection is not None:
            lines = [with_selection(self, line, y) for y, line in zip(crop.line_range, lines, strict=True)]
        if self.rendered_width != width:  # laid out anew; rendered again shortly (see ``on_resize``)
            base, background = self.background_colors
            fill = Style(bgcolor=(base + background).rich_color)
            lines = [line.adjust_cell_length(width, fill) for line in lines]
        hover = self.hover_style
        if hover._link_id and hover._meta and "@click" in hover.meta:
            link_hover = self.link_style_hover
            if link_hover:
                lines = [line.style_links(hover.link_id, link_hover) for line in lines]
        if crop.column_span != (0, width):
            x1, x2 = crop.column_span
            lines = [line.crop(x1, x2) for line in lines]
        return lines

    def get_selection(self, selection: Selection) -> tuple[str, str] | None:
        text = "\n".join(line.text.rstrip() for line in self.lines)
        return selection.extract(text), "\n"

    def selection_updated(self, selection: Selection | None) -> None:
        self.refresh()

    async def action_link(self, href: str) -> None:
        open_link(self, href)
