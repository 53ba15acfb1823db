"""How much of one block of a reply is shown: a block longer than ``BLOCK_CAP`` is cut
for display, as a tool's output is.

Why: a model that dumps a log, a minified file or a directory listing into its answer
sends megabytes with no blank line in them (one paragraph, one list, one fence). The
screen has to build and lay out every line of it; a 3 MB paragraph took the TUI about
4.5 minutes while headless printed it in seconds (findings I6). Nobody reads that much
in a terminal, and the text is not lost: the history and the session keep it whole,
``/export`` writes it out. So the first ``BLOCK_CAP`` characters of a block are shown,
the rest of it is counted, and where the block ends a note says how much was left out.

A block here is the text between two blank lines (a blank line inside a code fence ends
one too: code with blank lines in it is many blocks, each of them short).
"""

from __future__ import annotations

import re

BLOCK_CAP = 30_000
"""Characters of one block shown (as much as a tool's output keeps)."""
CUT_NEAR = 2000
"""Past the cap, the line being written is shown to its end if it ends within this many
characters (else it is cut there)."""
_BLOCK_END = re.compile(r"\n[ \t]*\n")
_LEADING_END = re.compile(r"[ \t]*\n")


def hidden_note(hidden: int) -> str:
    """The note shown where a block cut for display ends (a paragraph of its own)."""
    return f"\n\n*… {hidden:,} characters not shown; /export has it*\n\n"


class BlockCap:
    """Follows a streamed reply's blocks and says which characters are shown."""

    __slots__ = ("_blank", "cap", "hidden", "hiding", "run")

    def __init__(self, cap: int = BLOCK_CAP) -> None:
        self.cap = cap
        self.run = 0
        """Characters of the current block shown so far."""
        self.hiding = False
        """The current block reached the cap: what comes until its end is not shown."""
        self.hidden = 0
        """Characters not shown of the block being (or last) hidden."""
        self._blank = False
        """The text so far ends in a newline and blanks: one more newline ends the block."""

    def _first_end(self, text: str, pos: int = 0) -> int | None:
        """The offset just past the first block end (its blank line) in ``text`` from
        ``pos`` on (``pos``: where the text seen so far ends)."""
        found = self._find_end(text, pos)
        return found[1] if found else None

    def _find_end(self, text: str, pos: int = 0) -> tuple[int, int] | None:
        """Where the first block end in ``text`` from ``pos`` on starts and ends."""
        if self._blank:
            leading = _LEADING_END.match(text, pos)
            if leading:
                return pos, leading.end()
        found = _BLOCK_END.search(text, pos)
        return (found.start(), found.end()) if found else None

    def _consume(self, text: str, start: int, end: int) -> None:
        newline = text.rfind("\n", start, end)
        if newline < 0:
            self._blank = self._blank and not text[start:end].strip(" \t")
        else:
            self._blank = not text[newline + 1 : end].strip(" \t")

    def hidden_span(self, text: str) -> int:
        """While hiding: how much of ``text`` is hidden (up to the block's end)."""
        end = self._first_end(text) if self.hiding else 0
        return len(text) if end is None else end

    def take(self, text: str) -> int:
        """How many characters of ``text`` (which comes while showing) are shown; fewer
        than all of it when the cap is reached, and then the rest of the block hides.
        Past the cap, the line being written is shown to its end if that comes within
        ``CUT_NEAR`` characters (else the cut is there): decided on what has come so
        far only, so a reply streamed in pieces of any size is cut where it is whole."""
        pos, length = 0, len(text)
        while True:
            limit = pos + max(0, self.cap - self.run)
            cut: int | None = None
            if limit < length:  # the cap is reached in this text
                far = pos + self.cap + CUT_NEAR - self.run
                newline = text.find("\n", limit, min(far, length))
                cut = newline + 1 if newline >= 0 else far if far < length else None
            found = self._find_end(text, pos)
            if found is not None and (cut is None or found[0] < cut):
                self._consume(text, pos, found[1])
                self.run, pos = 0, found[1]
                continue
            if cut is None:
                self._consume(text, pos, length)
                self.run += length - pos
                return length
            self._consume(text, pos, cut)
            self.run += cut - pos
            self.hiding, self.hidden = True, 0
            return cut

    def skip(self, text: str) -> tuple[int, bool]:
        """While hiding: how many characters of ``text`` are hidden, and whether the
        block ended there (its blank line is the last of them)."""
        found = self._find_end(text)
        if found is None:
            self._consume(text, 0, len(text))
            self.hidden += len(text)
            return len(text), False
        start, end = found
        self._consume(text, 0, end)
        self.hidden += start  # (the blank line that ends it is no text left out)
        self.hiding, self.run = False, 0
        return end, True
