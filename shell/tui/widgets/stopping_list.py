"""An option list whose cursor stops at its ends instead of wrapping around.

Textual's ``OptionList`` wraps: Down on the last option highlights the first. In
a list where Enter acts on the highlighted entry (the rewind dialog, whose newest
message is highlighted at the start) that turned "Down, Down, Enter", pressed to
stay at the bottom, into a choice two entries from the top.
"""

from __future__ import annotations

from textual.widgets import OptionList


class StoppingOptionList(OptionList):
    """``OptionList`` with Up on the first option and Down on the last doing nothing."""

    def action_cursor_up(self) -> None:
        if self.highlighted is None or self.highlighted > 0:
            super().action_cursor_up()

    def action_cursor_down(self) -> None:
        if self.highlighted is None or self.highlighted < self.option_count - 1:
            super().action_cursor_down()
