"""A reply's documents are arranged once per change, not once to measure them and once
more to place them (issue 21: the live document's blocks were measured twice in every
streaming frame), and a container whose children follow its height is arranged as
Textual does."""

from __future__ import annotations

from typing import Any

import pytest
from textual.app import App, ComposeResult
from textual.containers import VerticalScroll
from textual.geometry import Size
from textual.layouts.vertical import VerticalLayout
from textual.widget import Widget
from textual.widgets import Static

from shell.tui.widgets.arrange_once import ArrangedOnce
from shell.tui.widgets.chat_markdown import ChatMarkdown

pytestmark = pytest.mark.anyio

TEXT = "# Title\n\nA paragraph that wraps over a few lines of the page.\n\n- one\n- two\n\n```\ncode\n```\n"


class Page(App[None]):
    def compose(self) -> ComposeResult:
        yield VerticalScroll(ChatMarkdown(TEXT), id="page")


class Column(ArrangedOnce):
    DEFAULT_CSS = "Column { layout: vertical; height: auto; }"


async def test_a_frame_arranges_a_changed_document_once(monkeypatch: pytest.MonkeyPatch) -> None:
    arranged: list[Size] = []
    arrange = VerticalLayout.arrange

    def counting(self: VerticalLayout, parent: Widget, *args: Any, **kwargs: Any) -> Any:
        if isinstance(parent, ChatMarkdown):
            arranged.append(args[1] if len(args) > 1 else kwargs["size"])
        return arrange(self, parent, *args, **kwargs)

    monkeypatch.setattr(VerticalLayout, "arrange", counting)
    app = Page()
    async with app.run_test(size=(60, 30)) as pilot:
        document = app.query_one(ChatMarkdown)
        await pilot.pause()
        before = document.region.height
        arranged.clear()
        await document.append("\n\nOne more paragraph at the end.\n")
        await pilot.pause()
        await pilot.pause()
        assert document.region.height > before  # the new block is laid out and shown
        # measured (at height 0), then placed at that height from the same arrangement
        assert arranged and all(size.height == 0 for size in arranged), arranged
        placed = document.arrange(document.content_region.size)
        assert placed is document.arrange(Size(document.content_region.width, 0))


async def test_children_that_follow_the_height_are_arranged_at_each_height() -> None:
    app = App[None]()
    async with app.run_test(size=(40, 20)) as pilot:
        column = Column(Static("fixed"), Static("grows", id="grows"))
        await app.mount(column)
        await pilot.pause()
        column.query_one("#grows").styles.height = "1fr"
        short = column.arrange(Size(40, 4)).placements
        tall = column.arrange(Size(40, 10)).placements
        assert [p.region.height for p in short] == [1, 3]
        assert [p.region.height for p in tall] == [1, 9]
