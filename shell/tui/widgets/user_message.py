"""A message the user sent (or queued): plain text, never Markdown-interpreted, and
a chip for each thing it carried (``@`` files and folders, images)."""

from __future__ import annotations

from rich.text import Text
from textual.widgets import Static

from shell.core.textsafety import sanitize, sanitize_line
from shell.frontend.paste import shown_part


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

    def __init__(self, text: str, *, queued: bool = False, chips: tuple[str, ...] = ()) -> None:
        super().__init__(render(text, chips), classes="-queued" if queued else "")
        self.text = text
        self.chips = chips

    def mark_sent(self) -> None:
        self.remove_class("-queued")


def render(text: str, chips: tuple[str, ...]) -> Text:
    """The words (a long paste: its first lines and how much more was sent), then the
    chips on their own lines (an image's a small block)."""
    head, more = shown_part(text)
    out = Text(sanitize(head))
    if more:
        out.append("\n")
        out.append(f" ▤ {more} ", style="reverse dim")
    for chip in chips:
        if out.plain:
            out.append("\n")
        image = chip.startswith("image")
        out.append(f" {'▣' if image else '▤'} ", style="reverse bold")
        out.append(f" {sanitize_line(chip)} ", style="reverse" if image else "reverse dim")
    return out
