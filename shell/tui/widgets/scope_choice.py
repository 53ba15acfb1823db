"""``ScopeChoice``: where an "always" rule is kept (this session, this project,
everywhere), chosen with the arrow keys.

Textual's ``RadioSet`` moves a highlight with the arrows and chooses only on Enter
or Space; in the rule editor that let a user see "this project" highlighted and
save the rule for "this session" with Ctrl+S. Here what is highlighted is what is
chosen, like a segmented control.
"""

from __future__ import annotations

from textual.widgets import RadioSet


class ScopeChoice(RadioSet):
    """A radio set whose arrow keys press the button they move to."""

    def action_next_button(self) -> None:
        super().action_next_button()
        self.action_toggle_button()

    def action_previous_button(self) -> None:
        super().action_previous_button()
        self.action_toggle_button()
