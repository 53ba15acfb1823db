"""The rewind dialog (``/rewind``, or Esc Esc on an empty prompt).

The messages you sent in this conversation, newest at the bottom (and
highlighted); moving through them shows, below, what going back to just before
that one would change: messages removed, files put back or removed, commands
that cannot be undone. Nothing changes until you choose: ``b`` (or Enter) the
conversation and the files, ``c`` the conversation only, ``f`` the files only;
Esc leaves everything as it is. The app does the rewind (through the same path
as ``/rewind N WHAT``) and puts your message back in the prompt.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Button, Markdown, OptionList, Static
from textual.widgets.option_list import Option
from textual.worker import get_current_worker

from shell.core.textsafety import sanitize_line

from ..widgets.chat_markdown import shared_parser

if TYPE_CHECKING:
    from shell.rewind import TurnRow
    from shell.runtime import ShellRuntime

Choice = tuple[int, str]
"""``(position in the list, 1-based; "both" | "conversation" | "files")``."""


class RewindScreen(ModalScreen["Choice | None"]):
    """Dismissed with the message chosen and what to rewind, or None."""

    DEFAULT_CSS = """
    RewindScreen { align: center middle; background: $background 60%; }
    RewindScreen > #dialog { width: 90%; max-width: 120; height: 90%; border: thick $primary;
        background: $surface; padding: 0 1; }
    RewindScreen #title { text-style: bold; }
    RewindScreen OptionList { height: 1fr; max-height: 14; margin: 1 0 0 0; }
    RewindScreen #preview { height: 1fr; background: $panel; margin: 1 0 0 0; }
    RewindScreen .hint { color: $text-muted; }
    RewindScreen Horizontal { height: auto; margin: 1 0 0 0; }
    RewindScreen Button { margin: 0 1 0 0; }
    """

    BINDINGS = [
        Binding("escape", "cancel", "Cancel"),
        Binding("b", "choose('both')", "Both", show=False),
        Binding("c", "choose('conversation')", "Conversation", show=False),
        Binding("f", "choose('files')", "Files", show=False),
    ]

    def __init__(self, runtime: ShellRuntime, rows: list[TurnRow]) -> None:
        super().__init__()
        self.runtime = runtime
        self.rows = rows
        self._plans: dict[int, str] = {}  # position → its preview, once worked out
        self._planning: set[int] = set()

    def compose(self) -> ComposeResult:
        from shell.rewind import when

        options = []
        for i, row in enumerate(self.rows, 1):
            label = Text.assemble((f"{i:>2}. ", "bold"), (f"{when(row.at):>5}  ", "dim"),
                                  sanitize_line(row.line(70)), (row.did, "dim"))
            options.append(Option(label, id=str(i)))
        with Vertical(id="dialog"):
            yield Static(Text("Rewind to just before one of your messages"), id="title")
            yield OptionList(*options, id="turns")
            with VerticalScroll(id="preview"):
                yield Markdown("", id="plan", parser_factory=shared_parser)
            yield Static(Text("Nothing changes until you choose. b or Enter: conversation and files · "
                              "c: conversation only · f: files only · Esc: cancel"), classes="hint")
            with Horizontal():
                yield Button("Conversation and files", id="both", variant="primary", compact=True)
                yield Button("Conversation only", id="conversation", compact=True)
                yield Button("Files only", id="files", compact=True)
                yield Button("Cancel", id="cancel", compact=True)

    def on_mount(self) -> None:
        turns = self.query_one(OptionList)
        turns.highlighted = len(self.rows) - 1
        turns.focus()
        self._show(len(self.rows))

    @property
    def position(self) -> int:
        highlighted = self.query_one(OptionList).highlighted
        return (highlighted if highlighted is not None else len(self.rows) - 1) + 1

    def on_option_list_option_highlighted(self, event: OptionList.OptionHighlighted) -> None:
        event.stop()
        self._show(event.option_index + 1)

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        self.dismiss((event.option_index + 1, "both"))

    def _show(self, position: int) -> None:
        """The preview of going back to ``position``: worked out in a thread (it reads
        every changed file and its kept copy, and after a resume the session file), once
        per position, so holding an arrow key never freezes the dialog."""
        text = self._plans.get(position)
        if text is None:
            text = "*Working out what this would change…*"
            if position not in self._planning:
                self._planning.add(position)
                self._plan(position)
        self.query_one("#plan", Markdown).update(text)

    @work(thread=True, group="rewind-plan")
    def _plan(self, position: int) -> None:
        from shell.rewind import RewindError, plan_rewind

        try:
            text = plan_rewind(self.runtime, self.rows[position - 1].number).describe()
        except (RewindError, IndexError) as exc:
            text = str(exc)
        except OSError as exc:  # a changed file that cannot be read now
            text = f"Could not work out what this would change: {exc}"
        self._plans[position] = text
        if not get_current_worker().is_cancelled:  # cancelled: the dialog has closed
            self.app.call_from_thread(self._planned, position)

    def _planned(self, position: int) -> None:
        if self.is_attached and self.position == position:
            self.query_one("#plan", Markdown).update(self._plans[position])

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        if event.button.id == "cancel":
            self.dismiss(None)
        else:
            self.dismiss((self.position, event.button.id or "both"))

    def action_choose(self, what: str) -> None:
        self.dismiss((self.position, what))

    def action_cancel(self) -> None:
        self.dismiss(None)
