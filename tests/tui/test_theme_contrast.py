"""What the user must read is readable in every built-in theme (the status line, the
footer, the pending tool span, the prompt's placeholder, the side panel): WCAG
contrast of at least 4.5:1 between each piece of text and its background, as the
screen shows them (after the theme's colours, alpha and a dialog's backdrop are
applied), with an approval dialog open and without.

The cells are read from the same render a screenshot is made of
(``App.export_screenshot`` does exactly this); the ratio is WCAG 2's.
"""

from __future__ import annotations

import os

import pytest
from rich.color import Color
from rich.console import Console
from rich.segment import Segment

from shell.tui.app import AgentShellApp
from shell.tui.screens.approval import ApprovalScreen
from shell.tui.widgets.side_panel import MIDDLEWARE_TAB, TRACE_TAB
from themes import all_themes

from .helpers import SIZE, AskEverything, make_agent, send, wait_for
from .test_approval import _call

pytestmark = pytest.mark.anyio

MINIMUM = 4.5


def _luminance(color: Color) -> float:
    def channel(value: int) -> float:
        v = value / 255
        return v / 12.92 if v <= 0.04045 else ((v + 0.055) / 1.055) ** 2.4

    r, g, b = color.get_truecolor()
    return 0.2126 * channel(r) + 0.7152 * channel(g) + 0.0722 * channel(b)


def contrast(a: Color, b: Color) -> float:
    high, low = sorted((_luminance(a), _luminance(b)), reverse=True)
    return (high + 0.05) / (low + 0.05)


def test_the_ratio_is_wcags() -> None:
    assert round(contrast(Color.parse("#000000"), Color.parse("#ffffff")), 1) == 21.0
    assert round(contrast(Color.parse("#767676"), Color.parse("#ffffff")), 2) == 4.54


def screen_lines(app: AgentShellApp) -> list[list[Segment]]:
    """The screen's cells as the terminal gets them (the dialog over the main screen)."""
    update = app.screen._compositor.render_update(full=True, screen_stack=app._background_screens)
    with open(os.devnull, "w") as sink:
        console = Console(width=app.size.width, height=app.size.height, file=sink, force_terminal=True,
                          color_system="truecolor", legacy_windows=False)
        return list(Segment.split_lines(console.render(update, console.options)))


def faint_text(line: list[Segment]) -> list[str]:
    """Each piece of text (a segment with a letter or digit) under the minimum."""
    faint = []
    for segment in line:
        style = segment.style
        if segment.control or not any(ch.isalnum() for ch in segment.text) or style is None:
            continue
        assert style.color is not None and style.bgcolor is not None, segment
        ratio = contrast(style.color, style.bgcolor)
        if ratio < MINIMUM:
            faint.append(f"{segment.text.strip()!r} {ratio:.2f}:1")
    return faint


def _text(line: list[Segment]) -> str:
    return "".join(s.text for s in line if not s.control)


def _placeholder(line: list[Segment]) -> list[Segment]:
    """The prompt's line without its cursor cell (a block cursor, not text to read)."""
    return [s for s in line if len(s.text.strip()) > 1]


@pytest.mark.parametrize("theme", [t.name for t in all_themes()])
async def test_what_the_user_must_read_is_readable_in_every_built_in_theme(theme: str) -> None:
    """The status line, the footer, the prompt's placeholder, the side panel's tabs and
    the trace; behind a dialog too. The dark themes' dialogs dimmed the status line and
    the footer to 2-3:1, and the placeholder and the inactive tab were 2.8-3.9:1."""
    agent, _ = make_agent([_call(), "done"], middleware=[AskEverything()])
    app = AgentShellApp(agent, model_label="scripted")
    async with app.run_test(size=SIZE) as pilot:
        app.theme = theme
        taken: list[list[list[Segment]]] = []

        def footer_in() -> bool:  # taken once the footer's keys are in (it recomposes: empty a moment)
            taken[:] = [screen_lines(app)]
            return "Quit" in _text(taken[0][-1])

        await wait_for(pilot, footer_in)
        lines = taken[0]
        status, footer = lines[-2], lines[-1]
        prompt = next(ln for ln in lines if "Message the agent" in _text(ln))
        assert "ready" in _text(status) and "Quit" in _text(footer)
        assert faint_text(status) == [] and faint_text(footer) == []
        assert faint_text(_placeholder(prompt)) == []

        await send(pilot, "go")
        await wait_for(pilot, lambda: isinstance(app.screen, ApprovalScreen) and app.screen.is_mounted)
        await pilot.pause()
        lines = screen_lines(app)
        status, footer = lines[-2], lines[-1]
        span = next((ln for ln in lines if "write_note" in _text(ln) and "approval" in _text(ln)), None)
        assert span is not None, "the pending span is not on screen"
        prompt = next(ln for ln in lines if "Message the agent" in _text(ln))
        assert "awaiting approval" in _text(status) and "Cancel reply" in _text(footer)
        assert faint_text(status) == []
        assert faint_text(footer) == []
        assert faint_text(span) == []
        assert faint_text(_placeholder(prompt)) == []

        await pilot.press("y")
        await wait_for(pilot, lambda: not app.busy)
        app.main.side.open(TRACE_TAB)
        await wait_for(pilot, lambda: any("reply 1" in _text(ln) for ln in screen_lines(app)))
        lines = screen_lines(app)
        tabs = next(ln for ln in lines if "Middleware" in _text(ln) and "Trace" in _text(ln))
        trace = [ln for ln in lines if "reply 1" in _text(ln) or "write_note" in _text(ln)]
        assert faint_text(tabs) == []  # the tab not chosen too
        assert trace and all(faint_text(ln) == [] for ln in trace)

        app.main.side.open(MIDDLEWARE_TAB)  # a row: its switch, name, description, stats
        await wait_for(pilot, lambda: app.panel.loaded)
        await pilot.pause()
        lines = screen_lines(app)
        row = [ln for ln in lines if "AskEverything" in _text(ln) or "before_tool_call" in _text(ln)]
        assert len(row) == 2 and all(faint_text(ln) == [] for ln in row)
