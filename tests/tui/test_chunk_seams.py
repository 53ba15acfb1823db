"""A reply sent in one delta (a backlog drawn many documents per frame, mounted
together) shows every paragraph once, in order, one blank line apart, after its
chunks were parked and brought back by scrolling."""

from __future__ import annotations

import itertools
import re

import pytest
from textual.app import App

from shell.tui.widgets.conversation import Conversation
from shell.tui.widgets.parked import Parked

from .helpers import ConversationPage, streaming_message, wait_for

pytestmark = pytest.mark.anyio


def _screen_lines(app: App[None], top: int, bottom: int) -> list[str]:
    strips = app.screen._compositor.render_strips()
    return [strip.text.rstrip() for strip in strips[top:bottom]]


PARAGRAPHS = 240


def _paragraph(number: int) -> str:
    return f"Paragraph {number} of the long answer."


async def test_a_long_reply_in_one_delta_shows_each_paragraph_once_in_order_when_scrolled_back() -> None:
    text = "".join(_paragraph(i) + "\n\n" for i in range(PARAGRAPHS))
    app = ConversationPage()
    async with app.run_test(size=(80, 24)) as pilot:
        conversation = app.query_one(Conversation)
        message = await streaming_message(app)
        message.append(text)  # one delta: a backlog drawn many documents per frame
        await message.finish()
        for _ in range(4):  # the layout catches up, the parking passes run
            await pilot.pause(0.3)
        assert message.text == text
        assert message.query_children(Parked)  # the start is parked
        seen: list[int] = []
        conversation.scroll_home(animate=False)
        view = conversation.region
        for _ in range(200):
            await pilot.pause(0.1)

            def unparked() -> bool:
                return not any(p.region.overlaps(view) for p in message.query_children(Parked))

            await wait_for(pilot, unparked, timeout=20)
            await pilot.pause(0.1)
            lines = _screen_lines(app, view.y, view.bottom)
            numbers = [int(m.group(1)) for line in lines if (m := re.search(r"Paragraph (\d+) ", line))]
            # on one screen: consecutive paragraphs, each once, one blank line apart
            assert numbers == list(range(numbers[0], numbers[0] + len(numbers))) if numbers else True
            for a, b in itertools.pairwise(lines):
                assert a or b, f"two blank lines in a row: {lines}"
            seen += [n for n in numbers if not seen or n > seen[-1]]
            if conversation.is_vertical_scroll_end:
                break
            conversation.scroll_to(y=conversation.scroll_y + view.height - 2, animate=False)
        assert seen == list(range(PARAGRAPHS))
