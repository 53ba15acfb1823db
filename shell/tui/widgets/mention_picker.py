"""The ``@`` picker: the workspace's files that match what follows ``@`` in the
prompt, best first, one of them highlighted.

It never takes the focus: the prompt keeps it and forwards Up, Down, Tab, Enter
and Esc while the picker is open (see ``PromptInput``), so typing goes on
narrowing the list. The search is the index's (:mod:`shell.context.files`,
milliseconds on 100,000 files); while the index is still being built the list
says so and fills in as the walk goes on.
"""

from __future__ import annotations

from collections.abc import Callable

from rich.text import Text
from textual.widgets import Static

from shell.context.files import FileIndex, Match
from shell.core.textsafety import sanitize_line

ROWS = 8
"""Rows shown at once (the list scrolls with the highlight)."""
LIMIT = 50


class MentionPicker(Static):
    """Shown while the word at the prompt's cursor starts with ``@``."""

    DEFAULT_CSS = """
    MentionPicker {
        height: auto; max-height: 10; padding: 0 1; display: none;
        border-top: solid $primary 50%; background: $surface;
    }
    MentionPicker.-shown { display: block; }
    """

    def __init__(self, index: Callable[[], FileIndex | None], *, id: str | None = None) -> None:
        super().__init__(id=id)
        self._index = index
        self.text_query = ""
        self.matches: list[Match] = []
        self.selected = 0
        self._timer: object | None = None

    @property
    def open(self) -> bool:
        return self.has_class("-shown")

    def show_for(self, query: str) -> None:
        """Search for ``query`` and show the best matches (the first highlighted)."""
        self.text_query = query
        index = self._index()
        self.matches = index.search(query, LIMIT) if index is not None else []
        self.selected = 0
        self.add_class("-shown")
        if (index is None or not index.done) and self._timer is None:
            # also while there is no index yet (the walk starts after the first screen):
            # the list said "indexing…" until the next key, minutes after it was ready
            self._timer = self.set_interval(0.25, self._refresh_while_indexing)
        self._draw()

    def _refresh_while_indexing(self) -> None:
        index = self._index()
        if not self.open or index is None:
            return
        self.matches = index.search(self.text_query, LIMIT)
        self.selected = min(self.selected, max(0, len(self.matches) - 1))
        self._draw()
        if index.done and self._timer is not None:
            self._timer.stop()  # type: ignore[attr-defined]
            self._timer = None

    def hide(self) -> None:
        self.remove_class("-shown")
        self.matches = []

    def move(self, step: int) -> None:
        if self.matches:
            self.selected = (self.selected + step) % len(self.matches)
            self._draw()

    def chosen(self) -> Match | None:
        return self.matches[self.selected] if self.matches else None

    def _draw(self) -> None:
        index = self._index()
        width = max(10, self.size.width - 4) if self.size.width else 76
        text = Text()
        if not self.matches:
            if index is None or not index.done:
                text.append("indexing the workspace…", style="dim")
            elif index.error:
                text.append(sanitize_line(f"the workspace cannot be listed: {index.error}"), style="dim")
            else:
                text.append(f"no file matches @{sanitize_line(self.text_query)}", style="dim")
            self.update(text)
            return
        top = max(0, min(self.selected - ROWS // 2, len(self.matches) - ROWS))
        for i, match in enumerate(self.matches[top : top + ROWS], top):
            path = sanitize_line(match.path)
            if len(path) > width:
                path = "…" + path[-(width - 1) :]
            style = "reverse bold" if i == self.selected else ("bold" if match.is_dir else "")
            text.append(f"{'▸' if i == self.selected else ' '} {path}", style=style)
            text.append("\n")
        more = len(self.matches) - min(len(self.matches), top + ROWS)
        hint = "↑↓ choose · Tab/Enter attach · Esc close"
        if len(self.matches) >= LIMIT:  # the search stops at LIMIT: "42 more" was not true
            hint += f" · {LIMIT}+ matches: type more to narrow"
        elif more > 0:
            hint += f" · {more} more"
        text.append(hint, style="dim")
        if index is not None and index.truncated:
            text.append(f" · index cut at {index.count:,} entries", style="dim")
        self.update(text)
