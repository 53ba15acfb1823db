"""A reply that arrives faster than it can be drawn (a flood: the backlog is caught up
with many documents a frame) mounts the documents sure to land above the followed view
as a parked spacer at once, instead of laying each out live for one frame only to park
it at the next pass (issue 21: those layouts were the worst stalls of a stream). What
the user sees does not change: the end on screen, every word there when scrolled back."""

from __future__ import annotations

import asyncio

import pytest
from textual.app import App, ComposeResult
from textual.screen import Screen

from shell.tui.screens.split_frame import SplitFrameScreen
from shell.tui.widgets import chat_markdown
from shell.tui.widgets.assistant_message import AssistantMessage
from shell.tui.widgets.conversation import Conversation
from shell.tui.widgets.parked import beyond_the_fold, least_height

from .helpers import frame_drawn, wait_for

pytestmark = pytest.mark.anyio

TEXT = "".join(
    f"## Part {i}\n\nParagraph {i}: the agent reads files, runs tools and answers.\n\n"
    f"- item {i}a\n- item {i}b\n\n"
    for i in range(600)
)


def on_screen(app: App[None]) -> str:
    return "\n".join(strip.text for strip in app.screen._compositor.render_strips())


class Page(App[None]):
    def compose(self) -> ComposeResult:
        yield Conversation()


class SplitPage(Page):
    def get_default_screen(self) -> Screen[None]:
        return SplitFrameScreen()  # the app's: a frame's layout and render in two turns


def test_least_height_wraps_a_paragraph_whole_and_counts_other_blocks_by_line() -> None:
    paragraph = "word " * 30 + "\n" + "word " * 30  # two source lines, one paragraph: 300 characters
    assert least_height(paragraph, 100) == 3
    assert least_height("- a\n- b\n- c\n\n# Title", 100) == 4
    assert least_height("```\nx = 1\ny = 2\n```", 100) == 4
    assert least_height("", 100) == 1


def test_nothing_is_parked_unless_the_view_follows_the_end() -> None:
    sources = ["para " * 200] * 10
    assert beyond_the_fold(sources, "last", None, 80) == ([], sources)


async def test_a_flood_mounts_what_lands_far_above_the_view_parked_and_loses_no_word(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    made: list[str] = []
    original = chat_markdown.ChatMarkdown.__init__

    def counted(self: chat_markdown.ChatMarkdown, source: str = "", **kwargs: object) -> None:
        made.append(source)
        original(self, source, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(chat_markdown.ChatMarkdown, "__init__", counted)
    app = Page()
    async with app.run_test(size=(80, 24)) as pilot:
        conversation = app.query_one(Conversation)
        conversation.anchor()
        message = AssistantMessage(streaming=True)
        await conversation.mount(message)
        message.append(TEXT)  # all at once: caught up with in a few large frames
        # (a generous bound: the test is about what is drawn, not when; CI may be loaded)
        await wait_for(pilot, lambda: not message.backlog, timeout=120)
        await message.finish()
        await frame_drawn(pilot)
        assert message.text == TEXT
        assert "item 599b" in on_screen(app)
        # documents holding a part, mounted whole while catching up: ~120 were laid out
        # live (each parked at the next pass), now ~65
        live = sum(1 for source in made if "## Part" in source)
        assert live < 100, live
        conversation.scroll_home(animate=False)
        await wait_for(pilot, lambda: "Paragraph 0:" in on_screen(app), timeout=20)


async def test_a_flood_in_small_deltas_lays_out_few_documents_at_once(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Deltas as a fast model sends them: several flushes mount their documents between
    two frames. Those sure to be above the followed view are parked before a layout
    measures them (one layout measured up to ~60 new live documents, 30-45 ms, issue
    21's worst stall), and the view still shows the reply's end, every word there when
    scrolled back."""
    message = AssistantMessage(streaming=True)
    most = 0
    original = Screen._refresh_layout

    def counted(self: Screen[None], *args: object, **kwargs: object) -> None:
        nonlocal most
        new = [c for c in message.children if isinstance(c, chat_markdown.ChatMarkdown) and not c.outer_size]
        most = max(most, len(new))
        original(self, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(Screen, "_refresh_layout", counted)
    app = SplitPage()
    async with app.run_test(size=(80, 24)) as pilot:
        conversation = app.query_one(Conversation)
        conversation.anchor()
        await conversation.mount(message)
        text = TEXT[: TEXT.index("## Part 300")]
        for at in range(0, len(text), 10):  # 10 characters a delta, each in a loop turn of its own
            message.append(text[at : at + 10])
            await asyncio.sleep(0)
        await wait_for(pilot, lambda: not message.backlog, timeout=60)
        await message.finish()
        await frame_drawn(pilot)
        assert message.text == text
        assert "item 299b" in on_screen(app)
        assert most <= 12, most  # (before: 16-29 here; 6-8 with it)
        conversation.scroll_home(animate=False)
        await wait_for(pilot, lambda: "Paragraph 0:" in on_screen(app), timeout=20)
