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

Streaming appends update the last block in place (:meth:`ChatMarkdown.append`):
Textual's ``Markdown.append`` builds a new widget for the block being written on
every append, copies its text into the old one and drops it; each dropped widget
is a few hundred objects the garbage collector has to find, which made a long
reply's memory grow with every character.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator

from markdown_it import MarkdownIt
from markdown_it.token import Token
from textual.app import ComposeResult
from textual.await_complete import AwaitComplete
from textual.containers import Vertical
from textual.message import Message
from textual.widget import Widget
from textual.widgets import Markdown
from textual.widgets._markdown import (
    MarkdownBlock,
    MarkdownBullet,
    MarkdownBulletList,
    MarkdownFence,
    MarkdownListItem,
    MarkdownOrderedList,
    MarkdownOrderedListItem,
    MarkdownParagraph,
)

from shell.frontend.markdown import markdown_parser

from .. import unlink
from ..linkopen import open_link
from .arrange_once import ArrangedOnce
from .list_lines import Item, ListLines

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
    """An item's blocks: the one block itself, or a column when there are several.
    The item is not mounted (its blocks are): its cycles are cut so that it is
    freed when dropped, not at the next full collection (see ``unlink``)."""
    blocks, item._blocks = item._blocks, []
    unlink.discard(item)
    if len(blocks) == 1:
        return blocks[0]
    return Vertical(*blocks)


def _flat_items(blocks: list[MarkdownBlock], symbols: list[str]) -> list[Item] | None:
    """The items as ``ListLines`` draws them, if each is one paragraph (else None)."""
    items = [b for b in blocks if isinstance(b, MarkdownListItem)]
    if not all(len(item._blocks) == 1 and type(item._blocks[0]) is MarkdownParagraph for item in items):
        return None
    return [(symbol, item._blocks[0]._content) for symbol, item in zip(symbols, items, strict=True)]


def _lean_compose(block: LeanBulletList | LeanOrderedList, symbols: list[str]) -> ComposeResult:
    """A list's widgets: one ``ListLines`` for items of one paragraph each (see
    ``list_lines``: most lists, and the long ones a model dumps), else the grid."""
    items = [b for b in block._blocks if isinstance(b, MarkdownListItem)]
    flat, block.flat = block.flat or _flat_items(block._blocks, symbols), None
    if flat is not None:
        for item in items:
            _item_body(item)
        block.add_class("-flat")
        yield ListLines(flat)
    else:
        for symbol, item in zip(symbols, items, strict=True):
            bullet = MarkdownBullet()
            bullet.symbol = symbol
            yield bullet
            yield _item_body(item)
    block._blocks.clear()


class LeanBulletList(MarkdownBulletList):
    """A bullet list as one ``ListLines``, or one two-column grid."""

    DEFAULT_CSS = f"LeanBulletList {{ {LIST_GRID_CSS} }} LeanBulletList.-flat {{ layout: vertical; }}"
    flat: list[Item] | None = None
    """Its items, when built straight from their tokens (see ``ChatMarkdown._parse_markdown``)."""

    def compose(self) -> ComposeResult:
        symbols = [b.bullet for b in self._blocks if isinstance(b, MarkdownListItem)]
        yield from _lean_compose(self, symbols)


class LeanOrderedList(MarkdownOrderedList):
    """A numbered list as one ``ListLines``, or one two-column grid (numbers right-aligned)."""

    DEFAULT_CSS = f"LeanOrderedList {{ {LIST_GRID_CSS} }} LeanOrderedList.-flat {{ layout: vertical; }}"
    flat: list[Item] | None = None
    """Its items, when built straight from their tokens (see ``ChatMarkdown._parse_markdown``)."""

    def compose(self) -> ComposeResult:
        start = 1
        if self._blocks and isinstance(self._blocks[0], MarkdownOrderedListItem):
            try:
                start = int(self._blocks[0].bullet)
            except ValueError:
                pass
        count = sum(isinstance(b, MarkdownListItem) for b in self._blocks)
        yield from _lean_compose(self, _numbers(start, count))


def _numbers(start: int, count: int) -> list[str]:
    """An ordered list's bullets: ``N. `` right-aligned to the widest, one space before."""
    suffix = ". "
    numbers = range(start, start + count)
    width = max((len(f"{n}{suffix}") for n in numbers), default=0)
    return [f"{n}{suffix}".rjust(width + 1) for n in numbers]


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


LINKS_SAMPLE = "see https://example.com/a?b=1#c, //example.org and mailto:a@example.com"
"""Text with each kind of link linkify validates (each has its own expression)."""


def warm_links() -> None:
    """Compile linkify's regular expressions before the first reply needs them (for
    a thread once the shell is ready): they are compiled at their first use, about
    10 ms of the loop in the middle of the first reply with a link in it. The work
    lands in :mod:`re`'s cache, keyed by the pattern, so the shared parser finds it
    there. A parser of its own, not the shared one: linkify keeps each call's match
    on the instance, and a reply may be parsing on the loop at the same time."""
    shared_parser()  # built here rather than at the first reply's first append
    markdown_parser.__wrapped__("gfm-like").parse(LINKS_SAMPLE)


class ChatMarkdown(Markdown, ArrangedOnce):
    """The Markdown document of an assistant reply."""

    BLANK = True
    """Nothing of its own to draw (its blocks cover it): see ``AssistantMessage.BLANK``."""

    DEFAULT_CSS = "ChatMarkdown MarkdownTable { width: auto; max-width: 100%; }"
    """A table as wide as its cells (up to the reply's width, where long cells wrap):
    Textual's default stretched a 2x2 table of one-letter cells over the whole screen.
    (The table's grid stays ``1fr``: an ``auto`` grid collapses to no width.)"""

    def __init__(self, markdown: str | None = None, *, after: str | None = None) -> None:
        """``after``: the source of the reply's document before this one (None for the
        reply's first): at the cut, the blank lines are then what the reply shown
        whole has (see :meth:`mark_end`)."""
        super().__init__(markdown, parser_factory=shared_parser)
        self.seam = None if after is None else "inside" if ends_inside_block(after) else "between"
        """How this document continues the reply: None (it is its start), "between"
        blocks (the cut was at a blank line) or "inside" a block (a cut of a block too
        long to wait for its end, see ``mdsplit``)."""
        self._end: MarkdownBlock | None = None
        self._first: MarkdownBlock | None = None
        self._final: MarkdownBlock | None = None

    def post_message(self, message: Message) -> bool:
        """Everything but a table of contents: a reply has no use for one, and each
        of these messages (posted at every update, bubbling to the reply) held its
        document alive in a queue that, while a long reply streamed, was not read
        until the reply ended: every parked chunk stayed in memory until then."""
        if isinstance(message, Markdown.TableOfContentsUpdated):
            return False
        return super().post_message(message)

    def mark_end(self) -> None:
        """Fit the margins of the first and the last block to where the document stands.
        The reply's last block (class ``-end``, when this is its parent's last child) has
        no bottom margin: no blank line under the reply. At a cut, the blank lines are
        those of the reply shown whole: Textual collapses the margins of neighbouring
        blocks within a document (a paragraph's bottom 1 and a heading's top 2 make 2
        blank lines) but adds them up across documents (3 blank lines at a cut before a
        heading, 2 before a code fence, where one document shows 2 and 1); so a first
        block that continues the reply keeps only what its top margin has beyond the
        one line of the block before it, and a block cut inside (a long list: items
        with no blank line between them) has no margin on either side of the cut.
        Set on two blocks, moved as blocks come: a ``:last-child`` rule made Textual
        restyle every block of the document at each mount. ``-end`` is a marker no CSS
        rule reads (the margins are set inline), so moving it restyles nothing: with
        Textual's restyle, the block and all its descendants (a list's items, their
        inline styles' virtual nodes) were matched against the stylesheet again at every
        cut, 15 % of a flood's CPU (issue 21, round 13)."""
        parent = self.parent
        last = parent is not None and parent.children[-1] is self
        blocks = self.children
        first = blocks[0] if blocks and isinstance(blocks[0], MarkdownBlock) else None
        final = blocks[-1] if blocks and isinstance(blocks[-1], MarkdownBlock) else None
        end = final if last else None
        if (first, final, end) == (self._first, self._final, self._end):
            return
        if self._end is not None:
            self._end.remove_class("-end", update=False)
        if end is not None:
            end.add_class("-end", update=False)
        changed = {self._first, self._final, first, final}
        self._first, self._final, self._end = first, final, end
        for block in changed:
            if block is not None:
                self._fit_margin(block)

    def _fit_margin(self, block: MarkdownBlock) -> None:
        """The block's margins as :meth:`mark_end` says, set inline over the stylesheet's
        (a CSS rule of ``margin-bottom`` alone sets all four sides, the others to 0: it
        took a heading's top margin away while the heading was the reply's last block)."""
        base = block.styles.base.margin
        top, bottom = base.top, base.bottom
        if block is self._first and self.seam is not None:
            top = 0 if self.seam == "inside" else max(0, top - 1)
        if block is self._end or (block is self._final and ends_inside_block(self.source)):
            bottom = 0
        if (top, bottom) == (base.top, base.bottom):
            if block.styles.inline.clear_rule("margin"):
                block.refresh(layout=True)
        else:
            block.styles.margin = (top, base.right, bottom, base.left)

    def has_end_block(self) -> bool:
        """Whether a block here still has the reply's end style (no bottom margin)."""
        return self._end is not None

    def update(self, markdown: str) -> AwaitComplete:
        updating = super().update(markdown)

        async def then_mark() -> None:
            await updating
            self.mark_end()

        return AwaitComplete(then_mark())

    def on_markdown_link_clicked(self, event: Markdown.LinkClicked) -> None:
        event.prevent_default()
        if self._open_links:
            open_link(self, event.href)

    BLOCKS: dict[str, type[MarkdownBlock]] = {
        **Markdown.BLOCKS,
        "bullet_list_open": LeanBulletList,
        "ordered_list_open": LeanOrderedList,
    }

    def _parse_markdown(self, tokens: Iterable[Token]) -> Iterable[MarkdownBlock]:
        """Textual's blocks, but a top-level list of one-paragraph items is built from
        its tokens with no widget per item: Textual builds two (the item and its
        paragraph) only for their text, and a model's list of thousands of items
        spent most of its time building and dropping them (findings I6)."""
        plain: list[Token] = []
        for group in _top_level(list(tokens)):
            block = self._flat_list(group)
            if block is None:
                plain += group
                continue
            if plain:
                yield from super()._parse_markdown(plain)
                plain = []
            yield block
        if plain:
            yield from super()._parse_markdown(plain)

    def _flat_list(self, group: list[Token]) -> MarkdownBlock | None:
        """The list block of ``group``, its items ready for ``ListLines`` (None if
        ``group`` is no list of one-paragraph items)."""
        first = group[0]
        if first.type not in ("bullet_list_open", "ordered_list_open") or first.level != 0:
            return None
        items = list(_top_level(group[1:-1]))
        if any(tuple(token.type for token in item) != _ITEM_SHAPE for item in items) or not items:
            return None
        block = self.get_block_class(first.type)(self, first)
        if not isinstance(block, (LeanBulletList, LeanOrderedList)):
            return None
        symbols = _bullet_symbols(self, first, items)
        block.flat = [(symbol, block._token_to_content(item[2]))
                      for symbol, item in zip(symbols, items, strict=True)]
        return block

    def append(self, markdown: str) -> AwaitComplete:
        """Append to the document, updating the block being written in place.

        As Textual's ``append``: the source from the last top-level block on is parsed
        again; its first block is the last one shown, the rest are new. A paragraph,
        a heading or a code fence that is still the same kind of block takes the new
        text where it stands, with no new widget; anything else (a list, a quote, a
        table) is built anew and replaces it, as Textual does."""
        self._markdown = self.source + markdown
        updated_source = "".join(self._markdown.splitlines(keepends=True)[self._last_parsed_line :])

        async def await_append() -> None:
            async with self.lock:
                if not self.is_attached:  # parked (removed) while this waited: its source is kept
                    return
                tokens = shared_parser().parse(updated_source)
                start_line = self._last_parsed_line
                for token in reversed(tokens):
                    if token.map is not None and token.level == 0:
                        self._last_parsed_line += token.map[0]
                        break
                groups = list(_top_level(tokens))
                last = self.children[-1] if self.children else None
                if isinstance(last, MarkdownBlock) and groups and await _update_in_place(last, groups[0]):
                    last.source_range = _shifted(groups[0], start_line)
                    groups = groups[1:]
                    last = None
                new_blocks = [block for group in groups for block in self._parse_markdown(group)]
                for block in new_blocks:
                    start, end = block.source_range
                    block.source_range = (start + start_line, end + start_line)
                with self.app.batch_update():
                    if isinstance(last, MarkdownBlock) and new_blocks:
                        last.source_range = new_blocks[0].source_range
                        try:
                            await last._update_from_block(new_blocks[0])
                        except IndexError:
                            pass
                        else:
                            if new_blocks[0].parent is None:  # built for its content only
                                unlink.discard(new_blocks[0])
                            new_blocks = new_blocks[1:]
                    if new_blocks:
                        await self.mount_all(new_blocks)
                self.mark_end()

        return AwaitComplete(await_append())


def chained(sources: list[str], after: str | None) -> list[ChatMarkdown]:
    """Documents for ``sources``, in a row: each continues the one before it, the first
    continues ``after`` (None: it starts the reply)."""
    documents = []
    for source in sources:
        documents.append(ChatMarkdown(source, after=after))
        after = source
    return documents


def ends_inside_block(source: str) -> bool:
    """Whether a document cut here ends inside a block: a reply is cut at a blank line
    (the next document starts a block) but for a block too long to wait for its end."""
    lines = source.splitlines()
    return bool(lines) and bool(lines[-1].strip())


def _top_level(tokens: list[Token]) -> Iterator[list[Token]]:
    """The tokens of each top-level block, in order."""
    depth = 0
    group: list[Token] = []
    for token in tokens:
        group.append(token)
        depth += token.nesting
        if depth == 0:
            yield group
            group = []
    if group:
        yield group


def _shifted(group: list[Token], start_line: int) -> tuple[int, int]:
    lines = group[0].map or (0, 0)
    return (lines[0] + start_line, lines[1] + start_line)


async def _update_in_place(block: MarkdownBlock, group: list[Token]) -> bool:
    """Give ``block`` the content of the top-level block ``group`` if it is the same
    kind of block (no widget is built, but a list's new items); False if it is not."""
    first = group[0]
    document = block._markdown
    if len(group) == 3 and group[1].type == "inline":
        if first.type == "paragraph_open":
            kind = document.get_block_class("paragraph_open")
        elif first.type == "heading_open":
            kind = document.get_block_class(first.tag)
        else:
            return False
        if type(block) is not kind:
            return False
        block._token = first
        _set_inline(block, group[1])
        return True
    fence = first.type in ("fence", "code_block")
    if len(group) == 1 and fence and type(block) is document.get_block_class(first.type):
        assert isinstance(block, MarkdownFence)
        code = first.content.rstrip()
        if code != block.code or first.info != block.lexer:
            block.code, block.lexer = code, first.info
            block._highlighted_code = block.highlight(
                code, first.info, ansi=block.app.native_ansi_color, dark=block.app.current_theme.dark
            )
            block.set_content(block._highlighted_code)
        block._token = first
        return True
    if first.type in ("bullet_list_open", "ordered_list_open"):
        return await _update_list(block, group)
    return False


def _set_inline(block: MarkdownBlock, inline: Token) -> None:
    """The block's text from ``inline``, rendered again only if it changed."""
    if block._inline_token is None or block._inline_token.content != inline.content:
        block.build_from_token(inline)


async def _update_list(block: MarkdownBlock, group: list[Token]) -> bool:
    """A lean list whose items are one paragraph each (nearly every list a model
    streams): the items shown take their new text, new items are added at the
    end. Anything else (nested lists, items of several blocks, an item gone) is
    left to a rebuild. A list was rebuilt whole on every frame before: its widgets
    were most of the garbage a streamed reply left."""
    first = group[0]
    document = block._markdown
    if type(block) is not document.get_block_class(first.type):
        return False
    items = list(_top_level(group[1:-1]))
    if any(tuple(token.type for token in item) != _ITEM_SHAPE for item in items):
        return False
    children = list(block.children)
    if len(children) == 1 and isinstance(children[0], ListLines):
        if document.get_block_class("paragraph_open") is not MarkdownParagraph:
            return False
        symbols = _bullet_symbols(document, first, items)
        children[0].set_items([
            (symbol, block._token_to_content(item[2])) for symbol, item in zip(symbols, items, strict=True)
        ])
        block._token = first
        return True
    bullets, bodies = children[0::2], children[1::2]
    if len(bullets) != len(bodies) or len(items) < len(bodies) or not all(
        isinstance(b, MarkdownBullet) for b in bullets
    ) or not all(type(b) is document.get_block_class("paragraph_open") for b in bodies):
        return False
    symbols = _bullet_symbols(document, first, items)
    new: list[Widget] = []
    for index, (item, symbol) in enumerate(zip(items, symbols, strict=True)):
        if index < len(bodies):
            bullet, body = bullets[index], bodies[index]
            assert isinstance(bullet, MarkdownBullet) and isinstance(body, MarkdownBlock)
            body._token = item[1]
            _set_inline(body, item[2])
        else:
            bullet = MarkdownBullet()
            body = document.get_block_class("paragraph_open")(document, item[1])
            body.build_from_token(item[2])
            new += [bullet, body]
        if bullet.symbol != symbol:
            bullet.symbol = symbol
    block._token = first
    if new:
        await block.mount_all(new)
    return True


_ITEM_SHAPE = ("list_item_open", "paragraph_open", "inline", "paragraph_close", "list_item_close")
"""The tokens of a list item of one paragraph."""


def _bullet_symbols(document: Markdown, first: Token, items: list[list[Token]]) -> list[str]:
    """Each item's bullet, as :class:`LeanBulletList` and :class:`LeanOrderedList` make them."""
    if first.type == "bullet_list_open":
        return [document.BULLETS[0]] * len(items)
    try:
        start = int(items[0][0].info)
    except ValueError:
        start = 1
    return _numbers(start, len(items))
