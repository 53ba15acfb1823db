"""The approval dialog's two guards, so that what is approved is what was seen: keys
typed before the dialog was read (a sentence typed as it opened must not answer it), and
a call longer than the dialog (its end is shown before ``y`` counts).

Kept apart from the dialog (:mod:`.approval`): :class:`GuardedQuestion` is the base of
:class:`.approval.ApprovalScreen` that decides whether a decision key counts yet, and
says why not on the guard line.
"""

from __future__ import annotations

import time
from typing import ClassVar

from textual import events
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widget import Widget
from textual.widgets import Static, TextArea

from shell.frontend.approval import APPROVE_ALL_KEY, KEYS

from .approval_fields import box_heights

DECISION_KEYS = frozenset({c.key for c in KEYS} | {APPROVE_ALL_KEY})
"""Keys that answer the question: any other printable key is typing."""


class GuardedQuestion(ModalScreen[None]):
    """The guard line and when a decision key counts (the dialog's state)."""

    GUARD_S: ClassVar[float]
    """Quiet keyboard needed before a decision key counts (set by the dialog)."""
    quiet_until: float
    closing: bool
    mode: str
    _seen_end: bool
    more_below: bool

    def _gone(self) -> bool:
        return self.closing or not self.is_attached

    # -- the typing guard -------------------------------------------------------------
    def guarded(self) -> bool:
        return time.monotonic() < self.quiet_until

    def on_key(self, event: events.Key) -> None:
        typing = event.is_printable and event.character not in DECISION_KEYS
        if self.mode == "view" and (self.guarded() or typing):
            # a letter that answers nothing is typing too: "write it" typed into a dialog
            # that had been up a while took its 'e' as Edit and lost the sentence
            self.quiet_until = time.monotonic() + self.GUARD_S  # still typing: wait for a pause
            self.query_one("#guard", Static).update("keys paused while you type…")
            self.set_timer(self.GUARD_S + 0.05, self._guard_hint)
            prompt = getattr(self.app, "prompt", None)
            if event.is_printable and event.character and prompt is not None:
                # what the user was typing as the dialog opened goes on in the prompt,
                # not into the void (it is no answer either way)
                event.stop()
                event.prevent_default()
                prompt.insert(event.character)

    def _guard_hint(self) -> None:
        if not self.guarded() and not self._gone():
            self.query_one("#guard", Static).update("")
            self.more_below = False
            self._show_more()

    def _ignored(self) -> bool:
        """A decision key while the guard holds: ignored (and the guard extended)."""
        if self.guarded():
            self.quiet_until = time.monotonic() + self.GUARD_S
            self.query_one("#guard", Static).update("keys paused while you type…")
            self.set_timer(self.GUARD_S + 0.05, self._guard_hint)
            return True
        return False

    # -- what is below the fold ---------------------------------------------------------
    def _fit_body(self) -> None:
        """The descriptions, arguments and diff scroll in what is left once the title and
        keys are placed: in a small terminal (60x20) the keys stay on screen, the body
        scrolls and says what is below, instead of the key line being cut off at the
        bottom; in a tall one it takes all the room left (60% of 200x60 said "↓ 1 more
        line below" over free rows)."""
        if self._gone():
            return
        dialog = self.query_one("#dialog", Vertical)
        body = self.query_one("#body", VerticalScroll)
        room = int(self.size.height * 0.96) - 2  # the dialog's max-height less its border
        if self.mode == "edit":
            self._fit_edit(room)
            return
        used = sum(_rows(child) for child in dialog.children if child is not body and child.display)
        fits = max(3, room - used - body.styles.margin.top)
        if body.styles.max_height is None or body.styles.max_height.value != fits:
            body.styles.max_height = fits
        self.call_after_refresh(self._show_more)

    def _fit_edit(self, room: int) -> None:
        """The edit view: its text boxes (the JSON, each long text) share what the title,
        the hints, the validity line and the buttons leave (:func:`.approval_fields.box_heights`),
        so those stay on screen at 60x20 and up, and Ctrl+S refused is seen refused."""
        dialog = self.query_one("#dialog", Vertical)
        edit = self.query_one("#edit-box", Vertical)
        boxes = list(edit.query(TextArea).results(TextArea))
        used = sum(_rows(child) for child in dialog.children if child is not edit and child.display)
        used += sum(_rows(child) for child in edit.query(Static).results(Static) if child.display)
        used += sum(_rows(child) for child in edit.query(Horizontal).results(Horizontal) if child.display)
        wants = [box.wrapped_document.height + box.styles.gutter.height for box in boxes]
        for box, height in zip(boxes, box_heights(room - used, wants), strict=True):
            if box.styles.max_height is None or box.styles.max_height.value != height:
                box.styles.min_height = height
                box.styles.max_height = height

    def _unseen_lines(self) -> int:
        """Lines of the arguments or diff below what the body shows now (0: all seen)."""
        body = self.query_one("#body", VerticalScroll)
        return max(0, round(body.max_scroll_y - body.scroll_y))

    def _show_more(self, _: object = None) -> None:
        """A call longer than the dialog (a chained command whose last part is `rm -rf`,
        a 20,000-line write) says how much is below, in words: a scroll bar thumb alone
        was easy to miss, and the user approves what they saw."""
        if self._gone():
            return
        unseen = self._unseen_lines()
        if unseen == 0 and self.query_one("#body", VerticalScroll).max_scroll_y > 0:
            self._seen_end = True
        if self.guarded():  # the line may say "keys paused while you type…": say it after
            self.set_timer(self.quiet_until - time.monotonic() + 0.05, self._show_more)
            return
        guard = self.query_one("#guard", Static)
        if unseen and not self._seen_end:
            lines = "1 more line" if unseen == 1 else f"{unseen:,} more lines"
            guard.update(f"↓ {lines} below: y shows the end first")
        elif self.more_below:
            guard.update("")
        self.more_below = bool(unseen) and not self._seen_end

    def _end_unseen(self) -> bool:
        """Approving a call whose end was never on screen shows the end instead; the next
        key approves. What is approved is what was seen."""
        if self._seen_end or self._unseen_lines() == 0:
            return False
        self._seen_end = True
        self.query_one("#body", VerticalScroll).scroll_end(animate=False)
        self.more_below = False
        self.quiet_until = time.monotonic() + self.GUARD_S  # a double press does not skip it
        # one line, whole at 60 columns (the longer sentence lost its end there: finding T4)
        self.query_one("#guard", Static).update("End of the call shown: press again to decide.")
        return True


def _rows(widget: Widget) -> int:
    """The rows ``widget`` takes in its parent, margins included."""
    return widget.outer_size.height + widget.styles.margin.top + widget.styles.margin.bottom
