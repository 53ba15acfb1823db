"""Where a long Markdown text may be cut into independent documents.

Textual's ``Markdown.append`` re-reads the whole source on every append, so one
widget fed a 100 KB reply makes streaming quadratic. Cutting the reply into
top-level "paragraph groups" (each its own ``Markdown`` widget) keeps every
append small. A cut is only safe before a line that starts a new top-level block
(not indented, not a list item, not inside a code fence) after a blank line, so
lists, code blocks and indented continuations are never split.

A block that never ends (a 2,000-line paragraph with no blank line, a 2,000-line
code fence, a line with no newline at all) has no safe place, and its document
then grew with the reply: every append re-read it all, and a 58 KB paragraph
took 23 s to show. Past ``HARD_LIMIT`` characters such a block is cut anyway,
at a line start (a paragraph becomes two; a fence is closed and opened again
with its info string, so the code reads on with the same highlighting), and a
line longer than that is cut at a space. The look of a block that long changes
a little at each cut; the cost of a reply stays linear in its size.
"""

from __future__ import annotations

import re

from shell.core.partial import CANCELLED_KEEP

from .mdcap import BlockCap, hidden_note

_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")
PARTIAL_KEPT = 64
"""Of an unfinished line, the characters kept to judge it when it ends."""
_CONTINUATION = re.compile(r"^(\s|[-*+]\s|\d+[.)]\s|>|\||$)")
HARD_LIMIT = 2000
"""Characters of one document past which a block with no safe cut is cut anyway."""
FORCE = 2
"""Past ``FORCE`` x ``HARD_LIMIT``, even before an indented line (a list that never ends)."""


class Splitter:
    """Tracks fences across streamed fragments and finds cut points.

    After a cut, ``close_with`` is what the document before it needs to end well
    (a fence's closing line) and ``reopen_with`` what the next one needs to begin
    with (the fence's opening line): both are empty for a cut between blocks."""

    __slots__ = ("close_with", "fence", "in_fence", "line_len", "partial", "prev_blank", "reopen_with")

    def __init__(self) -> None:
        self.in_fence = False
        self.fence = ""
        """The opening line of the fence we are in (marker and info string)."""
        self.partial = ""
        self.prev_blank = False
        self.line_len = 0
        """Characters of the line not ended yet (all of them, not only the kept ones)."""
        self.close_with = ""
        self.reopen_with = ""

    def feed(self, text: str, want_cut: bool, hard: int = 0) -> int | None:
        """Consume ``text``; return an offset in it where a new document may start
        (only when ``want_cut``), the first one found after the start. ``hard``
        (1, or ``FORCE`` for any line) also allows a cut inside a block, and, if no
        line starts here, in the middle of a line that is already too long.

        A line start is judged as soon as its first character is here (the rest
        of a long line may come in later fragments): a letter or ``#`` after a
        blank line outside a fence starts a new top-level block.
        """
        self.close_with = self.reopen_with = ""
        combined = self.partial + text
        base = -len(self.partial)
        cut: int | None = None
        pos = 0
        ended = False
        while True:
            nl = combined.find("\n", pos)
            line = combined[pos:] if nl < 0 else combined[pos:nl]
            starts_here = base + pos >= 0
            if want_cut and cut is None and starts_here:
                if self._safe_start(line):
                    cut = base + pos
                elif hard and self._hard_start(line, nl >= 0, hard):
                    cut = base + pos
                    if self.in_fence:
                        self._close_fence("")
            if nl < 0:
                break
            ended = True
            fence = _FENCE.match(line)
            if fence:
                self.in_fence = not self.in_fence
                self.fence = (line if len(line) <= PARTIAL_KEPT else fence.group(0)).strip()
            self.prev_blank = not line.strip()
            pos = nl + 1
        rest = combined[pos:]
        self.line_len = len(rest) if ended else self.line_len + len(text)
        # Only a line's start matters (a fence marker, blank or not): a line that never
        # ends (a model streaming without newlines) must not be copied whole each time.
        self.partial = rest if len(rest) <= PARTIAL_KEPT else rest[:PARTIAL_KEPT] + (
            "x" if rest[PARTIAL_KEPT:].strip() else " ")
        if want_cut and hard and cut is None and self.line_len > HARD_LIMIT:
            cut = self._mid_line(text)
        return cut

    def _safe_start(self, line: str) -> bool:
        if self.in_fence or not self.prev_blank or not line:
            return False
        first = line[0]
        return (first.isalpha() or first == "#") and not _CONTINUATION.match(line)

    def _hard_start(self, line: str, complete: bool, hard: int) -> bool:
        """A line start where a block too long may be cut: never at a fence's own
        marker (nor before enough of the line is here to tell)."""
        if not complete and len(line) < 4:
            return False
        if self.in_fence:
            return not _FENCE.match(line)
        return hard >= FORCE or (bool(line) and not line[0].isspace())

    def _mid_line(self, text: str) -> int:
        """A cut in the line being written, which is too long: after its last space
        here (or at the end of ``text``); the new document goes on with the line."""
        start = len(text) - min(len(text), self.line_len)
        space = text.rfind(" ", start)
        cut = space + 1 if space >= start else len(text)
        self.line_len = len(text) - cut
        if self.in_fence:
            self._close_fence("\n")
        self.partial = ""  # the next document starts mid-line: no line start to judge
        return cut

    def _close_fence(self, before: str) -> None:
        marker = _FENCE.match(self.fence)
        self.close_with = f"{before}{marker.group(1) if marker else '```'}\n"
        self.reopen_with = f"{self.fence}\n"


def closing_fence(source: str) -> str:
    """What closes the code fence ``source`` ends in ("" if it ends outside one), so
    that what is written after it (a cancelled reply's note) is not shown as code. Its
    last line counts even unfinished (```` ```py ```` opens a fence as it is)."""
    splitter = Splitter()
    splitter.feed(source if source.endswith("\n") else source + "\n", want_cut=False)
    if not splitter.in_fence:
        return ""
    marker = _FENCE.match(splitter.fence)
    return f"\n{marker.group(1) if marker else '```'}\n"


def closing_marks(source: str) -> str:
    """What closes what ``source`` was cut inside, so that a note written after it
    reads as a note: its code fence (:func:`closing_fence`), else an inline code span
    its last paragraph opened and never closed (a reply cut by Esc in ``run `ls -l``
    showed a lone backtick, the note after it on a line of its own). The span is
    closed with "…", which says it was cut (and an opening run alone at the end is
    not joined by its closer into one longer, literal run)."""
    return closing_fence(source) or _closing_span(source)


_BACKTICKS = re.compile(r"(?<!\\)`+")
_PARAGRAPH_END = re.compile(r"\n[ \t]*\n")


def _closing_span(source: str) -> str:
    """The backticks that close the code span left open at the end of ``source``'s
    last paragraph ("" when every span there is closed): as CommonMark pairs them, an
    opening run with the next run of the same length."""
    paragraph = _PARAGRAPH_END.split(source)[-1]
    runs = [m.group() for m in _BACKTICKS.finditer(paragraph)]
    i = 0
    while i < len(runs):
        closer = next((j for j in range(i + 1, len(runs)) if runs[j] == runs[i]), None)
        if closer is None:
            return "…" + runs[i]
        i = closer + 1
    return ""


def cancel_note(dropped: int, shown: int = 0, cut: bool = True) -> str:
    """The note a cancelled reply ends with: how much it received and never drew (kept
    short: a flood's tens of MB are said as such, never shown). What was not drawn is
    not kept either (``ReplyRenderer.shown``): the history, the session and the model's
    next request hold what the user saw, and the note says so; past
    :data:`~shell.core.partial.CANCELLED_KEEP` characters ``shown``, only the first ones.
    Nothing dropped and not ``cut`` (the history keeps all that was shown): no note."""
    if not dropped and not cut:
        return ""
    kept = "the model reads what is shown" if shown <= CANCELLED_KEEP else \
        f"the model reads the first {CANCELLED_KEEP:,} characters"
    return f"\n\n*({cancel_said(dropped)}: {kept})*\n"


def thinking_cancel_note(dropped: int, shown: int = 0) -> str:
    """:func:`cancel_note` for a thought cut by Esc, as plain text (a thought is not
    drawn as Markdown). It does not say the model reads it: a cut thought loses its
    signature, and a provider that signs thoughts is not sent an unsigned one."""
    kept = "" if shown <= CANCELLED_KEEP else f": the history keeps the first {CANCELLED_KEEP:,} characters"
    return f"\n\n({cancel_said(dropped)}{kept})"


def cancel_said(dropped: int) -> str:
    """How much a cancel left undrawn, in units a reader takes in."""
    if not dropped:
        return "cancelled"
    if dropped >= 1_000_000:
        amount = f"{dropped / 1_000_000:.1f} MB"
    elif dropped >= 10_000:
        amount = f"{dropped / 1000:.0f} kB"
    else:
        amount = f"{dropped:,} characters"
    return f"{amount} not shown, cancelled; not kept either"


def split_markdown(text: str, limit: int) -> list[str]:
    """Cut a complete text into documents of about ``limit`` characters (a block
    with no safe cut past ``HARD_LIMIT``, between two of its lines)."""
    parts: list[str] = []
    splitter = Splitter()
    current: list[str] = []
    size = 0
    for line in text.splitlines(keepends=True):
        hard = (FORCE if size >= FORCE * HARD_LIMIT else 1) if size >= HARD_LIMIT else 0
        cut = splitter.feed(line, size >= limit, hard)
        if cut is not None:
            parts.append("".join(current) + line[:cut] + splitter.close_with)
            current, line = [splitter.reopen_with], line[cut:]
            size = 0
        current.append(line)
        size += len(line)
    parts.append("".join(current))
    return [p for p in parts if p] or [""]


class FrameDocument:
    """A document's worth of a streamed frame: what it shows (``shown``: a fence cut
    open is closed and opened again) and the reply's text it stands for (``raw``),
    in pieces."""

    __slots__ = ("raw", "shown")

    def __init__(self) -> None:
        self.shown: list[str] = []
        self.raw: list[str] = []

    def add(self, shown: str, raw: str) -> None:
        self.shown.append(shown)
        self.raw.append(raw)

    @property
    def size(self) -> int:
        return sum(map(len, self.raw))

    @property
    def source(self) -> str:
        return "".join(self.shown)


class Cutter:
    """Cuts a streamed reply into documents, a frame at a time: a document is cut at
    the first safe place past ``chunk_limit`` characters (a block with no safe place
    past ``HARD_LIMIT``), and a frame is looked at in pieces of a line or so (at most
    ``piece_limit``), so that each document gets its cut. A block longer than the cap
    of ``mdcap`` shows its start only: the rest is in the documents' ``raw`` (the
    reply's text) but not in what they show, and a note says how much is left out."""

    __slots__ = ("_fence_at_cap", "cap", "size", "splitter")

    def __init__(self, size: int = 0) -> None:
        self.splitter = Splitter()
        self.size = size
        """Characters of the current (last) document."""
        self.cap = BlockCap()
        self._fence_at_cap = ""
        """What closes the code fence the shown text was in when the cap was reached."""

    @property
    def hiding(self) -> bool:
        """A block too long is being left out (until its end)."""
        return self.cap.hiding

    def end_note(self) -> str:
        """At the reply's end: the note of a block still being left out ("" if none).
        (A fence left open is closed by the caller, who sees the document.)"""
        return hidden_note(self.cap.hidden) if self.cap.hiding else ""

    def cut(self, text: str, chunk_limit: int, piece_limit: int) -> list[FrameDocument]:
        """``text`` gathered into the documents it makes: the first goes on with the
        current one, each cut starts another."""
        splitter = self.splitter
        documents = [FrameDocument()]
        pos, length = 0, len(text)
        while pos < length:
            if self.cap.hiding:
                pos = self._skip(text, pos, documents[-1])
                continue
            end = length
            if length - pos > chunk_limit:
                # to the end of a line, unless that is far: a line that never ends is cut too
                far = min(length, pos + piece_limit)
                end = text.find("\n", pos + chunk_limit, far) + 1 or far
            piece = text[pos:end]
            shown = self.cap.take(piece)
            reached = shown < len(piece)  # the cap: the rest of this block is left out
            if reached:
                piece = piece[:shown]
            pos += len(piece)
            if not piece:
                continue
            size = self.size
            hard = (FORCE if size >= FORCE * HARD_LIMIT else 1) if size >= HARD_LIMIT else 0
            cut = splitter.feed(piece, size >= chunk_limit, hard)
            if reached:  # a fence the cut leaves open is closed before the note
                fence = _FENCE.match(splitter.fence) if splitter.in_fence else None
                line_end = "" if piece.endswith("\n") else "\n"
                self._fence_at_cap = f"{line_end}{fence.group(1)}\n" if fence else ""
            if cut is None:
                self.size += len(piece)
                documents[-1].add(piece, piece)
                continue
            # a fence cut open is closed in this document and opened again in the next
            documents[-1].add(piece[:cut] + splitter.close_with, piece[:cut])
            rest = splitter.reopen_with + piece[cut:]
            self.size = len(rest)
            documents.append(FrameDocument())
            documents[-1].add(rest, piece[cut:])
        return documents

    def _skip(self, text: str, pos: int, document: FrameDocument) -> int:
        """Leave out what of ``text`` from ``pos`` is the rest of a block too long; where
        the block ends, its note (a fence the cap cut open is closed before it, and one
        open after it is opened again). Returns where showing goes on."""
        hidden, ended = self.cap.skip(text[pos:] if pos else text)
        raw = text[pos : pos + hidden]
        self.splitter.feed(raw, want_cut=False)  # fences opened or closed in it still count
        if ended and not self.cap.hidden:  # the block ended where it was cut: nothing left out
            document.add(raw, raw)
            self.size += len(raw)
        else:
            document.add("", raw)
        if ended and self.cap.hidden:
            splitter = self.splitter
            reopen = f"{splitter.fence}\n" if splitter.in_fence else ""
            note = self._fence_at_cap + hidden_note(self.cap.hidden) + reopen
            document.add(note, "")
            self.size += len(note)
        return pos + hidden


def capped(text: str) -> str:
    """A complete reply as it is shown: each block longer than the cap cut (see ``mdcap``)."""
    cutter = Cutter()
    documents = cutter.cut(text, len(text) + 1, len(text) + 1)
    shown = "".join(document.source for document in documents)
    note = cutter.end_note()
    return shown + (closing_marks(shown) + note if note else "")


def grouped(documents: list[FrameDocument], limit: int) -> list[str]:
    """The sources of neighbouring documents joined, up to ``limit`` characters each
    (one is never split): fewer widgets to mount. Each was cut at a safe place, so
    the joined text reads as the documents did."""
    groups: list[str] = []
    size = limit
    for document in documents:
        source = document.source
        if groups and size + len(source) <= limit:
            groups[-1] += source
            size += len(source)
        else:
            groups.append(source)
            size = len(source)
    return groups
