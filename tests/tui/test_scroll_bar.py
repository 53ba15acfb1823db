"""The conversation's scroll bar keeps its last drawing only while it would draw
the same, and draws a moved thumb from the rows Textual drew before: whatever the
user scrolls or the reply adds, the bar on screen is the one Textual draws."""

from __future__ import annotations

import pytest
from textual.app import App, ComposeResult
from textual.scrollbar import ScrollBar
from textual.widgets import Static

from shell.tui.widgets.conversation import Conversation
from shell.tui.widgets.steady_scroll_bar import SteadyScrollBar

pytestmark = pytest.mark.anyio


class Page(App[None]):
    def compose(self) -> ComposeResult:
        yield Conversation(id="conversation")


TEXTUALS = ScrollBar.render_lines


def _textual_draws(bar: ScrollBar) -> list[str]:
    """What Textual's own scroll bar draws in this state (its caches emptied first)."""
    bar._styles_cache.clear()
    bar._dirty_regions.add(bar.region)
    crop = bar.size.region
    return [repr(list(line)) for line in TEXTUALS(bar, crop)]


async def test_the_bar_shown_is_textuals_while_the_view_grows_and_scrolls(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    asked: list[object] = []  # each time the bar asks Textual to draw it
    monkeypatch.setattr(ScrollBar, "render_lines", lambda *args: asked.append(args) or TEXTUALS(*args))
    drawings: set[int] = set()
    app = Page()
    async with app.run_test(size=(60, 20)) as pilot:
        conversation = app.query_one(Conversation)
        conversation.anchor()
        bar = conversation.vertical_scrollbar
        assert isinstance(bar, SteadyScrollBar)
        kept = 0
        for step in range(60):
            await conversation.mount(Static(f"line {step}\n" * (1 + step % 3)))
            if step % 7 == 6:
                conversation.scroll_to(y=step % 11, animate=False)
            await pilot.pause()
            if not bar.display:
                continue
            before = bar._drawn
            if before is not None:
                drawings.add(id(before[1]))
            ours = [repr(list(line)) for line in bar.render_lines(bar.size.region)]
            kept += bar._drawn is before and before is not None
            assert ours == _textual_draws(bar), f"step {step}"
        assert kept  # the point of it: some frames reuse the last drawing,
        assert len(drawings) > len(asked)  # and a moved thumb is drawn from rows Textual drew
        bar.mouse_over = True  # hover draws another colour: not the kept lines
        await pilot.pause()
        assert [repr(list(line)) for line in bar.render_lines(bar.size.region)] == _textual_draws(bar)
