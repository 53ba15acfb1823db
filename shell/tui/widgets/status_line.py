"""The status line: model (the demo clearly labelled), session tokens, state."""

from __future__ import annotations

from rich.text import Text
from textual.reactive import reactive
from textual.widgets import Static

STATES = {
    "starting": "starting…",
    "idle": "ready",
    "thinking": "thinking…",
    "streaming": "streaming…",
    "approval": "awaiting approval",
    "tool": "running tool…",
    "cancelling": "cancelling…",
}


class StatusLine(Static):
    """One line under the prompt; every field is a reactive so updates are cheap."""

    DEFAULT_CSS = """
    StatusLine { height: 1; padding: 0 1; background: $panel; color: $text-muted; }
    """

    model_label: reactive[str] = reactive("")
    state: reactive[str] = reactive("idle")
    tokens_in: reactive[int] = reactive(0)
    tokens_out: reactive[int] = reactive(0)
    queued: reactive[int] = reactive(0)

    def render(self) -> Text:
        text = Text()
        text.append(self.model_label, style="bold")
        text.append(f"  ·  ↑{self.tokens_in:,} ↓{self.tokens_out:,} tokens")
        text.append(f"  ·  {STATES.get(self.state, self.state)}")
        if self.queued:
            text.append(f"  ·  {self.queued} queued")
        return text
