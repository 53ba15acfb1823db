"""A reply sent in one delta (a backlog drawn many documents per frame, mounted
together) shows every paragraph once, in order, one blank line apart, after its
chunks were parked and brought back by scrolling."""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import re
import time
from typing import Any

import pytest
from textual.app import App

from shell.tui.widgets import assistant_message
from shell.tui.widgets.assistant_message import AssistantMessage
from shell.tui.widgets.conversation import Conversation
from shell.tui.widgets.parked import Parked

from .helpers import ConversationPage, frame_drawn, streaming_message, wait_for

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
        # the layout catches up, the parking passes run (however long that takes here)
        await wait_for(pilot, lambda: bool(message.query_children(Parked)), timeout=30)  # the start is parked
        assert message.text == text
        seen: list[int] = []
        conversation.scroll_home(animate=False)
        view = conversation.region
        for _ in range(200):
            await frame_drawn(pilot)  # the regions read below are the scrolled ones

            def unparked() -> bool:
                return not any(p.region.overlaps(view) for p in message.query_children(Parked))

            await wait_for(pilot, unparked, timeout=20)
            await frame_drawn(pilot)

            def drawn() -> bool:
                """Chunks brought back are drawn a frame or two after they are mounted
                (blank meanwhile, as on a busy machine): wait for that, not for ever."""
                lines = _screen_lines(app, view.y, view.bottom)
                return all(a or b for a, b in itertools.pairwise(lines))

            with contextlib.suppress(AssertionError):  # the asserts below say what is wrong
                await wait_for(pilot, drawn)
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


def _section(n: int) -> str:
    return f"""# Part {n}

Intro of part {n}: what follows is a list, a table, some code and a quote.

## Steps {n}

- first step of part {n}
- second step, long enough to wrap across the width of the page at least once or twice
- third step

Then a numbered list:

1. one
2. two
3. three

### Table {n}

| tool | use |
|------|-----|
| read | files |
| run  | commands |

Code follows.

```python
def part_{n}() -> int:
    return {n}
```

> A quote in part {n}.

---

Closing words of part {n}.

"""


def _long_list(items: int) -> str:
    """A list longer than a document may wait for (cut between two items anyway)."""
    return "".join(f"- item {i} of a very long list that goes on and on\n" for i in range(items)) + "\n"


SEAMS = "".join(_section(n) for n in range(6)) + _long_list(60) + "Last words.\n"


async def _settled(pilot: Any, message: AssistantMessage) -> None:
    conversation = message.parent
    assert isinstance(conversation, Conversation)
    view = conversation.region

    def shown() -> bool:
        spacers = message.query_children(Parked)
        return not message.parking and not any(p.region.overlaps(view) for p in spacers)

    end = time.monotonic() + 60  # (40 chunks and more, passes that swap them: at load 19, over 30 s)
    while True:  # what came back is laid out and drawn, and no pass moved anything since
        await wait_for(pilot, shown, timeout=60)
        await frame_drawn(pilot, timeout=60)
        if shown():
            return
        assert time.monotonic() < end, "the view never held still"


async def _whole_text(pilot: Any, app: App[None], message: AssistantMessage) -> list[str]:
    """The reply's rendered lines, read a screen at a time from its top to its end
    (its chunks are parked and brought back as the view moves)."""
    conversation = app.query_one(Conversation)
    conversation.scroll_home(animate=False)
    lines: dict[int, str] = {}
    for _ in range(200):
        await _settled(pilot, message)
        view, left, right = conversation.region, message.content_region.x, message.content_region.right
        top = round(conversation.scroll_y)
        for row, strip in enumerate(app.screen._compositor.render_strips()[view.y : view.bottom]):
            lines[top + row] = strip.text[left:right].rstrip()
        if conversation.is_vertical_scroll_end:
            break
        conversation.scroll_to(y=top + view.height, animate=False)
    return [lines[y] for y in sorted(lines)]


async def _one_piece(monkeypatch: pytest.MonkeyPatch, text: str) -> list[str]:
    """``text`` rendered as one Markdown document."""
    with monkeypatch.context() as patch:
        patch.setattr(assistant_message, "split_markdown", lambda text, limit: [text])
        app = ConversationPage()
        async with app.run_test(size=(80, 24)) as pilot:
            message = AssistantMessage(text)
            await app.query_one(Conversation).mount(message)
            await frame_drawn(pilot)
            assert len(message._chunks()) == 1
            return await _whole_text(pilot, app, message)


async def test_a_reply_shown_in_chunks_has_the_blank_lines_of_the_reply_shown_whole(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A resumed reply, cut before every paragraph and heading it may be cut before
    (and inside a list too long to wait for), reads as the same Markdown shown in one
    document, blank lines included, after its chunks were parked and brought back."""
    whole = await _one_piece(monkeypatch, SEAMS)
    monkeypatch.setattr(assistant_message, "SHOWN_LIMIT", 1)
    app = ConversationPage()
    async with app.run_test(size=(80, 24)) as pilot:
        message = AssistantMessage(SEAMS)
        await app.query_one(Conversation).mount(message)
        # cut at every place it may be (counted before the first pass keeps neighbouring
        # chunks as one widget's lines, or parks them: how many by then is up to the machine)
        assert len(message._chunks()) > 40
        shown = await _whole_text(pilot, app, message)
        # the start was parked again on the way down (by a pass that may still be due)
        await wait_for(pilot, lambda: bool(message.query_children(Parked)), timeout=30)
    assert shown == whole


async def test_a_streamed_reply_has_the_blank_lines_of_the_reply_shown_whole(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The same, streamed in small deltas (cut into documents as it comes)."""
    whole = await _one_piece(monkeypatch, SEAMS)
    app = ConversationPage()
    async with app.run_test(size=(80, 24)) as pilot:
        message = await streaming_message(app)
        for at in range(0, len(SEAMS), 97):
            message.append(SEAMS[at : at + 97])
            await asyncio.sleep(0.005)
        await message.finish()
        await wait_for(pilot, lambda: not message.backlog)  # all of it drawn
        assert message.text == SEAMS and len(message._chunks()) > 1  # cut (and kept as lines)
        shown = await _whole_text(pilot, app, message)
    assert shown == whole
