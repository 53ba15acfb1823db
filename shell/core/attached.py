"""Where a user message's own words end and what it attached begins.

Why: a message that attaches ``@src/app.py`` carries the file's text after the
words, in an ``<attached-file …>`` tag (:mod:`shell.context.attachments` writes
it, the ACP editor's embedded resources too). The session's name in ``/sessions``
and ``--resume`` was the whole text, so it showed the tag and the file's first
lines (a private note, a log) as the title, and the demo model quoted them back
(finding B4). The tag names live here so the writer and every reader agree.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

from .messages import Block, DataBlock, TextBlock

FILE_TAG = "attached-file"
DIR_TAG = "attached-directory"
_TAG_START = re.compile(rf'<(?:{FILE_TAG}|{DIR_TAG}) path="')
_WHOLE_TAG = re.compile(rf'<({FILE_TAG}|{DIR_TAG}) path="[^"]*"[^>]*>.*?</\1>', re.DOTALL)
"""A whole attachment: its content cannot hold the closing tag (it is escaped), so
one match is one attachment whatever the file says."""


def own_words(parts: Sequence[str | None]) -> tuple[str, int]:
    """The words the user typed (the text before the first attached file or folder)
    and how many things the message attached. ``parts``: the text of each text
    block in order, None for a picture or other data block; a message kept as one
    string (ACP joins text-only ones) is one part, cut at its first tag."""
    words: list[str] = []
    attached = 0
    tagged = False
    for part in parts:
        if part is None:
            attached += 1
            continue
        if not tagged:
            first = _TAG_START.search(part)
            words.append(part if first is None else part[: first.start()])
            tagged = first is not None
        attached += len(_WHOLE_TAG.findall(part))
    return "".join(words), attached


def name_of(parts: Sequence[str | None], width: int, clean: Callable[[str], str] | None = None) -> str:
    """One line of at most ``width`` characters naming a message: the user's own
    words (cut with "…" when long) and ``(+2 files)`` when it attached any.
    ``clean`` (a redactor) goes over the words before they are cut."""
    words, attached = own_words(parts)
    words = words[:4096]  # an 8 MB paste is not split whole
    line = " ".join((clean(words) if clean is not None else words).split())
    count = f"(+{attached} file{'s' if attached != 1 else ''})" if attached else ""
    room = width - len(count) - (1 if count and line else 0)
    if len(line) > room:
        line = line[: max(0, room - 1)] + "…"
    return f"{line} {count}" if count and line else line or count


def parts_of(content: str | Sequence[Block]) -> list[str | None]:
    """A message's content as :func:`own_words` reads it."""
    if isinstance(content, str):
        return [content]
    return [b.text if isinstance(b, TextBlock) else None for b in content
            if isinstance(b, (TextBlock, DataBlock))]
