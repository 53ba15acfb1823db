"""The approval dialog's edit view fits the dialog (finding B3): at 80x24 (the default
terminal) and 60x20 the JSON box and a long text's box filled it, the validity line and
the Run/Back buttons were below its edge, and Ctrl+S on invalid JSON showed nothing.
The text boxes share the room the rest leaves."""

from __future__ import annotations

from typing import Any

import pytest
from textual.widget import Widget
from textual.widgets import Static, TextArea

from shell.agent import AssistantMessage, ToolCallBlock

from .helpers import AskEverything, ask_dialog, scripted_app, wait_for

pytestmark = pytest.mark.anyio

LONG = "".join(f"line {i}: some words of the file\n" for i in range(300))


def _visible(app: Any, widget: Widget) -> bool:
    """Whether ``widget`` is what the screen shows at its first and last row (not
    hidden below the dialog's edge or under another widget)."""
    region = widget.region
    if not region.height:
        return False
    for y in (region.y, region.bottom - 1):
        try:
            found, _ = app.screen.get_widget_at(region.x + 1, y)
        except Exception:
            return False
        if found is not widget and widget not in found.ancestors_with_self:
            return False
    return True


@pytest.mark.parametrize("size", [(80, 24), (60, 20)])
async def test_the_validity_line_and_the_buttons_stay_on_screen_with_a_long_text(
    size: tuple[int, int]
) -> None:
    call = ToolCallBlock("c1", "write_note", {"path": "long.txt", "text": LONG})
    app, _, _ = scripted_app([AssistantMessage((call,)), "done"], middleware=[AskEverything()])
    async with app.run_test(size=size) as pilot:
        dialog = await ask_dialog(app, pilot)
        dialog.quiet_until = 0
        await pilot.press("e")
        editor = dialog.query_one("#editor", TextArea)
        await wait_for(pilot, lambda: editor.has_focus)
        await pilot.pause()
        await pilot.pause()
        error = dialog.query_one("#edit-error", Static)
        for part in (error, dialog.query_one("#submit-edit"), dialog.query_one("#edit-back"),
                     editor, dialog.query_one("#text-0")):
            assert _visible(app, part), (size, part.id, part.region, dialog.query_one("#dialog").region)
        editor.move_cursor((0, 1))
        await pilot.press("x")  # {x"path": … : not JSON
        await pilot.press("ctrl+s")
        await pilot.pause()
        await pilot.pause()
        assert "Not valid JSON" in str(error.content)
        assert _visible(app, error), (size, error.region)  # the refusal is seen
        assert _visible(app, dialog.query_one("#submit-edit"))
        assert dialog.mode == "edit"
