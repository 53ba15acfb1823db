"""A notice or an error, inline in the conversation.

An error a middleware raised names it and offers a button that switches it off,
so the user can carry on without it (DESIGN: "the shell offers to disable it").
"""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Horizontal
from textual.message import Message
from textual.widgets import Button, Static

from shell.core.textsafety import sanitize


class NoticeLine(Horizontal):
    """``level`` is info, warning or error; ``middleware`` names the culprit, if any."""

    DEFAULT_CSS = """
    NoticeLine { height: auto; margin: 1 0 0 0; padding: 0 1; }
    NoticeLine > Static { width: 1fr; color: $text-muted; }
    NoticeLine.-warning > Static { color: $warning; }
    NoticeLine.-error { border-left: outer $error; }
    NoticeLine.-error > Static { color: $error; }
    NoticeLine Button { height: 1; min-width: 12; }
    """

    class DisableMiddleware(Message):
        """The user asked to switch ``name`` off from an error line."""

        def __init__(self, name: str) -> None:
            super().__init__()
            self.name = name

    def __init__(self, level: str, text: str, *, middleware: str | None = None) -> None:
        super().__init__(classes=f"-{level}")
        self.level = level
        self.text = text
        self.middleware = middleware

    def compose(self) -> ComposeResult:
        icon = {"error": "✗ ", "warning": "! "}.get(self.level, "· ")
        yield Static(Text(icon + sanitize(self.text)))
        if self.middleware:
            yield Button(f"Switch off {self.middleware}", id="disable-mw", compact=True, variant="error")

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        if self.middleware:
            self.post_message(self.DisableMiddleware(self.middleware))
            event.button.disabled = True
            event.button.label = f"{self.middleware} is off"
