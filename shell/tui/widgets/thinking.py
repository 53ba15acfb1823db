"""A thinking block: collapsed and dim, so reasoning never crowds the answer.

Esc cuts a thought as it cuts the answer's text: what waits for the next frame is
dropped, the history keeps what was drawn (``ReplyRenderer.shown`` counts it from
:attr:`ThinkingBlock.received` and :attr:`ThinkingBlock.dropped`), and the thought
ends with a note that says so."""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.widgets import Collapsible, Static

from shell.core.partial import CANCELLED_KEEP
from shell.core.textsafety import sanitize

from ..mdsplit import thinking_cancel_note

FRAME_S = 1 / 60


class ThinkingBlock(Collapsible):
    """Collapsed by default; the title shows how much the model thought."""

    DEFAULT_CSS = """
    ThinkingBlock { border: none; padding: 0; margin: 1 0 0 0; background: transparent; color: $text-muted; }
    ThinkingBlock > CollapsibleTitle { color: $text-muted; text-style: italic; padding: 0; }
    ThinkingBlock > Contents { padding: 0 0 0 2; }
    ThinkingBlock #thinking-text { color: $text-muted; text-style: italic; }
    """

    def __init__(self, text: str = "", *, done: bool = False) -> None:
        self._text = text
        self._pending: list[str] = []
        self._words = len(text.split())
        self._ends_in_word = bool(text) and not text[-1].isspace()
        self._done = done
        self._cancelled = False
        self._scheduled = False
        self.received = len(text)
        """Characters it was given (its first text and every delta)."""
        self.dropped = 0
        """Characters never drawn because the reply was cancelled."""
        super().__init__(title=self._make_title(), collapsed=True)
        self._title.can_focus = False  # a click opens it; Tab goes past (the keys stay with the prompt)

    def compose(self) -> ComposeResult:
        yield self._title
        with self.Contents():
            yield Static(Text(sanitize(self._text)), id="thinking-text")

    def _make_title(self) -> str:
        words = self._words
        if self._cancelled:
            return f"Thought ({words} words, cancelled)"
        return f"Thought ({words} words)" if self._done else f"Thinking… ({words} words)"

    @property
    def text(self) -> str:
        self._take()
        return self._text

    def append(self, delta: str) -> None:
        """Queue a delta: the title and text are redrawn once per frame, however
        many deltas came (a flood of thinking must not redraw per delta)."""
        self._pending.append(delta)
        self.received += len(delta)
        if not self._scheduled and self.is_mounted:
            self._scheduled = True
            self.set_timer(FRAME_S, self._refresh)

    def drop_backlog(self) -> None:
        """The reply was cancelled: what was not drawn is not drawn (nor kept)."""
        self.dropped += sum(map(len, self._pending))
        self._pending.clear()
        self._cancelled = True

    def _take(self) -> None:
        """Move the queued deltas into the text, counting words as they come."""
        if not self._pending:
            return
        chunk = "".join(self._pending)
        self._pending.clear()
        words = len(chunk.split())
        if words and self._ends_in_word and not chunk[0].isspace():
            words -= 1  # a word cut across two deltas counts once
        self._words += words
        self._ends_in_word = not chunk[-1].isspace()
        self._text += chunk

    def finish(self, text: str = "", *, cancelled: bool = False) -> bool:
        """The thought ended (``text``: all of it, when the model said); whether it
        holds anything. ``cancelled`` (Esc): what waits is dropped, and a thought cut
        short, or longer than a cancelled reply keeps, ends with a note saying so."""
        if cancelled:
            self.drop_backlog()
        self._take()
        if text and not self._cancelled:
            self._text = text
            self._words = len(text.split())
        thought = bool(self._text.strip())
        shown = self.received - self.dropped
        if thought and self._cancelled and (self.dropped or shown > CANCELLED_KEEP):
            self._text += thinking_cancel_note(self.dropped, shown)
        self._done = True
        self._refresh()
        return thought

    def _refresh(self) -> None:
        self._scheduled = False
        self._take()
        self.title = self._make_title()
        if self.is_mounted and not self.collapsed:
            self.query_one("#thinking-text", Static).update(Text(sanitize(self._text)))

    def _watch_collapsed(self, collapsed: bool) -> None:
        super()._watch_collapsed(collapsed)
        if not collapsed and self.is_mounted:
            self.query_one("#thinking-text", Static).update(Text(sanitize(self._text)))
