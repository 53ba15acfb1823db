"""The conversation's scroll bar, drawn again only when what it shows changes, and
then from the rows it drew before.

While a reply streams, the conversation grows at every frame, so Textual's scroll
bar is refreshed at every frame (its ``window_virtual_size`` changed) and renders
all its rows through Rich again: ~2-3 ms of each ~15-20 ms frame, for a thumb that
moves by an eighth of a cell every ten frames or so. This bar works out what the
drawing depends on, the thumb's ends in the eighths of a cell Textual draws with,
the size and the style, and hands back the lines it drew last while those are the
same. Clicks, drags and hover are Textual's, untouched.

Under a flood the thumb does move at most frames (several lines a frame), and the
whole bar was drawn again each time: 1.7 ms of a ~10 ms render half on average, up
to 9 ms at load (issue 21, round 11's profile). A vertical bar's row is one segment
of ``ScrollBarRender.render_bar`` (the track above or below, the thumb, a thumb's
end glyph), and Textual turns each into its line the same way whatever the row: so
the lines Textual drew are kept by the segment they came from, and a thumb that moved
is drawn from them, Textual being asked again only for a segment not seen yet.
"""

from __future__ import annotations

from math import ceil
from typing import Any

from rich.color import Color
from rich.segment import Segment
from rich.style import Style
from textual.geometry import Region
from textual.scrollbar import ScrollBar, ScrollBarRender
from textual.strip import Strip

EIGHTHS = len(ScrollBarRender.VERTICAL_BARS)
"""Steps per cell of a thumb's end (Textual draws them with the partial-block glyphs)."""

TRACK = Color.parse("#555555")
THUMB = Color.parse("bright_magenta")
"""The colours ``ScrollBarRender`` falls back to when its style has none."""


def thumb_eighths(
    size: int, virtual_size: float, window_size: float, position: float
) -> tuple[int, int] | None:
    """Where ``ScrollBarRender.render_bar`` puts the thumb, in eighths of a cell, as
    ``(start, end)``; ``None`` when it draws no thumb. The same arithmetic as Textual's,
    so two inputs with the same answer draw the same bar."""
    if not (window_size and size and virtual_size and size != virtual_size):
        return None
    thumb_size = max(1, window_size / (virtual_size / size))
    offset = (size - thumb_size) * (position / (virtual_size - window_size))
    start = int(offset * EIGHTHS)
    return start, start + ceil(thumb_size * EIGHTHS)


class SteadyScrollBar(ScrollBar):
    """Textual's scroll bar, with its last drawing kept while it would draw the same,
    and a vertical bar's rows drawn from the lines Textual drew for the same segment."""

    def __init__(self, vertical: bool = True, name: str | None = None, *, thickness: int = 1) -> None:
        super().__init__(vertical, name, thickness=thickness)
        self._drawn: tuple[Any, list[Strip]] | None = None
        self._rows: tuple[Any, dict[Segment, Strip]] | None = None
        """The line Textual drew for each segment of the bar, for one look (the key
        of :meth:`_drawing_key` without the thumb)."""

    def _drawing_key(self, crop: Region) -> Any:
        """What the lines depend on, or ``None`` where that is not known (a renderer
        of someone else's: then it is drawn every time, as Textual does)."""
        bar = self.render()
        if type(bar) is not ScrollBarRender:
            return None
        length = self.size.height if self.vertical else self.size.width
        try:
            thumb = thumb_eighths(length, bar.virtual_size, bar.window_size, bar.position)
        except ZeroDivisionError:
            return None
        return (crop, self.size, self.vertical, self.thickness, bar.style, thumb, self.visual_style)

    def render_lines(self, crop: Region) -> list[Strip]:
        key = self._drawing_key(crop)
        if key is not None and self._drawn is not None and self._drawn[0] == key:
            return self._drawn[1]
        lines = self._from_rows(key, crop)
        if lines is None:
            lines = super().render_lines(crop)
            self._learn_rows(key, crop, lines)
        self._drawn = None if key is None else (key, lines)
        return lines

    def _segments(self) -> list[Segment] | None:
        """The bar's rows as ``ScrollBarRender`` makes them (one segment each), for a
        vertical bar drawn whole; None otherwise."""
        bar = self.render()
        if type(bar) is not ScrollBarRender or not self.vertical:
            return None
        style = bar.style
        if not isinstance(style, Style):  # a style string: left to Textual
            return None
        width, height = self.size
        drawn = ScrollBarRender.render_bar(
            size=height,
            virtual_size=bar.virtual_size,
            window_size=bar.window_size,
            position=bar.position,
            thickness=width,
            vertical=True,
            back_color=style.bgcolor or TRACK,
            bar_color=style.color or THUMB,
        )
        rows = [segment for segment in drawn.segments if segment.text != "\n"]
        return rows if len(rows) == height else None

    def _from_rows(self, key: Any, crop: Region) -> list[Strip] | None:
        """The bar drawn from lines Textual drew before for the same segments, or None
        if one is new (or the look changed)."""
        if key is None or self._rows is None or self._rows[0] != _look(key) or crop != self.size.region:
            return None
        segments = self._segments()
        if segments is None:
            return None
        lines = self._rows[1]
        try:
            return [lines[segment] for segment in segments]
        except KeyError:
            return None

    def _learn_rows(self, key: Any, crop: Region, lines: list[Strip]) -> None:
        """Keep the line Textual drew for each of the bar's segments."""
        if key is None or crop != self.size.region:
            return
        segments = self._segments()
        if segments is None or len(segments) != len(lines):
            return
        look = _look(key)
        if self._rows is None or self._rows[0] != look:
            self._rows = (look, {})
        self._rows[1].update(zip(segments, lines, strict=True))


def _look(key: Any) -> Any:
    """A drawing key without the thumb's place: what each row's line depends on."""
    crop, size, vertical, thickness, style, _thumb, visual_style = key
    return (crop, size, vertical, thickness, style, visual_style)
