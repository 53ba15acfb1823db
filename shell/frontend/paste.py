"""Long pastes: a chip in the prompt, a summary in the conversation, the text sent whole.

A 21 KB log pasted into the prompt would fill it, and then fill most of the
screen again as the sent message. Instead the prompt holds a short token
(``[Pasted text #1: 412 lines, 21.3 KB]``) that :meth:`Pastes.expand` turns back
into the text when the message is sent, and a long message is drawn as its first
lines and one line saying how much more there is (:func:`shown_part`). What the
model receives, what the session keeps and what the prompt history recalls are
the whole text. Nothing here draws; each front end styles the pieces.
"""

from __future__ import annotations

import re

PASTE_LINES = 8
"""A paste of more lines than this becomes a token in the prompt."""
PASTE_CHARS = 800
"""Or of more characters than this."""
SHOWN_LINES = 6
"""A sent message longer than this (in lines, or in :data:`SHOWN_CHARS`) is drawn as its
first :data:`HEAD_LINES` lines and a summary line."""
SHOWN_CHARS = 1500
HEAD_LINES = 3
HEAD_LINE_CHARS = 200

_TOKEN = re.compile(r"\[Pasted text #(\d+): [^\]\n]*\]")
_START = re.compile(r"\[Pasted text #(\d+)")


def size_label(text: str) -> str:
    """``412 lines, 21.3 KB`` (or ``1 line, 900 B``)."""
    lines = text.count("\n") + (0 if text.endswith("\n") else 1)
    size = len(text.encode("utf-8", "replace"))
    amount = f"{size / 1024:.1f} KB" if size >= 1024 else f"{size} B"
    return f"{lines} line{'' if lines == 1 else 's'}, {amount}"


def is_long_paste(text: str) -> bool:
    return text.count("\n") >= PASTE_LINES or len(text) > PASTE_CHARS


class Pastes:
    """The long pastes of one prompt, by number: kept for the session, so a message
    recalled from the history expands the same way."""

    def __init__(self) -> None:
        self._texts: dict[int, str] = {}

    def add(self, text: str) -> str:
        """Keep ``text``; the token to put in the prompt instead."""
        number = len(self._texts) + 1
        self._texts[number] = text
        return f"[Pasted text #{number}: {size_label(text)}]"

    def expand(self, text: str) -> str:
        """``text`` with every token of ours replaced by the paste it stands for
        (a token edited by hand, or not ours, stays as typed)."""
        if "[Pasted text #" not in text:
            return text

        def whole(match: re.Match[str]) -> str:
            number = int(match.group(1))
            pasted = self._texts.get(number)
            if pasted is None or match.group(0) != self._token(number):
                return match.group(0)
            return pasted

        return _TOKEN.sub(whole, text)

    def token_before(self, text: str) -> int:
        """The length of a token of ours that ``text`` ends with (0: none). Backspace
        there removes the token whole: one character off it turned the paste into the
        placeholder's words, sent as such (finding K19)."""
        start = text.rfind("[Pasted text #")
        return len(text) - start if start >= 0 and self._is_token(text[start:]) else 0

    def token_after(self, text: str) -> int:
        """The length of a token of ours that ``text`` starts with (0: none): Delete."""
        found = _TOKEN.match(text)
        return len(found.group(0)) if found and self._is_token(found.group(0)) else 0

    def broken(self, text: str) -> list[int]:
        """The numbers of our pastes whose token in ``text`` was edited by hand: sending
        would send the placeholder's words without the paste."""
        numbers: list[int] = []
        for found in _START.finditer(text):
            number = int(found.group(1))
            if number in self._texts and not text.startswith(self._token(number), found.start()):
                numbers.append(number)
        return numbers

    def _is_token(self, text: str) -> bool:
        found = _TOKEN.fullmatch(text)
        if found is None:
            return False
        number = int(found.group(1))
        return number in self._texts and text == self._token(number)

    def _token(self, number: int) -> str:
        return f"[Pasted text #{number}: {size_label(self._texts[number])}]"


def shown_part(text: str) -> tuple[str, str]:
    """What a conversation draws of a sent message: ``(head, more)``, where ``more`` is
    empty for a short message (``head`` is then the whole text), else a line such as
    ``… 409 more lines (21.3 KB in all; sent in full)``."""
    lines = (text[:-1] if text.endswith("\n") else text).split("\n")
    if len(lines) <= SHOWN_LINES and len(text) <= SHOWN_CHARS:
        return text, ""
    cut = HEAD_LINE_CHARS
    head = [line[:cut] + ("…" if len(line) > cut else "") for line in lines[:HEAD_LINES]]
    rest = len(lines) - len(head)
    more = f"{rest} more line{'' if rest == 1 else 's'}" if rest else "more"
    return "\n".join(head), f"… {more} ({size_label(text)} in all; sent in full)"
