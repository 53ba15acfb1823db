"""What the approval dialog's answer boxes hold (edit the arguments, reject with a
reason, always allow by rules): built at their first use, so a dialog answered with
``y`` builds none of them. Kept apart from :mod:`.approval` so the dialog's logic
reads in one file."""

from __future__ import annotations

from textual.containers import Horizontal, Vertical
from textual.widget import Widget
from textual.widgets import Button, RadioButton, Static

from shell.core.approvals import RuleScope
from shell.tui.widgets.line_field import LineField
from shell.tui.widgets.scope_choice import ScopeChoice
from shell.tui.widgets.text_box import TextBox

SCOPES: tuple[tuple[RuleScope, str], ...] = (
    ("session", "this session"),
    ("project", "this project"),
    ("user", "everywhere (user config)"),
)
"""Where an "always" rule is kept, in the order the dialog offers them."""


def box_parts(mode: str) -> list[Widget]:
    """What the box of ``mode`` (edit, reject, always) holds."""
    if mode == "edit":
        return [
            Static("Edit the arguments (JSON). Ctrl+S runs the call with them, Esc goes back to the "
                   "question.", classes="hint"),
            TextBox(id="editor", language="json", soft_wrap=True, show_line_numbers=False),
            Vertical(id="edit-texts"),  # long text arguments, each in a box of its own (approval_fields)
            Static(id="edit-error"),
            Horizontal(
                Button("Run with these arguments (Ctrl+S)", id="submit-edit", variant="primary",
                       compact=True),
                Button("Back (Esc)", id="edit-back", compact=True),
            ),
        ]
    if mode == "reject":
        return [Static(id="reject-hint", classes="hint"), LineField(placeholder="reason", id="reason")]
    return [
        Static(
            "Allow from now on, by these rules (one per line; edit them to narrow or "
            "widen). Ctrl+S approves and remembers, Esc goes back.",
            classes="hint",
        ),
        TextBox(id="rules", soft_wrap=True, show_line_numbers=False),
        Static(id="rule-error"),
        ScopeChoice(*(RadioButton(label, value=i == 0) for i, (_, label) in enumerate(SCOPES)), id="scope"),
        Horizontal(
            Button("Approve and remember (Ctrl+S)", id="submit-always", variant="primary", compact=True),
            Button("Back (Esc)", id="always-back", compact=True),
        ),
    ]
