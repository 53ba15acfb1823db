"""A thinking block: collapsed and dim, so reasoning never crowds the answer."""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.widgets import Collapsible, Static

from shell.textsafety import sanitize


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
        self._done = done
        super().__init__(title=self._make_title(), collapsed=True)

    def compose(self) -> ComposeResult:
        yield self._title
        with self.Contents():
            yield Static(Text(sanitize(self._text)), id="thinking-text")

    def _make_title(self) -> str:
        words = len(self._text.split())
        return f"Thought ({words} words)" if self._done else f"Thinking… ({words} words)"

    @property
    def text(self) -> str:
        return self._text

    def append(self, delta: str) -> None:
        self._text += delta
        self._refresh()

    def finish(self, text: str = "") -> None:
        if text:
            self._text = text
        self._done = True
        self._refresh()

    def _refresh(self) -> None:
        self.title = self._make_title()
        if self.is_mounted and not self.collapsed:
            self.query_one("#thinking-text", Static).update(Text(sanitize(self._text)))

    def _watch_collapsed(self, collapsed: bool) -> None:
        super()._watch_collapsed(collapsed)
        if not collapsed and self.is_mounted:
            self.query_one("#thinking-text", Static).update(Text(sanitize(self._text)))
