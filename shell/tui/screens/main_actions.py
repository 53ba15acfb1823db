"""The main screen's key actions: Esc, Ctrl+C, steering, the mode, the panel, help.

Ctrl+C cancels the reply in flight; on an idle prompt it clears what was typed,
and a second press within :data:`QUIT_WINDOW_S` quits (the first says so).
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING

from .main_replies import RepliesRun

if TYPE_CHECKING:
    from ..renderer import ReplyRenderer

QUIT_WINDOW_S = 2.0
"""A second Ctrl+C on an idle, empty prompt within this long quits."""



class KeyActions(RepliesRun):
    """What the main screen's bindings (and the app's Ctrl+C) do."""

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """Esc while a reply runs is a priority binding (``cancel_now``): the app runs it
        as soon as it reads the key, before handing the key to the focused prompt. As an
        ordinary binding it waited in the screen's and then the prompt's message queue,
        each a turn of an event loop that a flooding reply keeps busy (F9). The ``@``
        picker keeps its Esc (it closes the picker, the reply goes on)."""
        if action == "cancel_now":
            return self._busy and not self.prompt.picking
        return True

    def action_cancel_now(self) -> None:
        self.action_cancel_reply()

    def action_cancel_reply(self) -> None:
        """Esc: end the reply in flight at once (pending approvals are withdrawn) and
        silence any audio playing. What waits in the queue goes back into the prompt,
        to edit or send again, not on its way: Esc is the stop key, and a message
        written before the user saw what made them press it ran unasked right after
        (finding T12; Codex and pi put the queue back the same way)."""
        self.shell.playback.stop()
        if self._busy:
            if self._queue:
                self._take_back_queue()
            self.status.state = "cancelling"
            self.hold_frames()
            renderer = self.renderer
            first = renderer is not None and not renderer.ended_on_screen
            if renderer is not None:
                renderer.cancel()  # the screen stops at once, whatever is in flight
            self.runtime.cancel(renderer.shown if renderer is not None else None)
            if renderer is not None and first:
                self.run_worker(self._end_on_screen(renderer), group="cancel", exit_on_error=False)
        elif self._queue:
            self._take_back_queue()
        elif self.shell.ready and self.app.screen is self:
            self.shell.flow.escape()  # Esc Esc on an empty prompt: the rewind dialog

    def _take_back_queue(self) -> None:
        """The queued messages go back into the prompt (before what it holds), not away:
        Esc while starting dropped them with no word, where during a reply the same
        key keeps them (finding J6). Users press Esc by reflex at a slow start."""
        taken = [*self._queue]
        self._queue.clear()
        self._show_queue()
        draft = self.prompt.text
        self.prompt.load_text("\n\n".join([*taken, draft] if draft.strip() else taken))
        self.prompt.move_cursor(self.prompt.document.end)
        count = f"{len(taken)} queued messages" if len(taken) > 1 else "The queued message"
        self.notify(f"{count} taken back into the prompt: Enter sends, or edit first.", timeout=6)

    async def _end_on_screen(self, renderer: ReplyRenderer) -> None:
        """The reply's end drawn at once (see ``ReplyRenderer.end_now``), then the frame;
        the reply worker takes the engine's last events once it is on screen."""
        try:
            await renderer.end_now()
        finally:
            self.release_frames()
            self.call_after_refresh(renderer.end_shown.set)

    def action_steer(self) -> None:
        """Ctrl+Enter (Alt+Enter where the terminal cannot tell): while a reply runs, the
        prompt's text goes to it at its next tool boundary; otherwise Enter's job."""
        text = self.prompt.text
        if not text.strip() or not self.shell.ready:
            return
        if self.shell.flow.steer(text):
            self.prompt.clear()
        else:
            self.prompt.action_submit()

    def action_search_history(self) -> None:
        if self.shell.ready and self.app.screen is self:
            self.shell.flow.search_history()

    def action_edit_prompt(self) -> None:
        if self.app.screen is self:
            self.shell.flow.edit_prompt()

    def interrupt(self) -> None:
        """Ctrl+C: cancel the reply in flight; idle, clear the prompt; on an empty
        idle prompt, quit when pressed twice (the first press says so)."""
        if self._busy:
            self.action_cancel_reply()
            return
        prompt = self.prompt
        if prompt.selected_text:
            prompt.action_copy()
            return
        if prompt.text:
            prompt.clear()
            return
        now = time.monotonic()
        if now - self._last_ctrl_c <= QUIT_WINDOW_S:
            self.app.exit(0)
            return
        self._last_ctrl_c = now
        self.notify("Press Ctrl+C again to quit (or Ctrl+Q).", title="Quit?", timeout=QUIT_WINDOW_S)

    def action_cycle_mode(self) -> None:
        """Shift+Tab: the next permission mode (default, accept-edits, plan, auto)."""
        if not self.shell.ready or self.app.screen is not self:
            return
        self.runtime.permissions.cycle_mode()
        self.notify(self.runtime.permissions.describe_mode(), title="Permission mode", timeout=2.5)

    def action_toggle_panel(self) -> None:
        if not self.shell.ready:
            self.notify("The middleware panel opens once the shell has started.")
            return
        side = self.side
        side.toggle()
        if not side.shown:
            self.focus_prompt()  # the focus was perhaps in the panel: typing goes on here

    def action_help(self) -> None:
        from .help import HelpScreen

        if not self.shell.ready:
            self.notify("Help opens once the shell has started.")
            return
        self.app.push_screen(HelpScreen([(c.usage, c.summary) for c in self.shell.commands]))

