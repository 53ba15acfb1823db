"""Finished chunks of a reply are kept as the lines they rendered to (one widget each
instead of a tree of Markdown blocks): the screen looks exactly the same, links
still open (saying where), text can still be selected, and a new width or theme
renders them again."""

from __future__ import annotations

import pytest
from textual.app import App
from textual.geometry import Offset, Region
from textual.selection import Selection
from textual.strip import Strip
from textual.widget import Widget
from textual.widgets._markdown import MarkdownBlock

from shell.tui.app import AgentShellApp
from shell.tui.widgets import assistant_message as am
from shell.tui.widgets.assistant_message import AssistantMessage
from shell.tui.widgets.chat_markdown import ChatMarkdown
from shell.tui.widgets.conversation import Conversation
from shell.tui.widgets.rendered_chunk import RenderedChunk

from .helpers import SIZE, ConversationPage, make_agent, send, wait_for

pytestmark = pytest.mark.anyio

FIRST = """# Plan

The agent **reads files**, runs `tools` and answers; see [the docs](https://evil.example/x).

- first item with *emphasis*
- second item that is long enough to wrap across the width of the page, and then some more words

1. one
2. two

| tool | use |
|------|-----|
| read | files |

```python
def f(x):
    return x * 2  # doubled
```

Then a longer paragraph, so that this first part is past the size at which a reply is
cut into documents: it goes on about files and tools and answers for a while longer.

> a quote to end the first part, with a few more words so that it is long enough.
"""
REPLY = FIRST + "\nSecond part: a paragraph after the cut.\n"


@pytest.fixture(autouse=True)
def _cut_in_two(monkeypatch: pytest.MonkeyPatch) -> None:
    """REPLY is cut into two documents: FIRST, and the paragraph after it."""
    monkeypatch.setattr(am, "CHUNK_LIMIT", 600)
    monkeypatch.setattr(am, "SHOWN_LIMIT", 600)


def _looks(strips: list[Strip]) -> list[list[tuple[str, str]]]:
    """What the user sees of each line: each character and its style (colours,
    attributes, link; not the metadata behind clicks and selection)."""
    return [[(char, str(segment.style)) for segment in strip for char in segment.text] for strip in strips]


async def _shown(app: App[None]) -> list[Strip]:
    return app.screen._compositor.render_strips()


async def _message(pilot: object, app: App[None]) -> AssistantMessage:
    message = AssistantMessage(REPLY)
    await app.query_one(Conversation).mount(message)
    await pilot.pause()  # type: ignore[attr-defined]
    await pilot.pause()  # type: ignore[attr-defined]
    return message


async def _kept_first_chunk(pilot: object, app: App[None]) -> RenderedChunk:
    """A reply's first chunk once it is kept as lines (the swap made now, not after
    the settling pause a test sets long)."""
    message = await _message(pilot, app)
    await message._render_finished()
    await pilot.pause()  # type: ignore[attr-defined]
    first = message._chunks()[0]
    assert isinstance(first, RenderedChunk)
    return first


def _cell_of(chunk: RenderedChunk, words: str) -> tuple[int, int]:
    """The row and column where ``words`` begin in a kept chunk's lines."""
    row = next(y for y, line in enumerate(chunk.lines) if words in line.text)
    return row, chunk.lines[row].text.index(words)


async def test_a_finished_chunk_kept_as_lines_looks_exactly_the_same(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(am, "SETTLE_S", 60.0)  # no parking pass: the test makes the swap
    app = ConversationPage()
    async with app.run_test(size=SIZE) as pilot:
        message = await _message(pilot, app)
        chunks = message._chunks()
        assert len(chunks) == 2 and all(isinstance(c, ChatMarkdown) for c in chunks)
        before = _looks(await _shown(app))
        await message._render_finished()
        await pilot.pause()
        first, last = message._chunks()
        assert isinstance(first, RenderedChunk) and first.source == FIRST + "\n"
        assert isinstance(last, ChatMarkdown)  # the reply's last chunk stays live
        assert not first.query(MarkdownBlock)  # one widget, no block tree
        assert _looks(await _shown(app)) == before


async def test_a_link_in_a_kept_chunk_opens_saying_where(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(am, "SETTLE_S", 60.0)
    app = ConversationPage()
    opened: list[str] = []
    monkeypatch.setattr("shell.tui.linkopen.open_in_browser", lambda url: opened.append(url))
    async with app.run_test(size=SIZE) as pilot:
        first = await _kept_first_chunk(pilot, app)
        row, column = _cell_of(first, "the docs")
        await pilot.click(offset=(first.region.x + column + 2, first.region.y + row))
        await wait_for(pilot, lambda: bool(opened))
        said = [str(n.message) for n in app._notifications]
    assert opened == ["https://evil.example/x"]
    assert "Opening the link's target: https://evil.example/x" in said


async def test_text_in_a_kept_chunk_can_be_selected(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(am, "SETTLE_S", 60.0)
    app = ConversationPage()
    async with app.run_test(size=SIZE) as pilot:
        first = await _kept_first_chunk(pilot, app)
        row, column = _cell_of(first, "reads files")
        # The screen maps a cell to a place in the widget's text through the lines' offsets.
        widget, offset = app.screen._compositor.get_widget_and_offset_at(
            first.region.x + column, first.region.y + row
        )
        assert widget is first and offset == Offset(column, row)
        text = first.get_selection(Selection(Offset(column, row), Offset(column + len("reads files"), row)))
        assert text == ("reads files", "\n")


async def test_a_kept_chunk_hands_out_the_lines_textuals_styles_cache_would(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Its lines skip Textual's styles cache (the cost of every line of a chunk that
    grows, each frame): what the screen gets must be what that cache would give, as
    drawn, with a link under the mouse, with a selection, and cut to a part of a row."""
    monkeypatch.setattr(am, "SETTLE_S", 60.0)
    app = ConversationPage()
    async with app.run_test(size=SIZE) as pilot:
        first = await _kept_first_chunk(pilot, app)

        def same(crop: Region) -> None:
            first._styles_cache.clear()
            assert _looks(first.render_lines(crop)) == _looks(Widget.render_lines(first, crop))

        whole = first.size.region
        same(whole)
        plain = _looks(first.render_lines(whole))
        same(Region(3, 2, 20, 4))
        row, column = _cell_of(first, "the docs")
        await pilot.hover(offset=(first.region.x + column + 2, first.region.y + row))
        await wait_for(pilot, lambda: bool(first.hover_style._link_id))
        same(whole)
        hovered = _looks(first.render_lines(whole))
        assert hovered != plain  # the link under the mouse is drawn in its hover style
        app.screen.selections = {first: Selection(Offset(column, row - 1), Offset(column + 8, row + 1))}
        await pilot.pause()
        same(whole)
        assert _looks(first.render_lines(whole)) != hovered  # and the selection over it


async def test_a_kept_chunk_removed_since_the_layout_can_still_be_drawn(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A split frame renders a turn after its layout: a chunk parked (or joined to the
    one before) in between is still in the compositor's map and drawn once more. It
    has no screen then; asking it for the selection ended the app (NoScreen), seen in
    a real terminal under a flood."""
    monkeypatch.setattr(am, "SETTLE_S", 60.0)
    app = ConversationPage()
    async with app.run_test(size=SIZE) as pilot:
        first = await _kept_first_chunk(pilot, app)
        crop = first.size.region
        app.screen.selections = {first: Selection(Offset(0, 0), Offset(10, 2))}
        await first.remove()
        assert not first.is_attached
        assert len(first.render_lines(crop)) == crop.height  # (blank, as Textual draws a removed widget)


def _laid_out_lines(message: AssistantMessage) -> bool:
    chunk = message._chunks()[0]
    return isinstance(chunk, RenderedChunk) and chunk.size.width > 0


async def test_a_new_width_renders_kept_chunks_again() -> None:
    app = ConversationPage()
    async with app.run_test(size=SIZE) as pilot:
        message = await _message(pilot, app)
        await wait_for(pilot, lambda: _laid_out_lines(message), timeout=15)
        first = message._chunks()[0]
        assert isinstance(first, RenderedChunk) and first.rendered_width == first.size.width
        await pilot.resize_terminal(SIZE[0] - 30, SIZE[1])

        def rendered_anew() -> bool:
            chunk = message._chunks()[0]
            if not isinstance(chunk, RenderedChunk) or chunk is first:
                return False
            return chunk.rendered_width == chunk.size.width > 0

        await wait_for(pilot, rendered_anew, timeout=15)
        again = message._chunks()[0]
        assert isinstance(again, RenderedChunk) and again.rendered_width < first.rendered_width
        assert len(again.lines) > len(first.lines)  # narrower: the same text wraps onto more lines


async def test_a_new_theme_renders_kept_chunks_again() -> None:
    app = ConversationPage()
    app.theme = "textual-dark"
    async with app.run_test(size=SIZE) as pilot:
        message = await _message(pilot, app)
        await wait_for(pilot, lambda: _laid_out_lines(message), timeout=15)
        first = message._chunks()[0]
        assert isinstance(first, RenderedChunk)
        dark = _looks(first.lines)
        app.theme = "textual-light"

        def rendered_anew() -> bool:
            chunk = message._chunks()[0]
            return isinstance(chunk, RenderedChunk) and chunk is not first

        await wait_for(pilot, rendered_anew, timeout=15)
        again = message._chunks()[0]
        assert isinstance(again, RenderedChunk)
        assert [char for line in _looks(again.lines) for char, _ in line] == [
            char for line in dark for char, _ in line
        ]
        assert _looks(again.lines) != dark  # same text, the light theme's colours
        await pilot.pause()
        region = again.region
        shown = (await _shown(app))[region.y : region.bottom]
        on_screen = [line.crop(region.x, region.right) for line in shown]
        assert _looks(on_screen) == _looks(again.lines)[: len(shown)]


async def test_a_long_streamed_reply_keeps_only_its_last_chunk_as_markdown_widgets() -> None:
    text = "".join(f"## Part {i}\n\nParagraph {i} " + "word " * 40 + "\n\n- a\n- b\n\n" for i in range(30))
    agent, _ = make_agent([text], chunk_size=200)
    app = AgentShellApp(agent, model_label="scripted")
    async with app.run_test(size=SIZE) as pilot:
        await send(pilot, "long")
        await wait_for(pilot, lambda: not app.busy, timeout=30)
        message = app.query_one(AssistantMessage)

        def settled() -> bool:
            return all(isinstance(c, RenderedChunk) for c in message._chunks()[:-1])

        await wait_for(pilot, settled)
        assert message.text == text
        live = message.query_children(ChatMarkdown)
        assert len(live) == 1 and live.first() is message._chunks()[-1]


async def test_a_removed_reply_is_not_kept_by_the_theme_signal() -> None:
    app = ConversationPage()
    async with app.run_test(size=SIZE) as pilot:
        message = await _message(pilot, app)
        assert message in app.theme_changed_signal._subscriptions
        await message.remove()
        await pilot.pause()
        assert message not in app.theme_changed_signal._subscriptions
