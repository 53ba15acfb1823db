"""A list of thousands of items sent in ONE delta (findings I6): its chunks are kept as
lines a slice at a time (``rendered_chunk.warm``) and a list's new lines are drawn
several at once (``ListLines._draw``). What the user relies on: the list arrives whole,
in order, with nothing lost or doubled, at its start, middle and end; the lines shown
can be selected and copied as they read; and drawing lines in batches looks exactly
like drawing them one by one."""

from __future__ import annotations

import re
from typing import Any

import pytest
from textual.app import App, ComposeResult
from textual.content import Content
from textual.geometry import Offset
from textual.selection import Selection
from textual.strip import Strip

from shell.agent import Agent
from shell.providers.scripted import ScriptedModel
from shell.tui.app import AgentShellApp
from shell.tui.widgets import list_lines as ll
from shell.tui.widgets.assistant_message import AssistantMessage
from shell.tui.widgets.list_lines import ListLines
from shell.tui.widgets.rendered_chunk import RenderedChunk

from .helpers import SIZE, eventually, frame_drawn, wait_for

pytestmark = pytest.mark.anyio

ITEMS = 2_000
TEXT = "".join(f"- item {n}\n" for n in range(ITEMS))
ITEM = re.compile(r"^\s*• item (\d+)\s*$")


def _screen_items(app: AgentShellApp) -> list[int]:
    """The item numbers the screen shows, top to bottom."""
    lines = [strip.text for strip in app.screen._compositor.render_strips()]
    return [int(match.group(1)) for line in lines if (match := ITEM.match(line))]


def _in_order(numbers: list[int]) -> bool:
    """A run of consecutive items, a screenful of them (nothing lost, doubled, swapped)."""
    return len(numbers) >= SIZE[1] // 2 and numbers == list(range(numbers[0], numbers[0] + len(numbers)))


async def _shows(pilot: Any, app: AgentShellApp, wanted: int) -> None:
    """Wait until the screen shows a screenful of the list, in order, with item ``wanted``."""

    def shown() -> bool:
        numbers = _screen_items(app)
        return _in_order(numbers) and numbers[0] <= wanted <= numbers[-1]

    await wait_for(pilot, shown, timeout=60)


async def test_a_list_of_thousands_of_items_in_one_delta_arrives_whole_in_order_and_selectable() -> None:
    app = AgentShellApp(Agent(ScriptedModel([TEXT], delay=0, chunk_size=len(TEXT))), model_label="scripted")
    async with app.run_test(size=SIZE) as pilot:
        app.start_reply("list them")
        await wait_for(pilot, lambda: not app.busy and bool(app.query(AssistantMessage)), timeout=120)
        message = app.query(AssistantMessage).last()
        assert message.text == TEXT  # what the history, the session and /export have
        await _shows(pilot, app, ITEMS - 1)  # the end, where the view followed the reply
        await wait_for(pilot, lambda: bool(message.query_children(RenderedChunk)), timeout=60)

        conversation = app.conversation
        conversation.scroll_home(animate=False)
        await _shows(pilot, app, 0)

        def middle() -> None:
            conversation.scroll_to(y=conversation.max_scroll_y // 2, animate=False)

        middle()
        await wait_for(pilot, lambda: not message.parking, timeout=60)

        def middle_shown() -> bool:  # (spacers are sized by estimate until their text is back)
            numbers = _screen_items(app)
            if not numbers or message.parking:
                return False  # text on its way back into the view: scrolling again restarts it
            if not _in_order(numbers) or not ITEMS // 4 < numbers[0] < 3 * ITEMS // 4:
                middle()
                return False
            return True

        await wait_for(pilot, middle_shown, timeout=120)
        await frame_drawn(pilot)
        numbers = _screen_items(app)
        assert _in_order(numbers), numbers

        # The lines shown select and copy as they read: the kept chunk (or the live
        # list) under the middle of the view, a dozen of its lines (asked again while
        # the view still settles under load: a spacer there has no lines to select).
        def selectable() -> None:
            region = conversation.scrollable_content_region
            widget, offset = app.screen.get_widget_at(region.x + 4, region.y + region.height // 2)
            assert isinstance(widget, (RenderedChunk, ListLines)), widget
            top = offset.y
            app.screen.selections = {widget: Selection(Offset(0, top), Offset(0, top + 12))}
            copied = app.screen.get_selected_text()
            assert copied, copied
            found = ITEM.match(copied.splitlines()[0])
            assert found, copied
            first = int(found.group(1))
            assert copied == "\n".join(f"• item {n}" for n in range(first, first + 12))

        await eventually(pilot, selectable, timeout=60)


class _ListPage(App[None]):
    def compose(self) -> ComposeResult:
        yield ListLines([("• ", Content(f"item {n} " + "word " * (n % 30))) for n in range(120)])


def _looks(strips: list[Strip]) -> list[list[tuple[str, str]]]:
    return [[(segment.text, str(segment.style)) for segment in strip] for strip in strips]


async def _drawn(batch: int, monkeypatch: pytest.MonkeyPatch) -> list[list[tuple[str, str]]]:
    monkeypatch.setattr(ll, "DRAW_BATCH", batch)
    app = _ListPage()
    async with app.run_test(size=(60, 40)) as pilot:
        await pilot.pause()
        widget = app.query_one(ListLines)
        return _looks([widget.render_line(y) for y in range(widget.size.height)])


async def test_list_lines_drawn_in_batches_look_exactly_as_drawn_one_by_one(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    one_by_one = await _drawn(1, monkeypatch)
    batched = await _drawn(16, monkeypatch)
    assert len(one_by_one) > 120  # items wrap: more lines than items
    assert batched == one_by_one
