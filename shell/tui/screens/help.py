"""The help screen: keys and slash commands, one place to look them up."""

from __future__ import annotations

from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Static

KEYS = [
    ("Enter", "send the message (queued while a reply runs)"),
    ("Shift+Enter, Ctrl+J", "new line"),
    ("Up / Down", "history (on the first / last line)"),
    ("Page Up / Page Down", "scroll the conversation"),
    ("Esc", "cancel the reply in flight"),
    ("F2", "show or hide the middleware panel"),
    ("Ctrl+P", "command palette"),
    ("Ctrl+Q", "quit"),
    ("y / e / n / a", "approval dialog: approve, edit, reject, always allow"),
]


class HelpScreen(ModalScreen[None]):
    """Dismissed with Esc, q or F1."""

    DEFAULT_CSS = """
    HelpScreen { align: center middle; }
    HelpScreen > VerticalScroll { width: 90%; max-width: 100; height: auto; max-height: 90%;
        border: thick $primary; background: $surface; padding: 0 1; }
    """

    BINDINGS = [Binding("escape,q,f1", "dismiss", "Close")]

    def __init__(self, commands: list[tuple[str, str]]) -> None:
        super().__init__()
        self.commands = commands

    def compose(self) -> ComposeResult:
        keys = Table(title="Keys", show_header=False, box=None, expand=True)
        keys.add_column(style="bold", no_wrap=True)
        keys.add_column()
        for key, what in KEYS:
            keys.add_row(Text(key), Text(what))
        commands = Table(title="Slash commands", show_header=False, box=None, expand=True)
        commands.add_column(style="bold", no_wrap=True)
        commands.add_column()
        for name, what in self.commands:  # Text: "/model [list | SPEC]" is not markup
            commands.add_row(Text(name), Text(what))
        with VerticalScroll():
            yield Static(keys)
            yield Static(commands)
            yield Static("Esc closes this help.")

    async def action_dismiss(self, result: None = None) -> None:
        self.dismiss(result)
