"""While a reply streams, the chunks it has finished are kept as the lines they rendered
to (one widget each, so a frame lays out and draws only the chunk being written), and the
screen shows exactly what those chunks showed as Markdown widgets: the blank lines at
the cuts included (a chunk measured while its last block was still the
reply's end was held one line short: that line went missing, and the chunk was never
kept as lines, so every frame laid out and drew all the chunks near the view again)."""

from __future__ import annotations

import pytest
from textual.app import App, ComposeResult
from textual.strip import Strip

from shell.tui.widgets import assistant_message as am
from shell.tui.widgets.assistant_message import AssistantMessage
from shell.tui.widgets.chat_markdown import ChatMarkdown
from shell.tui.widgets.conversation import Conversation
from shell.tui.widgets.rendered_chunk import RenderedChunk

from .helpers import frame_drawn, wait_for

pytestmark = pytest.mark.anyio

SIZE = (90, 30)
TEXT = "".join(
    f"## Part {i}\n\nParagraph {i}: the agent reads files, runs **tools** and answers with `code` "
    f"and words, long enough to wrap once at this width of the screen, part {i}.\n\n"
    f"- item {i}a\n- item {i}b\n\n```python\nx = {i}\n```\n\n"
    for i in range(12)
)


class Page(App[None]):
    def compose(self) -> ComposeResult:
        yield Conversation()


def _looks(strips: list[Strip]) -> list[list[tuple[str, str]]]:
    """Each character on screen and its style (not the metadata behind clicks)."""
    return [[(char, str(segment.style)) for segment in strip for char in segment.text] for strip in strips]


def _text_area(app: Page) -> list[list[tuple[str, str]]]:
    """The conversation as drawn, without its scroll bar (whose thumb follows the reply's
    whole height: a chunk made Markdown again is one document, and its blocks' margins
    meet, where two neighbouring ones kept as lines each kept their own)."""
    right = app.query_one(Conversation).scrollable_content_region.right
    return _looks([strip.crop(0, right) for strip in app.screen._compositor.render_strips()])


def _finished_chunks_kept(message: AssistantMessage) -> bool:
    *finished, last = message._chunks()
    return (
        isinstance(last, ChatMarkdown)
        and bool(finished)
        and all(isinstance(chunk, RenderedChunk) for chunk in finished)
        and not message.backlog
    )


async def _streamed(pilot: object, app: Page) -> AssistantMessage:
    conversation = app.query_one(Conversation)
    conversation.anchor()
    message = AssistantMessage(streaming=True)
    await conversation.mount(message)
    for at in range(0, len(TEXT), 40):  # a model's deltas, a frame or so apart
        message.append(TEXT[at : at + 40])
        await pilot.pause(0.02)  # type: ignore[attr-defined]
    await wait_for(pilot, lambda: _finished_chunks_kept(message), timeout=20)
    return message


async def test_a_streaming_reply_keeps_its_finished_chunks_as_lines_before_it_ends() -> None:
    app = Page()
    async with app.run_test(size=SIZE) as pilot:
        message = await _streamed(pilot, app)
        assert message.streaming  # not finished: kept while it streams
        assert message.text == TEXT
        live = message.query_children(ChatMarkdown)
        assert len(live) == 1 and live.first() is message._chunks()[-1]
        # the chunks near the view went Markdown -> lines, those far above were parked
        assert message.query_children(RenderedChunk)


async def test_a_streaming_reply_looks_the_same_before_and_after_its_chunks_are_kept_as_lines(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    app = Page()
    async with app.run_test(size=SIZE) as pilot:
        conversation = app.query_one(Conversation)
        conversation.anchor()
        message = AssistantMessage(streaming=True)
        await conversation.mount(message)
        with monkeypatch.context() as held:
            held.setattr(am, "capture", lambda chunk: None)  # nothing kept yet: all live
            for at in range(0, len(TEXT), 40):
                message.append(TEXT[at : at + 40])
                await pilot.pause(0.02)
            await wait_for(pilot, lambda: not message.backlog)
            await frame_drawn(pilot)
            assert len(message.query_children(ChatMarkdown)) > 1
            live = _text_area(app)
        await message._render_finished()
        await wait_for(pilot, lambda: _finished_chunks_kept(message))
        await frame_drawn(pilot)
        kept = _text_area(app)
        assert message.streaming
    lines = ["".join(char for char, _ in line).rstrip() for line in kept]
    assert any("Paragraph 11:" in line for line in lines), lines
    assert ["".join(char for char, _ in line).rstrip() for line in live] == lines  # every blank line too
    assert live == kept  # and the same colours
