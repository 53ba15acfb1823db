"""A message the user sent (or queued): plain text, never Markdown-interpreted."""

from __future__ import annotations

from rich.text import Text
from textual.widgets import Static

from shell.core.textsafety import sanitize


class UserMessage(Static):
    """Shown as typed: the user's text is not Markdown, so it is not rendered as such."""

    DEFAULT_CSS = """
    UserMessage {
        margin: 1 0 0 0;
        padding: 0 1;
        border-left: outer $primary;
        background: $boost;
        color: $foreground;
    }
    UserMessage.-queued { color: $text-muted; border-left: outer $panel; }
    """

    def __init__(self, text: str, *, queued: bool = False) -> None:
        super().__init__(Text(sanitize(text)), classes="-queued" if queued else "")
        self.text = text

    def mark_sent(self) -> None:
        self.remove_class("-queued")
