"""The rewind dialog (``/rewind``, or Esc Esc on an empty prompt).

The messages you sent in this conversation, newest at the bottom (and
highlighted); moving through them shows, below, what going back to just before
that one would change: messages removed, files put back or removed, commands
that cannot be undone. The list stops at its ends (it does not wrap: Down on
the newest message stays there, so a stray key press never lands on the oldest).

Choosing is two steps, whatever the rewind touches: ``b`` (or Enter) the
conversation and the files, ``c`` the conversation only, ``f`` the files only
first ask, in one line, what that drops (your messages by their text, the
replies, the files that go back), and only Enter (or ``y``) on that question
rewinds; Esc (or ``n``) goes back to the list, Esc there leaves everything as it
is. A rewind has no undo, and a conversation dropped by one stray Enter was
gone (finding: "Down Down Enter" rewound two messages further than meant). The
app does the rewind (through the same path as ``/rewind N WHAT``) and puts your
message back in the prompt.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Button, Markdown, Static
from textual.widgets.option_list import Option
from textual.worker import get_current_worker

from shell.core.textsafety import sanitize_line

from ..linkopen import open_link
from ..widgets.chat_markdown import shared_parser
from ..widgets.stopping_list import StoppingOptionList

if TYPE_CHECKING:
    from shell.rewind import RewindPlan, TurnRow
    from shell.runtime import ShellRuntime

Choice = tuple[int, str]
"""``(position in the list, 1-based; "both" | "conversation" | "files")``."""

HINT = ("Nothing changes until you confirm. b or Enter: conversation and files · c: conversation only · "
        "f: files only · Esc: cancel")
ASK_HINT = "Enter or y: rewind · Esc or n: back to the list"


class RewindScreen(ModalScreen["Choice | None"]):
    """Dismissed with the message chosen and what to rewind, or None."""

    DEFAULT_CSS = """
    RewindScreen { align: center middle; background: $background 60%; }
    RewindScreen > #dialog { width: 90%; max-width: 120; height: 90%; border: thick $primary;
        background: $surface; padding: 0 1; }
    RewindScreen #title { text-style: bold; }
    RewindScreen OptionList { height: 1fr; max-height: 14; margin: 1 0 0 0; }
    RewindScreen #preview { height: 1fr; background: $panel; margin: 1 0 0 0; }
    RewindScreen #ask { display: none; color: $warning; text-style: bold; margin: 1 0 0 0; }
    RewindScreen .hint { color: $text-muted; }
    RewindScreen Horizontal { height: auto; margin: 1 0 0 0; }
    RewindScreen #sure { display: none; }
    RewindScreen.asking #ask, RewindScreen.asking #sure { display: block; }
    RewindScreen.asking #choices { display: none; }
    RewindScreen Button { margin: 0 1 0 0; }
    RewindScreen.-narrow #choices { display: none; }
    RewindScreen.-short OptionList { min-height: 3; }
    """
    HORIZONTAL_BREAKPOINTS = [(0, "-narrow"), (72, "-wide")]
    """Below 72 columns the four choice buttons were cut off at the dialog's edge ("Fi"):
    there the hint above them, which names the same keys, stands alone."""
    VERTICAL_BREAKPOINTS = [(0, "-short"), (30, "-tall")]
    """On a short screen the question pushed the list to no rows at all."""

    BINDINGS = [
        Binding("escape", "cancel", "Cancel"),
        Binding("b", "choose('both')", "Both", show=False),
        Binding("c", "choose('conversation')", "Conversation", show=False),
        Binding("f", "choose('files')", "Files", show=False),
        Binding("y", "confirm", "Rewind", show=False),
        Binding("n", "back", "Back", show=False),
    ]

    def __init__(self, runtime: ShellRuntime, rows: list[TurnRow]) -> None:
        super().__init__()
        self.runtime = runtime
        self.rows = rows
        self._plans: dict[int, str] = {}  # position → its preview, once worked out
        self._found: dict[int, RewindPlan] = {}  # position → its plan, when it could be worked out
        self._planning: set[int] = set()
        self.asked: Choice | None = None
        """The choice the question below the preview is about (None: choosing in the list)."""

    def compose(self) -> ComposeResult:
        from shell.rewind import when

        options = []
        for i, row in enumerate(self.rows, 1):
            label = Text.assemble((f"{i:>2}. ", "bold"), (f"{when(row.at):>5}  ", "dim"),
                                  sanitize_line(row.line(70)), (row.did, "dim"))
            options.append(Option(label, id=str(i)))
        with Vertical(id="dialog"):
            yield Static(Text("Rewind to just before one of your messages"), id="title")
            yield StoppingOptionList(*options, id="turns")
            with VerticalScroll(id="preview"):
                yield Markdown("", id="plan", parser_factory=shared_parser, open_links=False)
            yield Static("", id="ask")
            yield Static(Text(HINT), classes="hint", id="hint")
            with Horizontal(id="choices"):
                yield Button("Conversation and files", id="both", variant="primary", compact=True)
                yield Button("Conversation only", id="conversation", compact=True)
                yield Button("Files only", id="files", compact=True)
                yield Button("Cancel", id="cancel", compact=True)
            with Horizontal(id="sure"):
                yield Button("Rewind", id="yes", variant="warning", compact=True)
                yield Button("Back to the list", id="back", compact=True)

    def on_mount(self) -> None:
        turns = self.query_one(StoppingOptionList)
        turns.highlighted = len(self.rows) - 1
        turns.focus()
        self._show(len(self.rows))

    @property
    def position(self) -> int:
        highlighted = self.query_one(StoppingOptionList).highlighted
        return (highlighted if highlighted is not None else len(self.rows) - 1) + 1

    def on_markdown_link_clicked(self, event: Markdown.LinkClicked) -> None:
        """A link in the plan (a message's text can hold one) opens as the policy says."""
        event.stop()
        open_link(self, event.href)

    def on_option_list_option_highlighted(self, event: StoppingOptionList.OptionHighlighted) -> None:
        event.stop()
        self._show(event.option_index + 1)

    def on_option_list_option_selected(self, event: StoppingOptionList.OptionSelected) -> None:
        event.stop()
        self._ask(event.option_index + 1, "both")

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
            plan = plan_rewind(self.runtime, self.rows[position - 1].number)
            text = plan.describe(position)
            self._found[position] = plan
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
            if self.asked is not None:
                self._ask(*self.asked)  # the question, now with what it drops

    # -- choosing, then the question ---------------------------------------------------------------
    def _ask(self, position: int, what: str) -> None:
        """Ask, in one line, what the rewind would drop; Enter on it does it."""
        self.asked = (position, what)
        plan = self._found.get(position)
        if plan is None and position in self._plans:  # worked out, and it could not be: say so
            said = f"Rewind to before message {position}? {self._plans[position]}"
        elif plan is None:
            said = f"Rewind to before message {position}? Working out what it would drop…"
        else:
            from shell.rewind import ask_text

            said = ask_text(plan, what, self.rows[position - 1:], position)
        self.query_one("#ask", Static).update(Text(said))
        self.query_one("#hint", Static).update(Text(ASK_HINT))
        self.query_one(StoppingOptionList).disabled = True  # the arrows no longer move the choice
        self.add_class("asking")
        self.query_one("#yes", Button).focus()

    def action_back(self) -> None:
        """From the question back to the list, nothing changed."""
        if self.asked is None:
            return
        self.asked = None
        self.remove_class("asking")
        self.query_one("#hint", Static).update(Text(HINT))
        turns = self.query_one(StoppingOptionList)
        turns.disabled = False
        turns.focus()

    def action_confirm(self) -> None:
        if self.asked is not None:
            self.dismiss(self.asked)

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        button = event.button.id or "both"
        if button == "cancel":
            self.dismiss(None)
        elif button == "yes":
            self.action_confirm()
        elif button == "back":
            self.action_back()
        else:
            self._ask(self.position, button)

    def action_choose(self, what: str) -> None:
        if self.asked is None:
            self._ask(self.position, what)
        else:  # another letter on the question: the question for that one
            self._ask(self.asked[0], what)

    def action_cancel(self) -> None:
        if self.asked is not None:
            self.action_back()
        else:
            self.dismiss(None)
