"""A list of one-paragraph items drawn by one widget: bullets, text, hanging indent.

Why: Textual builds widgets per list item (ours, two: the bullet and the paragraph),
and every widget costs a style pass, a place in each layout and its own drawing. A
model that lists a directory or a log sends thousands of items in one list: at two
widgets each the screen showed about 35 items a second and froze for seconds at a
time (findings I6). Nearly every list a model writes is items of one paragraph each;
those are drawn here as one widget that wraps each item's text under its first
character, as the two-column grid of ``chat_markdown`` does, so it looks the same.
Lists with nested lists or items of several blocks keep the grid.

The items' text is Textual ``Content`` built by the list's Markdown block (emphasis,
inline code and links keep their component styles, looked up through the ancestors);
a click on a link is the list block's, as it is on a paragraph.
"""

from __future__ import annotations

from textual.content import Content
from textual.geometry import Size
from textual.selection import Selection
from textual.strip import Strip
from textual.visual import Visual
from textual.widget import Widget
from textual.widgets._markdown import MarkdownBlock

from .strip_selection import selectable, with_selection

Item = tuple[str, Content]
"""An item: its bullet (``"• "``, ``" 12. "``) and its text."""
DRAW_BATCH = 16
"""Lines drawn in one go (see ``ListLines._draw``)."""


class ListLines(Widget):
    """The items of a list, wrapped to the width with the bullets in a column. Drawn a
    line at a time, each line's strip kept until its item or the width changes: a
    streamed list draws its new lines only (drawing all its lines at each frame held
    the loop for up to a second with a few hundred items)."""

    COMPONENT_CLASSES = {"list-lines--bullet"}

    DEFAULT_CSS = """
    ListLines { width: 1fr; height: auto; }
    ListLines > .list-lines--bullet { color: $text-primary; }
    ListLines:light > .list-lines--bullet { color: $text-secondary; }
    """

    def __init__(self, items: list[Item]) -> None:
        super().__init__()
        self._items: list[Item] = []
        self._item_lines: dict[int, list[list[Content]]] = {}
        """Each item's lines, by width (the items wrapped so far)."""
        self._lines: tuple[int, list[Content]] = (-1, [])
        """The lines at a width: bullets and the items' lines, one text a line."""
        self._strips: dict[int, Strip] = {}
        """The drawn lines at ``_strips_width``, by line."""
        self._strips_width = -1
        self.set_items(items)

    @property
    def items(self) -> list[Item]:
        return list(self._items)

    def set_items(self, items: list[Item]) -> None:
        """New items (a streamed list grew or an item got more text). What the items that
        did not change were wrapped and drawn to is kept: a frame draws the last ones."""
        old = self._items
        same, most = 0, min(len(old), len(items))
        while same < most and old[same][0] == items[same][0] and old[same][1].is_same(items[same][1]):
            same += 1
        if same == len(old) == len(items):
            return
        wrapped = self._item_lines.get(self._strips_width, [])
        first = sum(len(item) for item in wrapped[:same])  # the first line that may change
        self._strips = {y: strip for y, strip in self._strips.items() if y < first}
        self._lines = (-1, [])
        self._items = list(items)
        for item_lines in self._item_lines.values():
            del item_lines[same:]
        self.refresh(layout=True)

    def _bullet_width(self) -> int:
        return max((Content(symbol).cell_length for symbol, _ in self._items), default=0)

    def _lines_at(self, width: int) -> list[Content]:
        """All items wrapped to ``width``, a text a line."""
        if self._lines[0] == width:
            return self._lines[1]
        indent = self._bullet_width()
        room = max(1, width - indent)
        item_lines = self._item_lines.setdefault(width, [])
        if len(self._item_lines) > 3:  # old widths: a resize back is rare
            for other in [w for w in self._item_lines if w != width][:-2]:
                del self._item_lines[other]
        for _, text in self._items[len(item_lines) :]:
            item_lines.append(text.wrap(room) or [Content("")])
        pad = Content(" " * indent)
        lines: list[Content] = []
        for (symbol, _), wrapped_item in zip(self._items, item_lines, strict=True):
            lines.append(Content.styled(symbol.rjust(indent), ".list-lines--bullet") + wrapped_item[0])
            lines.extend(pad + line for line in wrapped_item[1:])
        self._lines = (width, lines)
        return lines

    def get_content_height(self, container: Size, viewport: Size, width: int) -> int:
        return len(self._lines_at(width)) if self._items else 0

    def notify_style_update(self) -> None:
        """A new theme (or style): the kept strips hold the old colours."""
        self._strips = {}
        super().notify_style_update()

    def render_line(self, y: int) -> Strip:
        width = self.size.width
        if self._strips_width != width:
            self._strips, self._strips_width = {}, width
        lines = self._lines_at(width)
        if not 0 <= y < len(lines):
            return Strip.blank(width)
        line = self._strips.get(y)
        if line is None:
            self._draw(lines, y, width)
            line = self._strips[y]
        return with_selection(self, line, y)

    def _draw(self, lines: list[Content], y: int, width: int) -> None:
        """Draw line ``y`` and the undrawn ones after it, up to ``DRAW_BATCH``, in one
        go: most of drawing a line is looking up the widget's styles, the same for
        every line, so a screenful of new lines (a list arriving) costs a few lookups,
        not one per line."""
        end = y + 1
        while end < min(len(lines), y + DRAW_BATCH) and end not in self._strips:
            end += 1
        batch = lines[y:end]
        joined = Content("\n").join(batch)
        style = self.visual_style
        drawn = Visual.to_strips(self, joined, width, None, style, apply_selection=False, pad=True)
        if len(drawn) != len(batch):  # a line wrapped again after all: one at a time
            drawn = [self._draw_one(line, width) for line in batch]
        for at, strip in enumerate(drawn, y):
            self._strips[at] = selectable(strip, at)

    def _draw_one(self, line: Content, width: int) -> Strip:
        drawn = Visual.to_strips(self, line, width, 1, self.visual_style, apply_selection=False, pad=True)
        return drawn[0] if drawn else Strip.blank(width)

    def get_selection(self, selection: Selection) -> tuple[str, str] | None:
        text = "\n".join(line.plain.rstrip() for line in self._lines_at(self.size.width))
        return selection.extract(text), "\n"

    def selection_updated(self, selection: Selection | None) -> None:
        self.refresh()

    async def action_link(self, href: str) -> None:
        parent = self.parent
        if isinstance(parent, MarkdownBlock):
            await parent.action_link(href)
