"""Neutralise terminal control sequences in text that came from a model or a tool.

Model output and tool output (a file's content, a command's stdout, a web page)
are untrusted: printed raw, an escape sequence could move the cursor, rewrite
what the user already read, set the window title, or (OSC 52) write the
clipboard. Every front end passes such text through :func:`sanitize` (or a
:class:`StreamSanitizer` for streamed deltas) before display. Only ``\\n`` and
``\\t`` survive among the control characters; a lone ``\\r`` would let text
overwrite its own line, so ``\\r\\n`` becomes ``\\n`` and other ``\\r`` are dropped.
"""

from __future__ import annotations

import re

# ESC-introduced sequences: CSI (ESC [ ... final), OSC / DCS / SOS / PM / APC
# (terminated by BEL or ST), and two-character escapes (ESC + one byte).
_ESCAPES = re.compile(
    r"""
      \x1b\[[0-?]*[ -/]*[@-~]                      # CSI
    | \x1b[\]PX^_][^\x07\x1b\x9c]*(?:\x07|\x1b\\|\x9c)  # OSC, DCS, SOS, PM, APC with terminator
    | \x9b[0-?]*[ -/]*[@-~]                        # 8-bit CSI
    | [\x90\x98\x9d\x9e\x9f][^\x07\x1b\x9c]*(?:\x07|\x1b\\|\x9c)  # 8-bit DCS/SOS/OSC/PM/APC
    | \x1b[ -/]*[0-~]                              # two-character (and nF) escapes
    """,
    re.VERBOSE,
)
# Whatever control characters remain: C0 except \t and \n, DEL, C1.
_CONTROLS = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")
# A trailing piece that may be the start of a sequence whose end has not arrived.
_PARTIAL = re.compile(
    r"(?:\x1b(?:\[[0-?]*[ -/]*|[\]PX^_][^\x07\x1b\x9c]*\x1b?|[ -/]*)?"
    r"|[\x9b\x90\x98\x9d\x9e\x9f][^\x07\x1b\x9c]*\x1b?|\r)\Z"
)


def sanitize(text: str) -> str:
    """``text`` without escape sequences or control characters (``\\n``, ``\\t`` kept)."""
    if not text:
        return text
    text = text.replace("\r\n", "\n")
    text = _ESCAPES.sub("", text)
    return _CONTROLS.sub("", text)


class StreamSanitizer:
    """:func:`sanitize` for text that arrives in pieces.

    A sequence split across two deltas (``"\\x1b[3"`` then ``"1m"``) must not leak
    its tail as visible text, so a trailing piece that could still become a
    sequence is held back until the next :meth:`feed` or :meth:`flush`.
    """

    MAX_HELD = 4096
    """A 'sequence' longer than this is not waiting for its end; it is dropped."""

    def __init__(self) -> None:
        self._held = ""

    def feed(self, chunk: str) -> str:
        text = self._held + chunk
        match = _PARTIAL.search(text)
        if match and match.start() < len(text) and len(text) - match.start() <= self.MAX_HELD:
            self._held = text[match.start() :]
            text = text[: match.start()]
        else:
            self._held = ""
        return sanitize(text)

    def flush(self) -> str:
        held, self._held = self._held, ""
        return sanitize(held)
