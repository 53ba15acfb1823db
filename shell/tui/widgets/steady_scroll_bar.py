"""The conversation's scroll bar, drawn again only when what it shows changes.

While a reply streams, the conversation grows at every frame, so Textual's scroll
bar is refreshed at every frame (its ``window_virtual_size`` changed) and renders
all its rows through Rich again: ~2-3 ms of each ~15-20 ms frame, for a thumb that
moves by an eighth of a cell every ten frames or so. This bar works out what the
drawing depends on, the thumb's ends in the eighths of a cell Textual draws with,
the size and the style, and hands back the lines it drew last while those are the
same. Clicks, drags and hover are Textual's, untouched.
"""

from __future__ import annotations

from math import ceil
from typing import Any

from textual.geometry import Region
from textual.scrollbar import ScrollBar, ScrollBarRender
from textual.strip import Strip

EIGHTHS = len(ScrollBarRender.VERTICAL_BARS)
"""Steps per cell of a thumb's end (Textual draws them with the partial-block glyphs)."""


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
    """Textual's scroll bar, with its last drawing kept while it would draw the same."""

    def __init__(self, vertical: bool = True, name: str | None = None, *, thickness: int = 1) -> None:
        super().__init__(vertical, name, thickness=thickness)
        self._drawn: tuple[Any, list[Strip]] | None = None

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
        lines = super().render_lines(crop)
        self._drawn = None if key is None else (key, lines)
        return lines
