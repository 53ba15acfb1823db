"""Keeping the flow in the TUI: steering, rewind, notifications, history, the editor, /copy.

One object the app owns (``app.flow``) and calls from a few places: a reply's
events (notifications; a steered message shown where it landed), the prompt's
keys (Ctrl+Enter or Alt+Enter steers; Esc Esc on an empty prompt opens the
rewind dialog; Ctrl+R searches the prompt history; Ctrl+G edits the prompt in
``$EDITOR``) and the end of a reply (a steer the reply could not take is sent
as the next message). The work itself is below the UI (:mod:`shell.rewind`,
:mod:`shell.frontend.notify`, :mod:`shell.frontend.clipboard`,
:mod:`shell.frontend.prompt_history`); this wires it to Textual.

Alt+Enter: terminals that cannot report Ctrl+Enter send ESC CR for Alt+Enter,
which Textual reads as a plain Enter; :func:`install_alt_enter` teaches its
parser that one sequence, so Alt+Enter steers there too.
"""

from __future__ import annotations

import contextlib
import time
from typing import TYPE_CHECKING, Any

from shell.core import events as ev
from shell.core.textsafety import sanitize_line
from shell.frontend.editor import edit_in_editor

if TYPE_CHECKING:
    from shell.frontend.clipboard import Copied
    from shell.frontend.notify import Notifier
    from shell.frontend.prompt_history import PromptHistory

    from .app import AgentShellApp

STEER_KEYS = "ctrl+enter,alt+enter"
DOUBLE_ESC_S = 0.6
"""Two Esc presses this close together (on an empty prompt, nothing running) open the rewind dialog."""


def install_alt_enter() -> None:
    """ESC CR (Alt+Enter in a terminal without an extended keyboard protocol) becomes
    the key ``alt+enter`` instead of a plain Enter."""
    from textual import _ansi_sequences

    class _Key:
        value = "alt+enter"

    table: Any = _ansi_sequences.ANSI_SEQUENCES_KEYS
    with contextlib.suppress(TypeError):  # a read-only mapping in some future Textual: Ctrl+Enter still works
        table.setdefault("\x1b\r", (_Key(),))


class Flow:
    """The app's steering, rewind, notifications, history, editor and copy."""

    def __init__(self, app: AgentShellApp) -> None:
        self.app = app
        self.history: PromptHistory | None = None
        self.notifier: Notifier | None = None
        self._escape_at = 0.0
        self.steered: list[str] = []
        """Steering messages sent to the reply in flight that have not landed yet."""

    # -- start ---------------------------------------------------------------------------
    def attach(self) -> None:
        """The runtime exists: load the prompt history, set up notifications, read the
        custom commands (so they complete)."""
        from shell.frontend.notify import Notifier, NotifySettings
        from shell.frontend.prompt_history import PromptHistory

        runtime = self.app.runtime
        self.history = PromptHistory(make_redactor=lambda: runtime.secrets)
        prompt = self.app.prompt
        earlier = self.history.entries()
        prompt.sent_history[:0] = [t for t in earlier if t not in prompt.sent_history[-1:]]
        problems: list[str] = []
        settings = NotifySettings.from_config(runtime.settings.extra.get("notifications"), problems)
        runtime.problems.extend(problems)
        self.notifier = Notifier(settings, lambda text: self.write(text))
        with contextlib.suppress(Exception):  # a broken command file is reported when it is used
            self.app.commands.refresh_custom(runtime)

    def write(self, text: str) -> None:
        """Put an escape sequence on the user's terminal (none in a headless test run)."""
        driver = getattr(self.app, "_driver", None)
        if driver is not None:
            driver.write(text)
            with contextlib.suppress(Exception):
                driver.flush()

    def remember(self, text: str) -> None:
        if self.history is not None:
            self.history.add(text)

    # -- a reply's events ------------------------------------------------------------------
    async def on_event(self, event: Any) -> None:
        if isinstance(event, ev.Steered):
            await self._landed(event)
        elif isinstance(event, ev.ApprovalRequested):
            call = event.request.call
            from shell.core.secrets import environment_secrets
            from shell.frontend.summary import summarize_args

            args = environment_secrets().json(dict(event.request.args))  # before it is cut short
            body = f"{call.name} {summarize_args(args, 100)}"
            self.notify("approval", "agent-shell: approval needed", body)
        elif isinstance(event, ev.ReplyEnd):
            said = {"end_turn": "reply finished", "cancelled": "reply cancelled", "error": "reply failed"}
            title = f"agent-shell: {said.get(event.stop_reason, 'reply stopped')}"
            answer = event.message.text if event.message is not None else ""
            self.notify("reply", title, answer.strip().split("\n", 1)[0] if answer else "")

    def notify(self, kind: str, title: str, body: str) -> bool:
        notifier = self.notifier
        if notifier is None:
            return False
        notifier.focused = bool(self.app.app_focus)
        return notifier.notify(kind, title, body)  # type: ignore[arg-type]

    async def _landed(self, event: ev.Steered) -> None:
        from .entries import UserEntry

        text = event.message.text
        if text in self.steered:
            self.steered.remove(text)
        await self.app.conversation.add(UserEntry(text))
        self.app.notify("Your message reached the model here, before its next step.", title="Steered",
                        timeout=3)

    # -- steering ----------------------------------------------------------------------------
    def steer(self, text: str) -> bool:
        """Ctrl+Enter / Alt+Enter while a reply runs: the message goes to this reply at its
        next tool boundary. False when nothing runs (the caller sends it as usual)."""
        if not text.strip() or not self.app.busy or not self.app.agent.steer(text):
            return False
        self.steered.append(text)
        self.remember(text)
        self.app.notify("It reaches the model at the next tool boundary of this reply.",
                        title="Steering", timeout=3)
        return True

    def take_back(self) -> list[str]:
        """After a reply: steering it could not take, to send as the next messages."""
        left = [m.text for m in self.app.agent.take_steering()]
        self.steered.clear()
        return left

    # -- Esc Esc -------------------------------------------------------------------------------
    def escape(self) -> bool:
        """Esc with nothing running: a second one soon after, on an empty prompt, opens
        the rewind dialog. True when it did."""
        now = time.monotonic()
        if self.app.prompt.text.strip():
            self._escape_at = 0.0
            return False
        if now - self._escape_at <= DOUBLE_ESC_S:
            self._escape_at = 0.0
            self.open_rewind()
            return True
        self._escape_at = now
        return False

    def open_rewind(self) -> None:
        from shell.rewind import turns

        from .screens.rewind import RewindScreen

        if self.app.busy:
            self.app.notify("Wait for the reply to finish (or Esc to cancel it) before rewinding.")
            return
        rows = turns(self.app.runtime)
        if not rows:
            self.app.notify("Nothing to rewind to yet: no message was sent in this conversation.")
            return

        def chosen(choice: tuple[int, str] | None) -> None:
            if choice is not None:
                position, what = choice
                self.app.run_worker(self.app.run_command_line(f"/rewind {position} {what}"), group="rewind")

        self.app.push_screen(RewindScreen(self.app.runtime, rows), callback=chosen)

    # -- prompt history and the editor ----------------------------------------------------------
    def search_history(self) -> None:
        from .screens.history_search import HistorySearchScreen

        if self.history is None:
            return
        prompt = self.app.prompt

        def chosen(text: str | None) -> None:
            if text is not None:
                prompt.load_text(text)
                prompt.move_cursor(prompt.document.end)
            prompt.focus()

        self.app.push_screen(HistorySearchScreen(self.history, prompt.text.strip()), callback=chosen)

    def edit_prompt(self) -> None:
        """Ctrl+G: the prompt in ``$VISUAL``/``$EDITOR`` (the screen is handed to it and
        comes back with the text as saved)."""
        from shell.runtime import editor_command

        command = editor_command()
        if not command:
            self.app.notify("Set $EDITOR (or $VISUAL) to edit the prompt in your editor.", severity="warning")
            return
        prompt = self.app.prompt
        try:
            with self.app.suspend():
                text = edit_in_editor(prompt.text, command, suffix=".md")
        except Exception as exc:  # no terminal to hand over (a test run), an editor that failed
            self.app.notify(
                f"The editor could not run: {sanitize_line(str(exc))}", severity="error", markup=False
            )
            return
        prompt.load_text(text.rstrip("\n"))
        prompt.move_cursor(prompt.document.end)
        prompt.focus()

    # -- /copy -----------------------------------------------------------------------------------
    def copy(self, text: str) -> Copied:
        from shell.frontend.clipboard import copy_text

        driver = getattr(self.app, "_driver", None)
        return copy_text(text, self.write if driver is not None else None)
