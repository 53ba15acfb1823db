"""Ctrl+R: find a prompt you typed before (this run or an earlier one) and use it again.

Type words to narrow the list (every word must appear, any case); the newest
match is first and highlighted; Enter puts it in the prompt (to send or change),
Esc leaves the prompt as it was. The history is the one kept across runs
(:mod:`shell.frontend.prompt_history`: private, secrets redacted).
"""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Input, OptionList, Static
from textual.widgets.option_list import Option

from shell.core.textsafety import sanitize_line
from shell.frontend.prompt_history import PromptHistory
from shell.tui.widgets.line_field import LineField

SHOWN = 200


class HistorySearchScreen(ModalScreen[str | None]):
    """Dismissed with the prompt chosen, or None."""

    DEFAULT_CSS = """
    HistorySearchScreen { align: center middle; background: $background 60%; }
    HistorySearchScreen > #dialog { width: 90%; max-width: 110; height: 80%; border: thick $primary;
        background: $surface; padding: 0 1; }
    HistorySearchScreen Input { margin: 1 0 0 0; }
    HistorySearchScreen OptionList { height: 1fr; }
    HistorySearchScreen .hint { color: $text-muted; }
    """

    BINDINGS = [
        Binding("escape", "cancel", "Cancel"),
        Binding("down", "move(1)", show=False),
        Binding("up", "move(-1)", show=False),
        Binding("ctrl+r", "move(1)", "Older", show=False),
    ]

    def __init__(self, history: PromptHistory, query: str = "") -> None:
        super().__init__()
        self.history = history
        self.query_text = query
        self.matches: list[str] = []

    def compose(self) -> ComposeResult:
        with Vertical(id="dialog"):
            yield Static(Text("Search what you typed (Enter uses it, Esc cancels)"), classes="hint")
            yield LineField(value=self.query_text, placeholder="words to look for", id="query")
            yield OptionList(id="matches")

    def on_mount(self) -> None:
        self._fill(self.query_text)
        self.query_one(Input).focus()

    def on_input_changed(self, event: Input.Changed) -> None:
        event.stop()
        self._fill(event.value)

    def _fill(self, query: str) -> None:
        self.matches = self.history.search(query, limit=SHOWN)
        options = self.query_one(OptionList)
        options.clear_options()
        for text in self.matches:
            line = sanitize_line(" ".join(text.split()))
            options.add_option(Option(Text(line if len(line) <= 200 else line[:199] + "…")))
        if self.matches:
            options.highlighted = 0

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self._pick()

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        self.dismiss(self.matches[event.option_index])

    def _pick(self) -> None:
        highlighted = self.query_one(OptionList).highlighted
        self.dismiss(self.matches[highlighted] if self.matches and highlighted is not None else None)

    def action_move(self, step: int) -> None:
        options = self.query_one(OptionList)
        if not self.matches:
            return
        current = options.highlighted if options.highlighted is not None else -1
        options.highlighted = max(0, min(len(self.matches) - 1, current + step))

    def action_cancel(self) -> None:
        self.dismiss(None)
