"""The conversation keeps only the newest entries mounted; scrolling up brings
older ones back; long replies park far-away Markdown chunks."""

from __future__ import annotations

import asyncio
import re
from collections import Counter

import pytest
from textual.geometry import Region

from shell.tui.app import AgentShellApp
from shell.tui.entries import AssistantEntry, UserEntry
from shell.tui.mdsplit import split_markdown
from shell.tui.widgets import conversation as conv
from shell.tui.widgets.assistant_message import AssistantMessage
from shell.tui.widgets.chat_markdown import ChatMarkdown
from shell.tui.widgets.conversation import Conversation
from shell.tui.widgets.parked import Parked, split_segments
from shell.tui.widgets.rendered_chunk import RenderedChunk
from shell.tui.widgets.user_message import UserMessage

from .helpers import SIZE, ConversationPage, frame_drawn, make_agent, repeat_until, send, wait_for

pytestmark = pytest.mark.anyio


async def test_old_entries_leave_the_tree_and_come_back(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(conv, "WINDOW", 10)
    monkeypatch.setattr(conv, "SLACK", 2)
    monkeypatch.setattr(conv, "BATCH", 5)
    agent, _ = make_agent([])
    app = AgentShellApp(agent, model_label="scripted")
    async with app.run_test(size=SIZE) as pilot:
        conversation = app.conversation
        for i in range(30):
            await conversation.add(UserEntry(f"message {i}"))
        await pilot.pause()
        assert conversation.mounted_count <= 12
        assert len(app.query(UserMessage)) == conversation.mounted_count
        assert app.query(UserMessage).last().text == "message 29"
        first = conversation.first_mounted
        await conversation.load_earlier()
        await pilot.pause()
        assert conversation.first_mounted == first - 5
        texts = [w.text for w in app.query(UserMessage)]
        assert texts[0] == f"message {first - 5}" and texts[-1] == "message 29"
        # each scroll to the top brings one more batch back
        await repeat_until(pilot, lambda: conversation.scroll_home(animate=False),
                           lambda: conversation.first_mounted == 0)
        assert app.query(UserMessage).first().text == "message 0"


async def test_add_many_mounts_only_the_newest() -> None:
    agent, _ = make_agent([])
    app = AgentShellApp(agent, model_label="scripted")
    async with app.run_test(size=SIZE) as pilot:
        entries = [AssistantEntry(f"reply **{i}**") for i in range(200)]
        await app.conversation.add_many(entries)
        conversation = app.conversation
        shown = conversation.mounted_count
        assert shown < conv.WINDOW  # the last screenful first
        await wait_for(pilot, lambda: conversation.mounted_count > shown)  # then one more above it
        await pilot.pause()
        assert conversation.mounted_count <= conv.WINDOW and conversation.max_scroll_y > 0
        assert len(app.query(AssistantMessage)) == conversation.mounted_count  # only those: 200 were added


async def test_long_streamed_reply_parks_chunks_out_of_view() -> None:
    text = "".join(f"Paragraph {i} " + "word " * 60 + "\n\n" for i in range(120))
    agent, _ = make_agent([text], chunk_size=200)
    app = AgentShellApp(agent, model_label="scripted")
    async with app.run_test(size=SIZE) as pilot:
        await send(pilot, "long")
        await wait_for(pilot, lambda: not app.busy, timeout=120)  # 120 paragraphs: long on a loaded machine
        message = app.query_one(AssistantMessage)
        assert message.text == text

        def parked_out_of_view() -> bool:  # once the passes after the end have run (later under load)
            spacers = message.query_children(Parked)  # neighbouring chunks share one spacer
            near = _live_rows(message) <= 3 * SIZE[1]  # only what is near the view stays live
            return len(spacers) == 1 and "Paragraph 0 " in spacers[0].source and near

        await wait_for(pilot, parked_out_of_view, timeout=120)
        app.conversation.scroll_home(animate=False)

        def first_back() -> bool:
            return "Paragraph 0 " not in "".join(p.source for p in message.query_children(Parked))

        await wait_for(pilot, first_back)
        first = message._chunks()[0]  # live Markdown, or the lines it rendered to
        assert first.source.startswith("Paragraph 0 ")

        def end_parked() -> bool:  # the next parking pass, once the layout has settled
            spacers = message.query_children(Parked)
            return bool(spacers) and "Paragraph 119 " in spacers.last().source

        await wait_for(pilot, end_parked)

        app.conversation.scroll_end(animate=False)

        def end_back() -> bool:
            chunks = message._chunks()
            return bool(chunks) and "Paragraph 119 " in chunks[-1].source

        await wait_for(pilot, end_back)

        def top_parked() -> bool:  # and the passes have left live only what is near the view
            spacers = message.query_children(Parked)
            near = _live_rows(message) <= 3 * SIZE[1]
            return bool(spacers) and "Paragraph 0 " in spacers.first().source and near

        await wait_for(pilot, top_parked, timeout=30)


def _live_rows(message: AssistantMessage) -> int:
    return sum(chunk.outer_size.height for chunk in message._chunks())


def test_parked_segments_split_by_place_on_screen() -> None:
    segments = [("a", 10), ("b", 10), ("c", 10), ("d", 10)]
    above, near, below = split_segments(segments, 100, Region(0, 112, 80, 10))
    assert [s for s, _ in above] == ["a"]
    assert [s for s, _ in near] == ["b", "c"]
    assert [s for s, _ in below] == ["d"]


def test_split_markdown_never_cuts_fences_or_lists() -> None:
    text = "intro\n\n```\ncode\n\nmore code\n```\n\n- a\n\n- b\n\nnext paragraph\n\nlast\n"
    parts = split_markdown(text, 1)
    assert "".join(parts) == text
    assert all(p.count("```") % 2 == 0 for p in parts)
    assert not any(p.startswith("- b") for p in parts)


def test_parked_heights_follow_a_width_change() -> None:
    parked = Parked([("a", 10), ("b", 3)])
    parked.rescale(120 / 60)  # half as wide: about twice as tall
    assert parked.segments == [("a", 20), ("b", 6)]
    parked.rescale(60 / 240)
    assert parked.segments == [("a", 5), ("b", 2)]


def _shown_texts(app: AgentShellApp) -> list[str]:
    """Every assistant message mounted, as its displayed chunks and spacers hold it, in
    order (a chunk on its way out is hidden first: the screen no longer lays it out)."""
    texts = []
    for message in app.query(AssistantMessage):
        parts = []
        for child in message.children:
            if isinstance(child, (ChatMarkdown, RenderedChunk, Parked)) and child.display:
                parts.append(child.source)
        texts.append("".join(parts))
    return texts


MARKER = re.compile(r"Answer \d+ paragraph \d+:")


def _shown_twice(app: AgentShellApp) -> list[str]:
    counts = Counter(m for text in _shown_texts(app) for m in MARKER.findall(text))
    return [marker for marker, count in counts.items() if count > 1]


def _layout_key(app: AgentShellApp) -> tuple[object, ...]:
    """What the check depends on: which children each message shows, and how much of it."""
    return tuple(
        (id(child), child.display, len(child.segments) if isinstance(child, Parked) else len(child.source))
        for message in app.query(AssistantMessage)
        for child in message.children
        if isinstance(child, (ChatMarkdown, RenderedChunk, Parked))
    )


async def _watch_every_turn(app: AgentShellApp, seen: list[str]) -> None:
    """Check at every turn of the event loop, not between parking passes: the screen
    may draw at any turn, and a swap of a chunk for its lines (or its spacer) that
    shows both at one turn shows a paragraph twice on screen."""
    last: tuple[object, ...] = ()
    while True:
        key = _layout_key(app)
        if key != last:
            last = key
            seen += _shown_twice(app)
        await asyncio.sleep(0)


async def test_after_continue_scrolling_back_never_shows_a_reply_twice() -> None:
    """A resumed conversation (``--continue``) of long replies, scrolled back to its
    start a page at a time while parking and unparking run: at every turn of the event
    loop (when the screen may draw), every paragraph of every reply is shown once, never
    twice: a chunk and the lines it was swapped for, or the spacer it was parked in,
    are never shown together."""
    from shell.agent import AssistantMessage as Said
    from shell.agent import TextBlock, UserMessage

    agent, _ = make_agent([])
    for i in range(8):
        body = "".join(f"Answer {i} paragraph {j}: " + "word " * 50 + "\n\n" for j in range(30))
        agent.messages.extend([UserMessage(f"question {i}"), Said((TextBlock(body),))])
    app = AgentShellApp(agent, model_label="scripted")
    async with app.run_test(size=SIZE) as pilot:
        twice: list[str] = []
        watcher = asyncio.create_task(_watch_every_turn(app, twice))
        try:
            await wait_for(pilot, lambda: bool(app.query(AssistantMessage)))  # each step waits for its pass
            conversation = app.conversation
            seen_top = False
            for _ in range(400):
                # between passes (not a speed check: the watcher checks every turn; a pass
                # waits for removed chunks' queues to close, seconds on a loaded machine)
                await wait_for(pilot, lambda: not any(m.parking for m in app.query(AssistantMessage)), 30)
                assert not twice, f"shown twice: {sorted(set(twice))[:5]}"
                if conversation.first_mounted == 0 and conversation.scroll_y <= 0:
                    if seen_top:
                        break
                    seen_top = True
                conversation.scroll_relative(y=-SIZE[1] // 2, animate=False)
                await frame_drawn(pilot, 120)  # the scroll is laid out (not a fixed pause)
            assert seen_top
            assert not twice, f"shown twice: {sorted(set(twice))[:5]}"
        finally:
            watcher.cancel()


async def test_a_parked_spacer_in_view_shows_nothing() -> None:
    """A widget with no ``render`` draws its class name: after a resize, a spacer in
    view for a moment said "Parked" in the middle of a reply."""
    from textual.app import App, ComposeResult

    from shell.tui.widgets.parked import Parked

    class Host(App[None]):
        def compose(self) -> ComposeResult:
            yield Parked([("# A heading\n\nsome text\n", 4)])

    app = Host()
    async with app.run_test(size=(40, 8)) as pilot:
        await pilot.pause()
        lines = app.screen._compositor.render_update(full=True)
        shown = "".join(segment.text for strip in lines.strips for segment in strip)  # type: ignore[union-attr]
        assert "Parked" not in shown and not shown.strip()


async def test_scrolled_back_the_view_is_filled_at_once_not_after_the_parking_pass(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Scrolled back into the parked start of a long reply, the chunks the view shows
    come back as soon as the scroll is drawn, first (those near the view follow): left
    to the parking passes, which wait and then bring back two screens' worth, the view
    showed blank for seconds on a busy machine."""
    text = "".join(f"Paragraph {i} " + "word " * 60 + "\n\n" for i in range(60))
    app = ConversationPage()
    async with app.run_test(size=SIZE) as pilot:
        conversation = app.query_one(Conversation)
        message = AssistantMessage(text)
        await conversation.mount(message)

        def start_parked() -> bool:
            spacers = message.query_children(Parked)
            return not message.parking and bool(spacers) and "Paragraph 0 " in spacers.first().source

        await wait_for(pilot, start_parked, timeout=20)

        async def no_pass() -> bool:  # the parking passes bring nothing back from now on
            return False

        monkeypatch.setattr(AssistantMessage, "update_parking", lambda self: no_pass())
        live_before = set(message._chunks())
        conversation.scroll_home(animate=False)
        view = conversation.region

        def view_filled() -> bool:
            spacers = message.query_children(Parked)
            top = message.children[0]
            shown = not isinstance(top, Parked) and top.region.overlaps(view)
            return shown and not message.parking and not any(p.region.overlaps(view) for p in spacers)

        await wait_for(pilot, view_filled, timeout=20)
        back = [chunk for chunk in message._chunks() if chunk not in live_before]
        assert back[0].source.startswith("Paragraph 0 ")
        assert all(chunk.region.overlaps(view) for chunk in back)  # the view's first, only them
