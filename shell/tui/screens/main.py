"""The main screen: the conversation, the prompt, the status line, the side panel.

It owns the layout, what the user types (sent, queued while a reply runs or the
shell starts, run as a slash command through the app's one registry) and the
reply worker: each reply runs in a Textual worker, and a
:class:`~shell.tui.renderer.ReplyRenderer` draws it into the conversation and
posts what the rest of the screen shows (the phase, the usage, the todo list,
the trace, a failed middleware) as messages handled here.

The prompt keeps the keyboard: whatever else holds the focus (a switch in the
side panel, a tool span's header), a printable key goes to the prompt, hiding
the panel hands the focus back, and a clicked switch does not keep it. Ctrl+C
cancels the reply in flight; on an idle prompt it clears what was typed, and a
second press within :data:`QUIT_WINDOW_S` quits (the first says so).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual.binding import ActiveBinding, Binding
from textual.screen import ModalScreen

from ..flow import STEER_KEYS
from ..widgets.prompt_input import PromptInput
from .main_actions import QUIT_WINDOW_S
from .main_startup import AFTER_THE_WELCOME, ONCE_READY, StartUp

if TYPE_CHECKING:
    from ..widgets.mention_picker import MentionPicker

__all__ = ["AFTER_THE_WELCOME", "ONCE_READY", "QUIT_WINDOW_S", "MainScreen"]


class MainScreen(StartUp):
    """The shell's one screen under its dialogs: its layers (see
    :mod:`.main_layout`), its bindings, the ``@`` picker and paging."""

    AUTO_FOCUS = "#prompt"
    BINDINGS = [
        # The footer shows "esc Cancel reply" while a reply runs (the priority binding,
        # enabled only then) and nothing for Esc when idle, where it clears the queue.
        Binding("escape", "cancel_reply", "Cancel reply", show=False),
        Binding("escape", "cancel_now", "Cancel reply", priority=True),
        Binding("f2", "toggle_panel", "Middleware"),
        Binding("f1", "help", "Help"),
        Binding("shift+tab", "cycle_mode", "Mode", priority=True),
        Binding(STEER_KEYS, "steer", "Steer", show=False, priority=True),
        Binding("ctrl+r", "search_history", "History", show=False),
        Binding("ctrl+g", "edit_prompt", "Editor", show=False),
    ]

    @property
    def active_bindings(self) -> dict[str, ActiveBinding]:
        """The keys of a dialog open over this screen when there is one: the footer is
        this screen's, and it said "esc Cancel reply" while Esc in the dialog's argument
        editor goes back to the question. A dialog that changes what its keys do calls
        ``refresh_bindings`` here too (see ``ApprovalScreen``)."""
        top = self.app.screen if self.is_attached else self
        if top is not self and isinstance(top, ModalScreen):
            return top.active_bindings
        return super().active_bindings

    # -- the @ picker and paging --------------------------------------------------------
    def on_prompt_input_mention(self, message: PromptInput.Mention) -> None:
        """The ``@`` word at the cursor changed: search, or close the picker."""
        picker = self._picker()
        if picker is None:
            return
        if message.query is None:
            picker.hide()
        else:
            picker.show_for(message.query)
        self.prompt.picking = picker.open
        self.refresh_bindings()  # Esc closes the picker now, or cancels the reply again

    def on_prompt_input_picker_key(self, message: PromptInput.PickerKey) -> None:
        picker = self._picker()
        if picker is None:
            return
        if message.action in ("up", "down"):
            picker.move(-1 if message.action == "up" else 1)
            return
        chosen = picker.chosen() if message.action in ("accept", "send") else None
        picker.hide()
        self.prompt.picking = False
        self.refresh_bindings()
        if chosen is not None:
            self.prompt.replace_mention(chosen.path, keep_open=chosen.is_dir)
        elif message.action == "send":  # Enter with nothing to pick (``@alice``): it sends
            self.prompt.action_submit()

    def _picker(self) -> MentionPicker | None:
        from ..widgets.mention_picker import MentionPicker

        found = self.query(MentionPicker)
        return found.first() if found else None

    def on_prompt_input_page(self, message: PromptInput.Page) -> None:
        if message.direction < 0:
            self.conversation.scroll_page_up(animate=False)
        else:
            self.conversation.scroll_page_down(animate=False)

