"""The question before a link that is not a plain web address opens.

It shows the whole target, made visible (see :mod:`shell.frontend.linkopen`), and
why it asks. "Don't open" has the focus and Esc answers it: an Enter or a ``y``
typed for the prompt must not open ``vscode://…`` or ``file://…``. The buttons
take no input for a moment after the dialog opens, as the trust question's do.
"""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import Button, Static

from shell.frontend.linkopen import LinkTarget

SETTLE_S = 0.4
"""Buttons ignore input this long after the dialog opens (keys meant for the prompt)."""


class OpenLinkScreen(ModalScreen[bool]):
    """Dismissed with True (open it) or False (leave it)."""

    DEFAULT_CSS = """
    OpenLinkScreen { align: center middle; background: $background 60%; }
    OpenLinkScreen > #dialog { width: 90%; max-width: 110; height: auto; max-height: 90%;
        border: thick $warning; background: $surface; padding: 0 1; }
    OpenLinkScreen #title { text-style: bold; color: $warning; }
    OpenLinkScreen #target { height: auto; max-height: 12; background: $panel; margin: 1 0; }
    OpenLinkScreen Horizontal { height: auto; margin: 1 0 0 0; }
    OpenLinkScreen Button { margin: 0 1 0 0; }
    """

    BINDINGS = [Binding("escape", "leave", "Don't open")]

    def __init__(self, target: LinkTarget) -> None:
        super().__init__()
        self.target = target

    def compose(self) -> ComposeResult:
        with Vertical(id="dialog"):
            yield Static(Content("Open this link?"), id="title")
            with VerticalScroll(id="target", can_focus=False):  # the mouse wheel scrolls it
                yield Static(Content(self.target.shown), id="url")
            yield Static(Content(" ".join(self.target.reasons)), id="reasons")
            with Horizontal():
                yield Button("Don't open", id="leave", compact=True, disabled=True)
                yield Button("Open", id="open", variant="warning", compact=True, disabled=True)

    def on_mount(self) -> None:
        self.set_timer(SETTLE_S, self._settle)

    def _settle(self) -> None:
        for button in self.query(Button):
            button.disabled = False
        self.call_after_refresh(self.query_one("#leave", Button).focus)

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        self.dismiss(event.button.id == "open")

    def action_leave(self) -> None:
        self.dismiss(False)
