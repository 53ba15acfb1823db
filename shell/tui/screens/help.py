"""The help screen: keys and slash commands, one place to look them up.

Typing does not stop at it: a printable key closes the help and goes to the
prompt (someone who opened /help, read, and typed ``/tools`` lost every key until
Esc, with no hint), and so does whatever comes after it while the help closes.
"""

from __future__ import annotations

from rich.table import Table
from rich.text import Text
from textual import events
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Static

KEYS = [
    ("Enter", "send the message (queued while a reply runs)"),
    ("Ctrl+Enter, Alt+Enter", "steer: give the running reply this message at its next step"),
    ("Shift+Enter, Ctrl+J", "new line"),
    ("Up / Down", "history (on the first / last line)"),
    ("Ctrl+R", "search the prompt history"),
    ("Ctrl+G", "edit the prompt in $EDITOR"),
    ("@", "attach a file (a picker opens)"),
    ("Page Up / Page Down", "scroll the conversation"),
    ("Esc, Ctrl+C", "cancel the reply in flight (queued messages come back into the prompt)"),
    ("Esc Esc", "on an empty prompt: rewind the conversation and files"),
    ("Shift+Tab", "next permission mode (default, accept-edits, plan, auto)"),
    ("F2", "show or hide the middleware panel"),
    ("F1", "this help"),
    ("Ctrl+P", "command palette"),
    ("Ctrl+Q", "quit"),
    ("y / e / n / a", "approval dialog: approve, edit, reject, always allow"),
    ("Y / N", "approval dialog: approve this and the later calls to the same tool listed below it (each "
              "still checked by your rules; special cases still ask) / reject the rest"),
]


class HelpScreen(ModalScreen[None]):
    """Dismissed with Esc or F1, or by typing (the keys go on to the prompt)."""

    DEFAULT_CSS = """
    HelpScreen { align: center middle; }
    HelpScreen > VerticalScroll { width: 90%; max-width: 100; height: auto; max-height: 90%;
        border: thick $primary; background: $surface; padding: 0 1; }
    """

    BINDINGS = [Binding("escape,f1", "dismiss", "Close")]

    def __init__(self, commands: list[tuple[str, str]]) -> None:
        super().__init__()
        self.commands = commands
        self._leaving = False

    def compose(self) -> ComposeResult:
        keys = Table(title="Keys", show_header=False, box=None, expand=True)
        keys.add_column(style="bold", ratio=2)
        keys.add_column(ratio=3)
        for key, what in KEYS:
            keys.add_row(Text(key), Text(what))
        commands = Table(title="Slash commands", show_header=False, box=None, expand=True)
        # A usage line can be long (/permissions allow|ask|deny RULE [...]): it folds
        # in its own share of the width instead of squeezing the description to nothing.
        commands.add_column(style="bold", ratio=2, overflow="fold")
        commands.add_column(ratio=3)
        for name, what in self.commands:  # Text: "/model [list | SPEC]" is not markup
            commands.add_row(Text(name), Text(what))
        with VerticalScroll():
            yield Static(keys)
            yield Static(commands)
            yield Static("Esc closes this help; typing closes it and goes to the prompt.")

    def on_key(self, event: events.Key) -> None:
        """A printable key closes the help and goes back to the app, which gives it to
        the prompt as if typed there; once the help is closing, every key still
        queued here (Enter, Backspace…) follows it, in order."""
        if getattr(event, "typed_past_help", False) or not (event.is_printable or self._leaving):
            return
        event.stop()
        event.prevent_default()
        if not self._leaving:
            self._leaving = True
            self.dismiss(None)  # off the screen stack at once: the app sends keys below
        again = events.Key(event.key, event.character)
        again.typed_past_help = True  # type: ignore[attr-defined]
        self.app.post_message(again)

    async def action_dismiss(self, result: None = None) -> None:
        if not self._leaving:
            self._leaving = True
            self.dismiss(result)
