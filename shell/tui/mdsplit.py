"""Where a long Markdown text may be cut into independent documents.

Textual's ``Markdown.append`` re-reads the whole source on every append, so one
widget fed a 100 KB reply makes streaming quadratic. Cutting the reply into
top-level "paragraph groups" (each its own ``Markdown`` widget) keeps every
append small. A cut is only safe before a line that starts a new top-level block
(not indented, not a list item, not inside a code fence) after a blank line, so
lists, code blocks and indented continuations are never split.
"""

from __future__ import annotations

import re

_FENCE = re.compile(r"^ {0,3}(```|~~~)")
PARTIAL_KEPT = 64
"""Of an unfinished line, the characters kept to judge it when it ends."""
_CONTINUATION = re.compile(r"^(\s|[-*+]\s|\d+[.)]\s|>|\||$)")


class Splitter:
    """Tracks fences across streamed fragments and finds cut points."""

    __slots__ = ("in_fence", "partial", "prev_blank")

    def __init__(self) -> None:
        self.in_fence = False
        self.partial = ""
        self.prev_blank = False

    def feed(self, text: str, want_cut: bool) -> int | None:
        """Consume ``text``; return an offset in it where a new document may start
        (only when ``want_cut``), the first one found after the start.

        A line start is judged as soon as its first character is here (the rest
        of a long line may come in later fragments): a letter or ``#`` after a
        blank line outside a fence starts a new top-level block.
        """
        combined = self.partial + text
        base = -len(self.partial)
        cut: int | None = None
        pos = 0
        while True:
            nl = combined.find("\n", pos)
            line = combined[pos:] if nl < 0 else combined[pos:nl]
            starts_here = base + pos >= 0
            if want_cut and cut is None and starts_here and self._safe_start(line):
                cut = base + pos
            if nl < 0:
                break
            if _FENCE.match(line):
                self.in_fence = not self.in_fence
            self.prev_blank = not line.strip()
            pos = nl + 1
        rest = combined[pos:]
        # Only a line's start matters (a fence marker, blank or not): a line that never
        # ends (a model streaming without newlines) must not be copied whole each time.
        self.partial = rest if len(rest) <= PARTIAL_KEPT else rest[:PARTIAL_KEPT] + (
            "x" if rest[PARTIAL_KEPT:].strip() else " ")
        return cut

    def _safe_start(self, line: str) -> bool:
        if self.in_fence or not self.prev_blank or not line:
            return False
        first = line[0]
        return (first.isalpha() or first == "#") and not _CONTINUATION.match(line)


def split_markdown(text: str, limit: int) -> list[str]:
    """Cut a complete text into documents of about ``limit`` characters."""
    parts: list[str] = []
    splitter = Splitter()
    start = 0
    size = 0
    for line in text.splitlines(keepends=True):
        cut = splitter.feed(line, size >= limit)
        if cut is not None:
            parts.append(text[start : start + size])
            start += size
            size = 0
        size += len(line)
    parts.append(text[start:])
    return [p for p in parts if p] or [""]
