"""The reply's Markdown documents: streamed text lands in the block being written
(no new widget per append), drawn exactly as the whole text would be, and only the
reply's very last block drops its bottom margin."""

from __future__ import annotations

from typing import Any

import pytest
from rich.style import Style
from textual.app import App, ComposeResult
from textual.containers import VerticalScroll
from textual.widgets._markdown import MarkdownBlock, MarkdownBullet, MarkdownFence, MarkdownParagraph

from shell.tui.app import AgentShellApp
from shell.tui.widgets import chat_markdown
from shell.tui.widgets.assistant_message import AssistantMessage
from shell.tui.widgets.chat_markdown import ChatMarkdown
from shell.tui.widgets.list_lines import ListLines
from shell.tui.widgets.rendered_chunk import RenderedChunk

from .helpers import SIZE, eventually, make_agent, send, wait_for

pytestmark = pytest.mark.anyio


class Page(App[None]):
    def compose(self) -> ComposeResult:
        yield VerticalScroll(ChatMarkdown(), id="page")


async def test_a_streamed_paragraph_and_fence_are_updated_where_they_stand(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    built: list[MarkdownBlock] = []
    init = MarkdownBlock.__init__

    def counting(self: MarkdownBlock, *args: Any, **kwargs: Any) -> None:
        built.append(self)
        init(self, *args, **kwargs)

    monkeypatch.setattr(MarkdownBlock, "__init__", counting)
    app = Page()
    async with app.run_test(size=SIZE) as pilot:
        document = app.query_one(ChatMarkdown)
        await document.append("The agent **reads")
        (paragraph,) = document.query_children(MarkdownParagraph)
        built.clear()
        await document.append(" files** and")
        assert built == []  # no widget built (and dropped) to carry the new text
        await document.append(" answers.\n\n```python\nx = 1\n")
        first, fence = document.query_children(MarkdownBlock)
        assert first is paragraph  # the same widget, now with all its text
        assert paragraph._content.plain == "The agent reads files and answers."
        assert isinstance(fence, MarkdownFence) and fence.code == "x = 1"
        built.clear()
        await document.append("y = 2\n")
        assert built == []
        await document.append("```\n\nNext.\n")
        blocks = list(document.query_children(MarkdownBlock))
        assert blocks[:2] == [paragraph, fence] and fence.code == "x = 1\ny = 2"
        assert isinstance(blocks[2], MarkdownParagraph) and blocks[2]._content.plain == "Next."
        await pilot.pause()


async def test_only_the_replys_last_block_has_no_bottom_margin() -> None:
    text = "".join(f"Paragraph {i} " + "word " * 30 + "\n\n" for i in range(12))
    agent, _ = make_agent([text], chunk_size=40)
    app = AgentShellApp(agent, model_label="scripted")
    async with app.run_test(size=SIZE) as pilot:
        await send(pilot, "go")
        await wait_for(pilot, lambda: not app.busy)
        message = app.query_one(AssistantMessage)

        def settled() -> None:  # the passes after the reply's end keep chunks as lines
            chunks = message._chunks()
            assert len(chunks) > 1  # the reply was cut into several documents
            live = [chunk for chunk in chunks if isinstance(chunk, ChatMarkdown)]
            ends = [b for chunk in live for b in chunk.query_children(MarkdownBlock) if b.has_class("-end")]
            assert chunks[-1] is live[-1] and ends == [list(live[-1].query_children(MarkdownBlock))[-1]]
            assert ends[0].styles.margin.bottom == 0
            # A chunk before a cut (kept as the lines it rendered to) ends with its last
            # block's margin: a blank line before the next chunk.
            first = chunks[0]
            assert isinstance(first, RenderedChunk) and first.lines[-1].text.strip() == ""
            assert first.lines[-2].text.strip()

        await eventually(pilot, settled)


STREAMED = """# Plan

The agent **reads files**, runs `tools` and answers.

- first item with *emphasis*
- second item
- third item that is long enough to wrap across the width of the page, and then some more words

1. one
2. two
3. three
4. four
5. five
6. six
7. seven
8. eight
9. nine
10. ten

```python
def f(x):
    return x * 2
```

> a quote
> on two lines

| a | b |
|---|---|
| 1 | 2 |

- outer
  - nested
- back

Last paragraph.
"""


def _screen(app: App[None]) -> str:
    return app.export_screenshot()


@pytest.mark.parametrize("piece", [1, 3, 7, 40])
async def test_streamed_in_pieces_it_looks_as_the_whole_text_does(piece: int) -> None:
    """However the text is cut into appends, the document ends up drawn exactly as
    Textual draws the whole text at once (lists updated in place included)."""
    whole = Page()
    async with whole.run_test(size=(70, 80)) as pilot:
        await whole.query_one(ChatMarkdown).update(STREAMED)
        await pilot.pause()
        expected = _screen(whole)
    streamed = Page()
    async with streamed.run_test(size=(70, 80)) as pilot:
        document = streamed.query_one(ChatMarkdown)
        for start in range(0, len(STREAMED), piece):
            await document.append(STREAMED[start : start + piece])
        await pilot.pause()
        assert document.source == STREAMED
        assert _screen(streamed) == expected


async def test_a_streamed_list_keeps_its_widgets_and_grows() -> None:
    app = Page()
    async with app.run_test(size=SIZE) as pilot:
        document = app.query_one(ChatMarkdown)
        await document.append("- one\n- tw")
        (block,) = document.query_children(MarkdownBlock)
        (lines,) = block.children
        await document.append("o\n- three\n")
        await pilot.pause()
        assert list(document.query_children(MarkdownBlock)) == [block]  # the same list
        assert list(block.children) == [lines]  # one widget for all its items, kept
        assert isinstance(lines, ListLines)
        assert [text.plain for _, text in lines.items] == ["one", "two", "three"]


def _look(app: App[None]) -> list[str]:
    """Each cell of the screen, as its character and how it is drawn (colours and text
    style; a space's background only: its colour draws nothing; not the widgets' own
    offsets for selection, which differ by widget)."""
    def cell(char: str, style: Style | None) -> str:
        if style is None:
            return char
        return f" {style.bgcolor}|" if char == " " else f"{char}{style.clear_meta_and_links()}|"

    strips = app.screen._compositor.render_strips()
    return ["".join(cell(char, s.style) for s in strip for char in s.text) for strip in strips]


LONG_LIST = "".join(
    f"{n}. item {n} with **bold** and `code` and words to wrap " * (1 + n % 3) + "\n" for n in range(1, 40)
) + "\nAnd:\n\n" + "".join(f"- point {n} " + "more words " * (n % 9) + "\n" for n in range(60))


async def test_a_list_of_one_paragraph_items_is_one_widget_drawn_as_the_grid_draws_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A long list (of one-paragraph items: what models send) is one widget however many
    items it has, not two per item (a 20 000-item list froze the screen, findings I6),
    and it looks as the two-column grid did: bullets in a column, numbers right-aligned,
    wrapped lines under the item's text, emphasis and code styled."""
    app = Page()
    async with app.run_test(size=(60, 200)) as pilot:
        await app.query_one(ChatMarkdown).update(LONG_LIST)
        await pilot.pause()
        flat = _look(app)
        assert len(app.query(ListLines)) == 2 and not app.query(MarkdownBullet)
    with monkeypatch.context() as patch:  # the grid: one widget per bullet and per item
        patch.setattr(chat_markdown, "_flat_items", lambda blocks, symbols: None)
        patch.setattr(ChatMarkdown, "_flat_list", lambda self, group: None)
        app = Page()
        async with app.run_test(size=(60, 200)) as pilot:
            await app.query_one(ChatMarkdown).update(LONG_LIST)
            await pilot.pause()
            assert not app.query(ListLines) and len(app.query(MarkdownBullet)) == 99
            grid = _look(app)
    assert grid == flat


def test_warming_links_in_a_thread_leaves_the_shared_parser_to_the_loop() -> None:
    """The warm-up thread compiles linkify's expressions with a parser of its own:
    the shared one (which a reply may be using at that moment) is not touched, and
    finds links as before."""
    import threading

    from shell.tui.widgets.chat_markdown import shared_parser, warm_links

    parser = shared_parser()
    assert parser.linkify is not None
    touched: list[str] = []
    test = parser.linkify.test
    parser.linkify.test = lambda text: touched.append(text) or test(text)  # type: ignore[method-assign]
    try:
        worker = threading.Thread(target=warm_links)
        worker.start()
        worker.join(30)
        assert not worker.is_alive() and touched == []
    finally:
        del parser.linkify.test
    tokens = parser.parseInline("see https://example.com/x and README.md")[0].children or []
    assert [t.attrs.get("href") for t in tokens if t.type == "link_open"] == ["https://example.com/x"]


async def test_a_table_is_as_wide_as_its_cells_up_to_the_width() -> None:
    """A 2x2 table of one-letter cells is a few columns wide, not the whole screen;
    a table with a long cell stays within the width (the cell wraps)."""
    from textual.widgets._markdown import MarkdownTable, MarkdownTableCellContents

    long = "many words " * 40
    app = Page()
    async with app.run_test(size=(200, 40)) as pilot:
        await app.query_one(ChatMarkdown).update(
            f"| a | b |\n|---|---|\n| 1 | 2 |\n\n| n | d |\n|---|---|\n| x | {long} |\n"
        )
        await pilot.pause()
        small, wide = app.query(MarkdownTable)
        right = max(cell.region.right for cell in small.query(MarkdownTableCellContents))
        assert right - small.region.x <= 12  # the keylines are drawn around the cells
        page = app.query_one("#page")
        cells = list(wide.query(MarkdownTableCellContents))
        assert max(cell.region.right for cell in cells) <= page.region.right
        assert max(cell.region.width for cell in cells) > 100 and cells[-1].region.height > 2


async def test_a_list_drawn_as_one_widget_follows_the_theme_and_wraps_anew_on_resize() -> None:
    """Its lines are kept as drawn: a new theme draws them in the new colours, a new width
    wraps the items again (under their text, not under the bullet)."""
    app = Page()
    async with app.run_test(size=(40, 20)) as pilot:
        await app.query_one(ChatMarkdown).update("- one two three four five six seven eight nine ten\n- b\n")
        await pilot.pause()
        lines = app.query_one(ListLines)

        def colours() -> list[str]:
            return [str(s.style.color) for s in lines.render_line(0) if s.style and s.text.strip()]

        dark = colours()
        app.theme = "textual-light" if app.current_theme.dark else "textual-dark"
        await pilot.pause()
        await pilot.pause()
        assert colours() != dark and len(set(colours())) == 2  # the bullet's and the text's
        await pilot.resize_terminal(25, 20)
        await pilot.pause()
        await pilot.pause()
        shown = [lines.render_line(y).text.rstrip() for y in range(lines.size.height)]
        assert shown == ["• one two three four", "  five six seven", "  eight nine ten", "• b"]


def test_the_warm_up_leaves_a_first_code_fence_nothing_to_compile() -> None:
    """A reply's first fence of a common language finds its lexer made by the shell's
    warm-up (a thread once the shell is ready), not compiled on the loop mid-frame
    (~22 ms for Python). A fresh interpreter: this one may have made them already."""
    import subprocess
    import sys

    code = """
import threading
from pygments.lexer import RegexLexerMeta
from textual.highlight import highlight
from shell.tui.highlight import warm_lexers

worker = threading.Thread(target=warm_lexers)
worker.start()
worker.join(60)
compiled = []
original = RegexLexerMeta.process_tokendef
def counting(cls, *args, **kwargs):
    compiled.append(cls.__name__)
    return original(cls, *args, **kwargs)
RegexLexerMeta.process_tokendef = counting
for language in ("python", "py", "bash", "sh", "json", "js", "ts", "diff", "rust", "go", "yaml"):
    highlight("x = 1\\n", language=language)
print(compiled)
"""
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120,
                          check=True)
    assert done.stdout.strip() == "[]", done.stdout + done.stderr
