"""Snapshot tests (pytest-textual-snapshot): the main screen, the panel, the dialog.

Deterministic by construction: fixed terminal size, a scripted model, no clocks in
view (durations of instant tools show as 0.0s; the panel is shown before any hook
has run) and the blinking cursor switched off.
"""

from __future__ import annotations

from typing import Any

from shell.agent import AssistantMessage, TextBlock, ThinkingBlock, ToolCallBlock
from shell.tui.app import AgentShellApp
from shell.tui.screens.approval import ApprovalScreen

from .helpers import AskEverything, Shout, Speaker, frame_drawn, make_agent, wait_for

SIZE = (100, 34)
REPLY = """# Plan

I will **read** the note, then summarise it:

1. read `notes.txt`
2. reply with a summary

```python
print("hello")
```
"""


def _app(turns: list[Any], middleware: list[Any]) -> AgentShellApp:
    agent, _ = make_agent(turns, middleware=middleware)
    return AgentShellApp(agent, model_label="scripted (test model)")


async def _ready(pilot: Any) -> None:
    """The snapshot harness starts before the main screen has composed: wait for it."""
    await wait_for(pilot, lambda: pilot.app.ready and pilot.app.main.is_attached)
    await pilot.pause()
    pilot.app.prompt.cursor_blink = False


async def _send(pilot: Any, text: str) -> None:
    await _ready(pilot)
    await pilot.press(*text, "enter")


def test_main_screen(snap_compare: Any) -> None:
    turns = [
        AssistantMessage(
            (
                ThinkingBlock("The user wants a summary."),
                TextBlock(REPLY),
                ToolCallBlock("c1", "read_note", {"path": "notes.txt"}),
            )
        ),
        "The note says hello.",
    ]
    app = _app(turns, [Speaker()])

    async def run_before(pilot: Any) -> None:
        await _send(pilot, "summarise notes.txt")
        await wait_for(pilot, lambda: not app.busy)
        for span in app.query("ToolSpan"):
            span.state.duration_s = 0.0
            span.update_state()
        await frame_drawn(pilot)

    assert snap_compare(app, terminal_size=SIZE, run_before=run_before)


def test_middleware_panel(snap_compare: Any) -> None:
    app = _app([], [Shout(), Speaker(), AskEverything()])

    async def run_before(pilot: Any) -> None:
        await _ready(pilot)
        await pilot.press("f2")
        await wait_for(pilot, lambda: pilot.app.panel.loaded)
        await frame_drawn(pilot)

    assert snap_compare(app, terminal_size=SIZE, run_before=run_before)


def test_approval_dialog(snap_compare: Any) -> None:
    turn = AssistantMessage(
        (
            # read-only calls run in parallel, so both approvals are pending at once
            ToolCallBlock("c1", "read_note", {"path": "a.txt"}),
            ToolCallBlock("c2", "read_note", {"path": "b.txt"}),
        )
    )
    app = _app([turn, "done"], [AskEverything()])

    async def run_before(pilot: Any) -> None:
        await _send(pilot, "read two notes")
        await wait_for(pilot, lambda: isinstance(app.screen, ApprovalScreen) and app.screen.is_mounted
                       and len(app.approvals.queue) == 2)
        await frame_drawn(pilot)

    assert snap_compare(app, terminal_size=SIZE, run_before=run_before)


def test_trace_tab(snap_compare: Any) -> None:
    """The Trace tab after a reply with a tool call; every span's clock is fixed
    before the view first draws it, so the durations are the same on every run."""
    from middleware.tracing import Tracing

    turn = AssistantMessage((TextBlock("Reading."), ToolCallBlock("c1", "read_note", {"path": "notes.txt"})))
    tracing = Tracing(tree=True)
    app = _app([turn, "The note says hello."], [tracing, Shout()])

    async def run_before(pilot: Any) -> None:
        await _send(pilot, "read notes.txt")
        await wait_for(pilot, lambda: not app.busy)
        root = tracing.traces[-1]
        for i, span in enumerate(root.walk()):
            span.start, span.end = 100.0 + i, 100.5 + i * 1.25
        root.start, root.end = 100.0, 104.75
        for key in [k for k in root.attributes if k.startswith("agent_shell.middleware.")]:
            root.attributes[key] = 0.0012
        app.trace_view.clock = lambda: 200.0
        from shell.tui.widgets.tool_span import ToolSpan

        for span_widget in app.query(ToolSpan):  # the tool's own time varies with the machine's load
            span_widget.state.duration_s = 0.01
            span_widget.update_state()
        await _send(pilot, "/trace")
        tree = app.trace_view.span_tree
        await wait_for(pilot, lambda: bool(tree.root.children) and bool(tree.root.children[0].children))
        tree.root.children[0].children[-1].expand()  # the middleware times
        await frame_drawn(pilot)

    assert snap_compare(app, terminal_size=SIZE, run_before=run_before)
