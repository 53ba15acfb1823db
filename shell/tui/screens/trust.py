"""The workspace trust question: may this repository's own config be used?

Shown once per workspace (and again when its config files change) before any of
its ``.mcp.json`` servers start. It lists every command line and URL in full, as
written. No letter key decides: the question appears while the user may still be
typing their first message, and a ``y`` meant for the prompt must not trust a
repository. The buttons take no input for a moment after the dialog opens;
"Not now" has the focus; Esc leaves the question for next time.
"""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import Button, Static

from shell.core.textsafety import sanitize as clean

SETTLE_S = 0.6
"""Buttons ignore input this long after the dialog opens (keys meant for the prompt)."""


class TrustScreen(ModalScreen[bool | None]):
    """Dismissed with True (trust), False (do not trust) or None (ask next time)."""

    DEFAULT_CSS = """
    TrustScreen { align: center middle; background: $background 60%; }
    TrustScreen > #dialog { width: 90%; max-width: 110; height: auto; max-height: 90%;
        border: thick $warning; background: $surface; padding: 0 1; }
    TrustScreen #title { text-style: bold; color: $warning; }
    TrustScreen #what { height: auto; max-height: 16; background: $panel; margin: 1 0; }
    TrustScreen .hint { color: $text-muted; }
    TrustScreen Horizontal { height: auto; margin: 1 0 0 0; }
    TrustScreen Button { margin: 0 1 0 0; }
    """

    BINDINGS = [Binding("escape", "later", "Ask next time")]

    def __init__(self, root: str, lines: list[str]) -> None:
        super().__init__()
        self.root = root
        self.lines = lines

    def compose(self) -> ComposeResult:
        with Vertical(id="dialog"):
            yield Static(Text("Trust this workspace?"), id="title")
            yield Static(
                Text(
                    f"{clean(self.root)} has its own agent-shell config. None of it is used until you "
                    "trust the workspace. Trusting it would apply (or ignore), file by file:"
                )
            )
            with VerticalScroll(id="what"):
                parts: list[str | tuple[str, str]] = []
                for i, line in enumerate(self.lines):
                    text = ("\n" if i else "") + f"• {clean(line)}"
                    unasked = line.startswith("! ")  # would run with no question: read this first
                    parts.append((text, "bold $warning") if unasked else text)
                yield Static(Content.assemble(*parts))
            yield Static(
                Text(
                    "Trust only a repository you know: its servers run as you, with your files. "
                    "You are asked again when any of these files changes.",
                ),
                classes="hint",
            )
            with Horizontal():
                yield Button("Not now", id="later", compact=True, disabled=True)
                yield Button("Don't trust", id="decline", compact=True, disabled=True)
                yield Button(
                    "Trust this workspace", id="trust", variant="warning", compact=True, disabled=True
                )

    def on_mount(self) -> None:
        self.set_timer(SETTLE_S, self._settle)

    def _settle(self) -> None:
        for button in self.query(Button):
            button.disabled = False
        self.query_one("#later", Button).focus()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        answer = {"trust": True, "decline": False}.get(event.button.id or "")
        self.dismiss(answer)

    def action_later(self) -> None:
        self.dismiss(None)
