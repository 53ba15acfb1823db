"""What the next message will carry besides its words (images added by ``/image``):
a row of chips above the prompt, hidden while there is nothing."""

from __future__ import annotations

from collections.abc import Sequence

from rich.text import Text
from textual.widgets import Static

from shell.core.textsafety import sanitize_line


class AttachmentBar(Static):
    """Hidden while empty; ``/image clear`` empties it."""

    DEFAULT_CSS = """
    AttachmentBar { height: auto; max-height: 3; padding: 0 1; color: $text-muted; display: none; }
    AttachmentBar.-shown { display: block; }
    """

    def show_chips(self, chips: Sequence[str]) -> None:
        text = Text("next message: ")
        for chip in chips:
            text.append(f" ▣ {sanitize_line(chip)} ", style="reverse")
            text.append(" ")
        if chips:
            text.append("(/image clear drops)", style="dim")
        self.update(text)
        self.set_class(bool(chips), "-shown")
