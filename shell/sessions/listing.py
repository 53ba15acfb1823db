"""The lines of a session listing (``/sessions``, ``/sessions WORDS``, ``agent-shell
sessions``, ``--resume``'s chooser): each at most :data:`LISTING_WIDTH` columns.

Why: a row was the id, the date, the count and the title on one line, ~56 columns
before the title began. The TUI shows a listing in a code block, which is cut at the
window's edge, not wrapped: at 60 columns every title vanished, and the passage of a
search hit was cut mid-sentence. Now a row is the title (wrapped), then the id, date
(as ``ls -l`` writes it) and count on a line of their own; it reads the same at 60
columns and at 200.
"""

from __future__ import annotations

import textwrap
import time

LISTING_WIDTH = 52
"""Columns of a code block the TUI's conversation shows whole at 60 columns (its
scroll bar shown)."""


def wrapped(text: str, first: str, rest: str) -> list[str]:
    """``text`` on lines of at most :data:`LISTING_WIDTH` columns, the first after
    ``first``, the others after ``rest`` (a title of one long word is broken too)."""
    width = LISTING_WIDTH - max(len(first), len(rest))
    lines = textwrap.wrap(text, width, break_on_hyphens=False) or [""]
    return [first + lines[0], *(rest + line for line in lines[1:])]


def when(stamp: float, now: float | None = None) -> str:
    """A date as ``ls -l`` writes it, 12 columns: ``Nov 18 13:06`` this year, else
    ``Nov 18  2025``."""
    at = time.localtime(stamp)
    if at.tm_year == time.localtime(now).tm_year:
        return time.strftime("%b %d %H:%M", at)
    return time.strftime("%b %d  %Y", at)


def plural(count: int, word: str) -> str:
    return f"{count} {word}" + ("" if count == 1 else "s")
