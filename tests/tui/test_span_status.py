"""What a tool span's status looks like: a failed call's header and border in the
theme's error colour, a finished one's border in its success colour, and both
following a theme switch (the colours are drawn, not CSS classes: see
``ToolSpan._apply_status``)."""

from __future__ import annotations

import pytest
from textual.color import Color

from shell.agent import tool
from shell.agent.loop import Agent
from shell.core.messages import AssistantMessage, ToolCallBlock
from shell.providers.scripted import ScriptedModel
from shell.tui.app import AgentShellApp
from shell.tui.widgets.tool_span import ToolSpan

from .helpers import SIZE, read_note, send, wait_for

pytestmark = pytest.mark.anyio


@tool(read_only=True)
def broken_note(path: str) -> str:
    """Fail to read a note.

    Args:
        path: which note
    """
    raise RuntimeError(f"cannot read {path}")


def _color(app: AgentShellApp, name: str) -> Color:
    return Color.parse(app.get_css_variables()[name])


def _header_color(span: ToolSpan) -> Color | None:
    """The colour the header's text is drawn in (its first non-blank cell)."""
    strip = span._title.render_line(0)
    for segment in strip:
        if segment.text.strip() and segment.style is not None and segment.style.color is not None:
            return Color.from_rich_color(segment.style.color)
    return None


async def test_a_failed_call_is_drawn_in_the_error_colour_and_a_done_one_in_success_across_themes() -> None:
    calls = (ToolCallBlock("ok", "read_note", {"path": "a.txt"}),
             ToolCallBlock("bad", "broken_note", {"path": "b.txt"}))
    agent = Agent(ScriptedModel([AssistantMessage(calls), "done"]), tools=[read_note, broken_note])
    app = AgentShellApp(agent, model_label="scripted")
    async with app.run_test(size=SIZE) as pilot:
        await send(pilot, "read")
        await wait_for(pilot, lambda: not app.busy and len(app.query(ToolSpan)) == 2)
        spans = {s.state.call_id: s for s in app.query(ToolSpan)}
        ok, bad = spans["ok"], spans["bad"]
        assert bad.state.status == "error" and ok.state.status == "done"
        for theme in (app.theme, next(t for t in app.our_theme_names() if t != app.theme)):
            app.theme = theme
            # restyled a pass or two after the switch: wait for the borders, then read all
            await wait_for(pilot, lambda: bad.styles.border_left[1] == _color(app, "error")
                           and ok.styles.border_left[1] == _color(app, "success")
                           and _header_color(bad) == _color(app, "error"))
            assert bad.styles.border_left[1] == _color(app, "error")
            assert _header_color(bad) == _color(app, "error")
            assert ok.styles.border_left[1] == _color(app, "success")
            assert _header_color(ok) != _color(app, "error")
