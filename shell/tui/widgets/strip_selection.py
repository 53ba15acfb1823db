"""Lines kept as strips that can still be selected: the screen maps a mouse position
to text through each segment's ``offset`` (made relative to the line here), and a
selection is drawn over a line's span. Shared by the widgets that draw kept strips
(``rendered_chunk``, ``list_lines``)."""

from __future__ import annotations

from rich.segment import Segment
from rich.style import Style
from textual.strip import Strip
from textual.widget import Widget


def selectable(line: Strip, y: int) -> Strip:
    """``line`` with each segment's selection offset made relative to this line: the
    screen maps a mouse position to text through these (they were the blocks')."""
    segments: list[Segment] = []
    x = 0
    for text, style, control in line:
        if style is not None and style._meta is not None and "offset" in style.meta:
            style += Style.from_meta({"offset": (x, y)})
        segments.append(Segment(text, style, control))
        x += len(text)
    return Strip(segments, line.cell_length)


def highlight(line: Strip, span: tuple[int, int], style: Style) -> Strip:
    start, end = span
    length = line.cell_length
    end = length if end == -1 else min(end, length)
    if end <= start:
        return line
    before, middle, after = line.divide([start, end, length])
    return Strip.join([before, middle.apply_style(style), after])


def with_selection(widget: Widget, line: Strip, y: int) -> Strip:
    """``line`` (row ``y`` of ``widget``) with the part of the screen's selection that
    falls on it drawn in the selection style."""
    selection = widget.text_selection
    if selection is not None:
        span = selection.get_span(y)
        if span is not None:
            return highlight(line, span, widget.screen.get_component_rich_style("screen--selection"))
    return line
