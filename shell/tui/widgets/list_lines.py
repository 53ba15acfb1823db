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
from textual.widget import Widget
from textual.widgets._markdown import MarkdownBlock

Item = tuple[str, Content]
"""An item: its bullet (``"• "``, ``" 12. "``) and its text."""


class ListLines(Widget):
    """The items of a list, wrapped to the width with the bullets in a column."""

    COMPONENT_CLASSES = {"list-lines--bullet"}

    DEFAULT_CSS = """
    ListLines { width: 1fr; height: auto; }
    ListLines > .list-lines--bullet { color: $text-primary; }
    ListLines:light > .list-lines--bullet { color: $text-secondary; }
    """

    def __init__(self, items: list[Item]) -> None:
        super().__init__()
        self._items: list[Item] = []
        self._wrapped: dict[int, tuple[Content, int]] = {}
        self._item_lines: dict[int, list[list[Content]]] = {}
        self.set_items(items)

    @property
    def items(self) -> list[Item]:
        return list(self._items)

    def set_items(self, items: list[Item]) -> None:
        """New items (a streamed list grew or an item got more text). The wrapped lines
        of the items that did not change are kept: a frame wraps the last item only."""
        old = self._items
        same, most = 0, min(len(old), len(items))
        while same < most and old[same][0] == items[same][0] and old[same][1].is_same(items[same][1]):
            same += 1
        if same == len(old) == len(items):
            return
        self._items = list(items)
        for lines in self._item_lines.values():
            del lines[same:]
        self._wrapped.clear()
        self.refresh(layout=True)

    def _bullet_width(self) -> int:
        return max((Content(symbol).cell_length for symbol, _ in self._items), default=0)

    def _lines(self, width: int) -> tuple[Content, int]:
        """All items wrapped to ``width`` as one text of lines, and how many lines."""
        wrapped = self._wrapped.get(width)
        if wrapped is not None:
            return wrapped
        indent = self._bullet_width()
        room = max(1, width - indent)
        item_lines = self._item_lines.setdefault(width, [])
        if len(self._item_lines) > 4:  # old widths: a resize back is rare
            for other in [w for w in self._item_lines if w != width][:-2]:
                del self._item_lines[other]
        for _, text in self._items[len(item_lines) :]:
            item_lines.append(text.wrap(room) or [Content("")])
        pad = Content(" " * indent)
        lines: list[Content] = []
        for (symbol, _), wrapped_item in zip(self._items, item_lines, strict=True):
            bullet = Content.styled(symbol.rjust(indent), ".list-lines--bullet")
            lines.append(bullet + wrapped_item[0])
            lines.extend(pad + line for line in wrapped_item[1:])
        self._wrapped = {width: (Content("\n").join(lines), len(lines))}
        return self._wrapped[width]

    def render(self) -> Content:
        return self._lines(self.content_region.width or self.size.width)[0]

    def get_content_height(self, container: Size, viewport: Size, width: int) -> int:
        return self._lines(width)[1]

    async def action_link(self, href: str) -> None:
        parent = self.parent
        if isinstance(parent, MarkdownBlock):
            await parent.action_link(href)
