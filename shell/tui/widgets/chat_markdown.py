"""Textual's ``Markdown`` with lists that cost half the widgets.

Why: while a reply streams, every frame makes Textual lay out every mounted
widget again, so a frame's cost follows the widget count. Textual's lists build
four widgets per item (a ``Horizontal`` holding the bullet and a ``Vertical``
holding the item's blocks), and the lists language models love made up about
four fifths of a streamed reply's widgets. Here a list is one grid of two
columns, the bullets and the items: a one-paragraph item (nearly all of them)
is two widgets, the bullet and its paragraph. It looks the same: the bullet
column is as wide as the widest bullet, and wrapped lines hang under the text.
All documents share one parser (:func:`shared_parser`): raw HTML is text, links
show their targets, only URLs with a scheme are linked. A click on a link says
which address it opens.
"""

from __future__ import annotations

from markdown_it import MarkdownIt
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.widget import Widget
from textual.widgets import Markdown
from textual.widgets._markdown import (
    MarkdownBlock,
    MarkdownBullet,
    MarkdownBulletList,
    MarkdownListItem,
    MarkdownOrderedList,
    MarkdownOrderedListItem,
)

from shell.core.textsafety import sanitize_line
from shell.frontend.markdown import markdown_parser

LIST_GRID_CSS = """
    layout: grid;
    grid-size: 2;
    grid-columns: auto 1fr;
    grid-rows: auto;
    grid-gutter: 0;
    height: auto;
    & > Vertical { height: auto; width: 1fr; }
"""


def _item_body(item: MarkdownListItem) -> Widget:
    """An item's blocks: the one block itself, or a column when there are several."""
    if len(item._blocks) == 1:
        return item._blocks[0]
    return Vertical(*item._blocks)


class LeanBulletList(MarkdownBulletList):
    """A bullet list as one two-column grid."""

    DEFAULT_CSS = f"LeanBulletList {{ {LIST_GRID_CSS} }}"

    def compose(self) -> ComposeResult:
        for block in self._blocks:
            if isinstance(block, MarkdownListItem):
                bullet = MarkdownBullet()
                bullet.symbol = block.bullet
                yield bullet
                yield _item_body(block)
        self._blocks.clear()


class LeanOrderedList(MarkdownOrderedList):
    """A numbered list as one two-column grid (numbers right-aligned)."""

    DEFAULT_CSS = f"LeanOrderedList {{ {LIST_GRID_CSS} }}"

    def compose(self) -> ComposeResult:
        suffix = ". "
        start = 1
        if self._blocks and isinstance(self._blocks[0], MarkdownOrderedListItem):
            try:
                start = int(self._blocks[0].bullet)
            except ValueError:
                pass
        items = [b for b in self._blocks if isinstance(b, MarkdownListItem)]
        width = max((len(f"{n}{suffix}") for n in range(start, start + len(items))), default=0)
        for number, item in enumerate(items, start):
            bullet = MarkdownBullet()
            bullet.symbol = f"{number}{suffix}".rjust(width + 1)
            yield bullet
            yield _item_body(item)
        self._blocks.clear()


def shared_parser() -> MarkdownIt:
    """One parser for every document: Textual builds a new one on each streamed
    append otherwise (about half a millisecond, sixty times a second).

    It is :func:`shell.frontend.markdown.markdown_parser` on "gfm-like": raw HTML
    is text (``List<String>``, ``<details>``, a traceback's ``<module>`` used to
    vanish), a link whose text is not its target shows the target after it (a
    click opens the target, so the user must see it), and links need their scheme
    (``https://…``): with fuzzy links on, every file name whose extension is also a
    country's domain (``README.md``, ``setup.py``, ``main.rs``) became a link to a
    web site, and a coding agent names files all the time."""
    return markdown_parser("gfm-like")


class ChatMarkdown(Markdown):
    """The Markdown document of an assistant reply."""

    def __init__(self, markdown: str | None = None) -> None:
        super().__init__(markdown, parser_factory=shared_parser)

    def on_markdown_link_clicked(self, event: Markdown.LinkClicked) -> None:
        """Open the link, saying where (the address, not the link's text)."""
        event.prevent_default()
        if self._open_links:
            self.notify(f"Opening {sanitize_line(event.href)}", title="Link")
            self.app.open_url(event.href)

    BLOCKS: dict[str, type[MarkdownBlock]] = {
        **Markdown.BLOCKS,
        "bullet_list_open": LeanBulletList,
        "ordered_list_open": LeanOrderedList,
    }
