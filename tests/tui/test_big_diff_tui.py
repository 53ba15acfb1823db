"""A write_file of a 100 000-line file with every other line changed (tester finding
I3): the approval dialog appears with a cut diff that says how much changed, and
Esc ends the reply. Before the diff was bounded the dialog never came (difflib ran
for many minutes) and Esc left the session at "cancelling…"."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from textual.widgets import Static

from shell.config import Settings
from shell.core.messages import AssistantMessage, ToolCallBlock
from shell.providers.scripted import ScriptedModel
from shell.runtime import RuntimeOptions, ShellRuntime
from shell.tui.app import AgentShellApp
from shell.tui.widgets.notice_line import NoticeLine

from .helpers import approval_dialog, send, wait_for

pytestmark = pytest.mark.anyio
LINES = 100_000


def _runtime(tmp_path: Path, turns: list[Any]) -> ShellRuntime:
    ws = tmp_path / "ws"
    ws.mkdir(exist_ok=True)
    return ShellRuntime.create(
        RuntimeOptions(cwd=str(ws), record=False),
        settings=Settings(path=tmp_path / "config.toml"),
        model=ScriptedModel(turns),
    )


async def test_a_huge_rewrite_is_asked_with_a_cut_diff_and_escape_ends_the_reply(tmp_path: Path) -> None:
    old = "".join(f"line {i} original\n" for i in range(LINES))
    new = "".join(f"line {i} {'CHANGED' if i % 2 == 0 else 'original'}\n" for i in range(LINES))
    write = AssistantMessage((ToolCallBlock("c1", "write_file", {"path": "big.txt", "content": new}),))
    rt = _runtime(tmp_path, [write, "never reached"])
    (rt.workspace.root / "big.txt").write_text(old)
    app = AgentShellApp(runtime=rt)
    async with app.run_test(size=(100, 30)) as pilot:
        await send(pilot, "rewrite it")
        await wait_for(pilot, lambda: approval_dialog(app) is not None, timeout=60)  # old code: never
        dialog = approval_dialog(app)
        assert dialog is not None
        preview_cut = lambda: "cut here" in str(dialog.query_one("#preview", Static).render())  # noqa: E731
        await wait_for(pilot, preview_cut, timeout=60)
        preview = str(dialog.query_one("#preview", Static).render())
        assert "-line 0 original" in preview and "+line 0 CHANGED" in preview
        assert "50000 lines removed and 50000 added in all" in " ".join(preview.split())
        await pilot.press("escape")
        await wait_for(pilot, lambda: not app.busy and approval_dialog(app) is None, timeout=60)
        assert "Reply cancelled." in [n.text for n in app.query(NoticeLine)]
    assert (rt.workspace.root / "big.txt").read_text() == old  # nothing was written
