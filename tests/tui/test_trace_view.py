"""Pilot tests of the trace view: the side panel's Trace tab and ``/trace``."""

from __future__ import annotations

from typing import Any

import anyio
import pytest
from textual.widgets import TabbedContent

from middleware.tracing import TraceSpan, Tracing
from shell.agent import AssistantMessage, TextBlock, ToolCallBlock, tool
from shell.core.events import CustomEvent
from shell.tui import tracefmt
from shell.tui.app import AgentShellApp
from shell.tui.widgets.side_panel import MIDDLEWARE_TAB, TRACE_TAB

from .helpers import SIZE, eventually, make_agent, read_note, send, wait_for

pytestmark = pytest.mark.anyio

TOOL_TURN = AssistantMessage((TextBlock("Reading."), ToolCallBlock("c1", "read_note", {"path": "n.txt"})))


def _app(turns: list[Any], *, tracing_on: bool = False, tools: Any = None) -> tuple[AgentShellApp, Tracing]:
    tracing = Tracing()
    extra = {"tools": tools} if tools is not None else {}
    agent, _ = make_agent(turns, middleware=[tracing], **extra)
    agent.middleware.set_enabled("Tracing", tracing_on)
    return AgentShellApp(agent, model_label="scripted"), tracing


async def test_opening_the_view_switches_tracing_on_and_closing_puts_it_back() -> None:
    app, tracing = _app([])
    async with app.run_test(size=SIZE) as pilot:
        assert not tracing.tree and not app.agent.middleware.is_enabled("Tracing")
        await send(pilot, "/trace")
        await pilot.pause()
        assert app.side.shown and app.side.tab == TRACE_TAB
        assert tracing.tree and app.agent.middleware.is_enabled("Tracing")
        assert app.trace_view.active and not app.panel.shown
        app.query_one(TabbedContent).active = MIDDLEWARE_TAB  # to the other tab: the view closes
        await pilot.pause()
        assert not tracing.tree and not app.agent.middleware.is_enabled("Tracing")
        assert app.panel.shown and not app.trace_view.active
        app.side.open(TRACE_TAB)
        await pilot.pause()
        assert tracing.tree
        await pilot.press("f2")  # hiding the panel closes the view too
        await pilot.pause()
        assert not app.side.shown and not tracing.tree
        assert not app.agent.middleware.is_enabled("Tracing")


async def test_a_user_who_had_tracing_on_keeps_it_on() -> None:
    app, tracing = _app([], tracing_on=True)
    async with app.run_test(size=SIZE) as pilot:
        await send(pilot, "/trace")
        await pilot.pause()
        assert tracing.tree
        await pilot.press("f2")
        await pilot.pause()
        assert app.agent.middleware.is_enabled("Tracing") and not tracing.tree


async def test_reply_with_a_tool_shows_reply_model_and_tool_spans_with_durations() -> None:
    app, _ = _app([TOOL_TURN, "It says hi."])
    async with app.run_test(size=SIZE) as pilot:
        await send(pilot, "/trace")
        await pilot.click("#prompt")
        await send(pilot, "read n.txt")
        await wait_for(pilot, lambda: not app.busy)

        def drawn() -> None:  # the view syncs on its own clock, a few passes after the reply
            lines = app.trace_view.lines()
            assert len(lines) >= 4, lines
            assert lines[0].startswith("✓ reply 1 “read n.txt”")
            assert "tok" in lines[0]
            kinds = [line.split()[1] for line in lines[1:]]
            assert kinds[:3] == ["model", "tool", "model"]
            model_line, tool_line = lines[1], lines[2]
            assert "read_note" in tool_line and tool_line.strip().startswith("✓")
            assert any(unit in tool_line for unit in ("ms", "s"))
            assert "tok" in model_line and "tool_use" in model_line
            assert any("middleware" in line for line in lines)

        await eventually(pilot, drawn)


@tool
async def slow_tool(path: str) -> str:
    """Waits until the test lets it finish.

    Args:
        path: ignored
    """
    await GATE.wait()
    return "done"


GATE = anyio.Event()


async def test_view_updates_while_the_reply_runs() -> None:
    global GATE
    GATE = anyio.Event()
    turn = AssistantMessage((ToolCallBlock("c1", "slow_tool", {"path": "x"}),))
    app, tracing = _app([turn, "finished"], tools=[slow_tool, read_note])
    async with app.run_test(size=SIZE) as pilot:
        await send(pilot, "/trace")
        await pilot.click("#prompt")
        await send(pilot, "go slow")
        await wait_for(pilot, lambda: any("tool slow_tool" in line for line in app.trace_view.lines()))
        lines = app.trace_view.lines()
        assert lines[0].startswith("◌ reply 1") and "…" in lines[0]  # running, elapsed so far
        assert any(line.strip().startswith("✓ model") for line in lines)
        assert any(line.strip().startswith("◌ tool slow_tool") for line in lines)
        GATE.set()
        await wait_for(pilot, lambda: not app.busy)
        await wait_for(pilot, lambda: app.trace_view.lines()[0].startswith("✓ reply 1"))
        assert tracing.traces[-1].end is not None


async def test_trace_events_only_mark_the_view_dirty() -> None:
    app, _ = _app([])
    async with app.run_test(size=SIZE) as pilot:
        view = app.trace_view
        view.dirty = False
        from shell.tui.renderer import ReplyRenderer

        await ReplyRenderer(app.conversation).handle(CustomEvent("trace", TraceSpan("x", "agent", 0.0)))
        # the event reaches the view as a message: wait for it (a fixed pause lost it under load)
        await wait_for(pilot, lambda: view.dirty, timeout=30)
        assert view.dirty and view.lines() == []


async def test_without_tracing_in_the_stack_the_view_says_so() -> None:
    agent, _ = make_agent([])
    app = AgentShellApp(agent, model_label="scripted")
    async with app.run_test(size=SIZE) as pilot:
        await send(pilot, "/trace")
        await pilot.pause()
        note = str(app.trace_view.query_one("#trace-note").render())
        assert "not in the middleware stack" in note


def test_labels_read_well() -> None:
    span = TraceSpan("chat m", "model", 10.0, 10.25, attributes={"gen_ai.request.model": "m"})
    span.attributes |= {"gen_ai.usage.input_tokens": 12, "gen_ai.usage.output_tokens": 3}
    span.status = "ok"
    assert tracefmt.label(span, 99.0).plain == "✓ model m  0.25s · 12→3 tok"
    running = TraceSpan("execute_tool t", "tool", 10.0, attributes={"gen_ai.tool.name": "t"})
    assert tracefmt.label(running, 10.5).plain == "◌ tool t  0.50s…"
    assert tracefmt.duration(0.004) == "4.0ms" and tracefmt.duration(65) == "1m05s"
    attrs = {"agent_shell.middleware.Tracing.time_s": 0.002}
    root = TraceSpan("invoke_agent a", "agent", 0.0, attributes=attrs)
    assert tracefmt.middleware_times(root) == [("Tracing", 0.002)]


async def test_replies_sent_before_the_view_opened_are_listed_and_numbers_go_on() -> None:
    """Two replies before the view is first opened (Tracing off): both are listed
    with their tools; the third, traced, is "reply 3"; closing and opening the view
    again numbers nothing anew."""
    call = AssistantMessage((TextBlock("Reading."), ToolCallBlock("c1", "read_note", {"path": "a.txt"})))
    app, _ = _app([call, "First done.", "Second done.", "Third done."], tools=[read_note])
    async with app.run_test(size=SIZE) as pilot:
        for words in ("first question", "second question"):
            await send(pilot, words)
            await wait_for(pilot, lambda: not app.busy)
        await send(pilot, "/trace")
        await wait_for(pilot, lambda: len(app.trace_view.span_tree.root.children) == 2)
        lines = app.trace_view.lines()
        assert lines[0].startswith("✓ reply 2") and "“second question”" in lines[0] and "untraced" in lines[0]
        reply_1 = next(line for line in lines if "reply 1" in line)
        assert "“first question”" in reply_1
        app.trace_view.span_tree.root.children[1].expand()
        await pilot.pause()
        assert any("tool read_note" in line for line in app.trace_view.lines())
        await send(pilot, "third question")
        await wait_for(pilot, lambda: not app.busy and len(app.trace_view.span_tree.root.children) == 3)

        def newest_is_reply_3() -> None:  # once the view's next tick has drawn the end
            newest = app.trace_view.lines()[0]
            assert newest.startswith("✓ reply 3") and "untraced" not in newest

        await eventually(pilot, newest_is_reply_3)
        await pilot.press("f2", "f2")  # closed and opened again: the same numbers
        await send(pilot, "/trace")

        def numbered_as_before() -> None:
            tops = [str(node.label) for node in app.trace_view.span_tree.root.children]
            assert [t.split("“")[0].strip() for t in tops] == ["✓ reply 3", "✓ reply 2", "✓ reply 1"]

        await eventually(pilot, numbered_as_before)


def _luminance(rgb: tuple[int, int, int]) -> float:
    def channel(c: int) -> float:
        v = c / 255
        return v / 12.92 if v <= 0.03928 else ((v + 0.055) / 1.055) ** 2.4

    r, g, b = (channel(c) for c in rgb)
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


@pytest.mark.parametrize("theme", ["agent-light", "agent-dark", "agent-contrast"])
async def test_trace_details_are_readable_in_every_theme(theme: str) -> None:
    """The durations and token counts (the muted details) against the tree's
    background: at least 3:1 (they were white on near-white in the light theme)."""
    app, _ = _app([])
    async with app.run_test(size=SIZE) as pilot:
        app.theme = theme
        await send(pilot, "/trace")
        await pilot.pause()
        view = app.trace_view
        for role in ("muted", "name", "ok", "error"):
            color = view.get_component_rich_style(f"trace--{role}", partial=True).color
            assert color is not None, role
            fore = color.get_truecolor()
            back = view.span_tree.background_colors[1].rgb
            ours = _luminance((fore.red, fore.green, fore.blue))
            light, dark = sorted((ours, _luminance(back)), reverse=True)
            assert (light + 0.05) / (dark + 0.05) >= 3.0, (theme, role, fore, back)


async def test_replies_sent_with_tracing_on_while_the_view_was_closed_are_not_said_untraced() -> None:
    """R18: with Tracing switched on, a reply sent while the Trace tab was closed read
    "(Tracing was off for them)": it was on, only its tree was off."""
    from textual.widgets import Static

    app, _ = _app(["First done.", "Second done."], tracing_on=True)
    async with app.run_test(size=SIZE) as pilot:
        await send(pilot, "first question")
        await wait_for(pilot, lambda: not app.busy)
        await send(pilot, "/trace")
        await wait_for(pilot, lambda: len(app.trace_view.span_tree.root.children) == 1)

        def note() -> str:
            return str(app.trace_view.query_one("#trace-note", Static).content)

        def says(words: str) -> None:
            assert words in note(), note()

        await eventually(pilot, lambda: says("Tracing was on"))
        assert "Tracing was off for them" not in note()
        await pilot.press("f2")  # closed again; Tracing now switched off by the user
        app.agent.middleware.set_enabled("Tracing", False)
        await send(pilot, "second question")
        await wait_for(pilot, lambda: not app.busy)
        await send(pilot, "/trace")
        await eventually(pilot, lambda: says("and off for some of them"))
