"""The approval dialog's list of what a shell line runs shows each word as bash
reads it (findings 15): a lone CR inside a command was drawn as a space, so
``touch PWNED3\\rls -la`` read as ``touch PWNED3 ls -la``, arguments bash never
sees; and the warning spoke of "the change", as for a file edit."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.widget import Widget

from shell.tui.app import AgentShellApp

from .helpers import ask_dialog
from .test_permissions_tui import call, runtime

pytestmark = pytest.mark.anyio


def drawn(app: AgentShellApp) -> str:
    lines = []
    for widget in app.screen.query(Widget):
        lines += [widget.render_line(y).text for y in range(widget.size.height)]
    return "\n".join(line.rstrip() for line in lines)


async def test_a_lone_cr_in_a_command_is_drawn_and_never_splits_its_word(tmp_path: Path) -> None:
    command = "echo a\r; touch PWNED3\rls -la"
    rt = runtime(tmp_path, [call("run_shell", command=command), "Done."])
    app = AgentShellApp(runtime=rt)
    async with app.run_test(size=(140, 50)) as pilot:
        await ask_dialog(app, pilot, "go")
        await pilot.pause()
        screen = drawn(app)
    assert "2. touch PWNED3␍ls -la" in screen
    assert "PWNED3 ls" not in screen
    assert "The command holds 2 control characters" in screen
    assert "The change holds" not in screen


async def test_a_cr_before_a_line_break_in_a_command_is_drawn_too(tmp_path: Path) -> None:
    """To bash ``touch x\\r`` makes a file named ``x\\r``: the display's CRLF rule (a
    line end in a file's text) must not hide that CR in a command."""
    rt = runtime(tmp_path, [call("run_shell", command="touch x\r\necho ok"), "Done."])
    app = AgentShellApp(runtime=rt)
    async with app.run_test(size=(140, 50)) as pilot:
        await ask_dialog(app, pilot, "go")
        await pilot.pause()
        screen = drawn(app)
    assert "1. touch x␍" in screen
    assert "The command holds a control character (␍)" in screen
