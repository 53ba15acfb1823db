"""One line for a tool call's arguments, the same in every front end.

``path=src/app.py, pattern="def main"``: each argument as ``key=value``, strings
as they are unless a space, a comma or nothing at all would make the line
ambiguous (then quoted), other values as compact JSON; each value cut to its
share of the width (at least :data:`VALUE_WIDTH`), the whole line at the width;
every cut ends in ``…``. Runs of white space (newlines included) become one space
*before* anything is cut, so a tail pushed out of sight by padding still shows
when it fits, and the result went through the one sanitiser, so it is a single
safe line a front end can print as it is.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import Any

from shell.core.textsafety import json_text, map_strings, sanitize_line

VALUE_WIDTH = 40
"""Characters of one argument's value in a summary (the dialog shows it whole)."""
WIDTH = 80


def cut(text: str, width: int) -> str:
    """``text`` in at most ``width`` characters, an ellipsis marking a cut."""
    if width <= 0:
        return ""
    return text if len(text) <= width else text[: width - 1] + "…"


_WORD = re.compile(r"\S+")


def collapse(text: str, limit: int) -> tuple[str, bool]:
    """``text`` with each run of white space as one space (ends stripped), stopping
    once about ``limit`` characters are kept, and whether anything was left out.

    Collapsing comes *before* cutting: ``echo safe`` + 3,000 spaces + ``; curl …|sh``
    is short once collapsed and is shown whole, where cutting first would show
    ``echo safe`` and lose the tail without a mark. Reads only as far as needed
    (a value may be megabytes long)."""
    words: list[str] = []
    size = 0
    for match in _WORD.finditer(text):
        if size >= limit:
            return " ".join(words), True
        word = match.group()
        words.append(word)
        size += len(word) + 1
    return " ".join(words), False


def _marked(text: str, width: int, left_out: bool) -> str:
    """:func:`cut`, with the ellipsis also when ``text`` fits but something was left out."""
    if left_out and len(text) < width:
        return text + "…"
    if left_out:
        return text[: width - 1] + "…"
    return cut(text, width)


def _short(text: str, limit: int) -> str:
    shown, left_out = collapse(text, limit)
    return _marked(shown, limit, left_out)


def _value(value: Any, room: int) -> str:
    if isinstance(value, str):
        text, left_out = collapse(value, room * 2)
        if not text or " " in text or "," in text or left_out or text != value:
            quoted = json.dumps(text, ensure_ascii=False)
            # cut or not, a quote left open (no closing ") says the value goes on
            return _marked(quoted[:-1], room, True) if left_out else cut(quoted, room)
        return cut(text, room)
    text = json_text(map_strings(value, lambda s: _short(s, room * 2)))  # any nesting a model sends
    shown, left_out = collapse(text, room * 2)
    return _marked(shown, room, left_out)


def summarize_args(args: Mapping[str, Any], width: int = WIDTH) -> str:
    """``key=value, key=value`` in at most ``width`` characters (``""`` for none):
    each value gets its share of the width, at least :data:`VALUE_WIDTH`; every cut
    is marked with an ellipsis."""
    room = max(VALUE_WIDTH, width // max(1, len(args)))
    line = ", ".join(f"{key}={_value(value, room)}" for key, value in args.items())
    return cut(sanitize_line(line), width)


def summarize_partial(args_text: str, width: int = WIDTH) -> str:
    """Arguments still streaming in (JSON cut anywhere): what has come, on one line."""
    text, left_out = collapse(args_text, width * 2)
    return _marked(sanitize_line(text), width, left_out)
