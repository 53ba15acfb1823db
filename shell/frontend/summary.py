"""One line for a tool call's arguments, the same in every front end.

``path=src/app.py, pattern="def main"``: each argument as ``key=value``, strings
as they are unless a space, a comma or nothing at all would make the line
ambiguous (then quoted), other values as compact JSON; each value cut to its
share of the width (at least :data:`VALUE_WIDTH`), the whole line at the width. Runs of white space
(newlines included) become one space, and the result went through the one
sanitiser, so it is a single safe line a front end can print as it is.
"""

from __future__ import annotations

import json
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


def _value(value: Any, room: int) -> str:
    if isinstance(value, str):
        head = value[: room * 2]  # a value may be megabytes long
        text = " ".join(head.split())
        if not text or " " in text or "," in text or text != head:
            return cut(json.dumps(text, ensure_ascii=False), room)
        return cut(text, room)
    text = json_text(map_strings(value, lambda s: s[: room * 2]))  # any nesting a model sends
    return cut(" ".join(text.split()), room)


def summarize_args(args: Mapping[str, Any], width: int = WIDTH) -> str:
    """``key=value, key=value`` in at most ``width`` characters (``""`` for none):
    each value gets its share of the width, at least :data:`VALUE_WIDTH`."""
    room = max(VALUE_WIDTH, width // max(1, len(args)))
    line = ", ".join(f"{key}={_value(value, room)}" for key, value in args.items())
    return cut(sanitize_line(line), width)


def summarize_partial(args_text: str, width: int = WIDTH) -> str:
    """Arguments still streaming in (JSON cut anywhere): what has come, on one line."""
    return cut(sanitize_line(" ".join(args_text[: width * 4].split())), width)
