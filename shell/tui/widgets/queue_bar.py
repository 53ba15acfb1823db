"""Messages typed while a reply runs: shown above the prompt until they are sent."""

from __future__ import annotations

from rich.text import Text
from textual.widgets import Static

from shell.core.textsafety import sanitize


class QueueBar(Static):
    """Hidden while empty; lists what will be sent after the current reply."""

    DEFAULT_CSS = """
    QueueBar { height: auto; max-height: 5; padding: 0 1; color: $text-muted; display: none; }
    QueueBar.-shown { display: block; }
    """

    def show_queue(self, items: list[str]) -> None:
        text = Text()
        for i, item in enumerate(items, 1):
            line = sanitize(item).replace("\n", " ⏎ ")
            text.append(f"queued {i}: {line[:100]}\n")
        text.rstrip()
        self.update(text)
        self.set_class(bool(items), "-shown")
