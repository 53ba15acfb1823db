"""The main screen's keyboard stays with the prompt.

Whatever else holds the focus (a switch in the side panel, a tool span's header),
a printable key goes to the prompt; focus that would fall to nothing comes back to
it, and a clicked switch does not keep it.
"""

from __future__ import annotations

import time

from textual import events
from textual.widgets import TextArea

from ..widgets.prompt_input import PromptInput
from .main_layout import MainLayout


def _takes_text(widget: object) -> bool:
    """A text field (typing there is for it). Input is named, not imported: the main
    screen has none, and the first frame need not pay for its module."""
    return isinstance(widget, TextArea) or any(c.__name__ == "Input" for c in type(widget).__mro__)


def _typed(event: events.Key) -> bool:
    """A key the prompt always handles (so it never bubbles up from there)."""
    return event.is_printable or event.key in ("enter", "ctrl+j")



class PromptKeepsKeys(MainLayout):
    """The main screen's focus rules (see the module's docstring)."""

    def on_key(self, event: events.Key) -> None:
        """A printable key while something other than a text field has the focus
        goes to the prompt (a switch or a span header would swallow it). Keys that
        reach the screen itself while the prompt has (or has no one has) the focus
        were typed before the screen had composed: they go to the prompt, Enter
        included, in order."""
        if getattr(event, "forwarded_to_prompt", False):
            return  # came back from the prompt unhandled: once is enough
        focused = self.focused
        if focused is None or (isinstance(focused, PromptInput) and _typed(event)):
            self._to_prompt(event)
            return
        if _takes_text(focused) or not event.is_printable:
            return
        if event.key in ("space", "enter"):
            return  # the focused widget's own action (a switch toggles, a header opens)
        event.stop()
        event.prevent_default()
        self.focus_prompt()
        self.prompt.insert(event.character or "")

    def _to_prompt(self, event: events.Key) -> None:
        prompts = self.query(PromptInput)
        if not prompts:
            return
        prompt = prompts.first()
        event.stop()
        event.prevent_default()
        self.set_focus(prompt)  # at once: the next keys go straight to it
        again = events.Key(event.key, event.character)
        again.forwarded_to_prompt = True  # type: ignore[attr-defined]
        prompt.post_message(again)


    def on_descendant_blur(self, event: events.DescendantBlur) -> None:
        """Focus that would fall to nothing (a widget hidden or removed while it had
        it) comes back to the prompt."""
        self.call_after_refresh(self._refocus)

    def _refocus(self) -> None:
        if self.focused is None and self.app.screen is self:
            self.focus_prompt()

    def on_mouse_up(self, event: events.MouseUp) -> None:
        """A click on a switch, a tab or a button acts (a switch stops its own Click,
        so this listens for the button's release), then the prompt has the keys
        again: the next "ok go" must not toggle what was clicked."""
        self.call_after_refresh(self._refocus_after_click)

    def _refocus_after_click(self) -> None:
        if self.app.screen is self and not _takes_text(self.focused):
            self.focus_prompt()

    def on_text_area_changed(self) -> None:
        self.shell.gc_policy.activity()  # typing: a due collection waits for a pause
        self.shell.last_typed = time.monotonic()  # a dialog opening now ignores keys a moment

