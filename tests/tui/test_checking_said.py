"""While a call's permission check runs long (a worker thread reading files, running git),
its span says so ("checking permission…") instead of nothing, and says it no more once the
check has ended; the questions of the turn's calls still reach the dialog in the model's
order, however their checks end."""

from __future__ import annotations

import threading
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest

from middleware import asking_order
from middleware.human_in_the_loop import Verdict
from shell.core.messages import AssistantMessage, ToolCallBlock
from shell.core.tools import Tool
from shell.tui.app import AgentShellApp
from shell.tui.widgets.tool_span import ToolSpan

from .helpers import SIZE, approval_dialog, wait_for
from .test_permissions_tui import runtime

pytestmark = pytest.mark.anyio
WAIT = 15.0
"""Seconds a held check waits at most for the test to let it go (so a failure ends)."""


def title(app: AgentShellApp, call_id: str) -> str:
    return next((str(s.title) for s in app.query(ToolSpan) if s.state.call_id == call_id), "")


async def test_a_slow_check_is_said_on_its_span_and_the_questions_keep_the_models_order(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(asking_order, "ORDER_WAIT", 0.0)  # a call never reached holds nothing back
    reads = AssistantMessage((ToolCallBlock("c1", "read_file", {"path": ".env"}),
                              ToolCallBlock("c2", "read_file", {"path": "prod.env"})))
    rt = runtime(tmp_path, [reads, "Done."])  # both ask: files that usually hold secrets
    for name in (".env", "prod.env"):
        (rt.workspace.root / name).write_text("KEY=1\n")
    held = {".env": threading.Event(), "prod.env": threading.Event()}
    real = rt.permissions._decide

    def slow(tool: Tool, args: Mapping[str, Any]) -> Verdict:
        gate = held.get(str(args.get("path")))
        if gate is not None:
            gate.wait(WAIT)
        return real(tool, args)

    monkeypatch.setattr(rt.permissions, "_decide", slow)
    app = AgentShellApp(runtime=rt)
    try:
        async with app.run_test(size=SIZE) as pilot:
            await wait_for(pilot, lambda: app.ready)
            app.start_reply("read both")
            await wait_for(pilot, lambda: all("checking permission…" in title(app, c) for c in ("c1", "c2")))
            assert approval_dialog(app) is None
            held["prod.env"].set()  # the second call's check ends first...
            await wait_for(pilot, lambda: "— waiting" in title(app, "c2"))  # ...and it says so no more
            assert "checking permission…" in title(app, "c1") and approval_dialog(app) is None
            held[".env"].set()
            await wait_for(pilot, lambda: (d := approval_dialog(app)) is not None and bool(d.queue))
            dialog = approval_dialog(app)
            assert dialog is not None and dialog.queue[0].request.call.id == "c1"  # the model's order
            assert "awaiting approval" in title(app, "c1")
            await pilot.press("y")
            await wait_for(pilot, lambda: (d := approval_dialog(app)) is not None and bool(d.queue)
                           and d.queue[0].request.call.id == "c2")
            await pilot.press("y")
            await wait_for(pilot, lambda: not app.busy)
            reply = app.last_reply
            assert reply is not None and [reply.calls[c].status for c in ("c1", "c2")] == ["done", "done"]
    finally:
        for gate in held.values():
            gate.set()
