"""Long text arguments edited as text in the approval dialog, not as one JSON line.

Why: the edit view showed the arguments as JSON, so a ``write_file``'s content (2,000
lines) was one escaped line of 53,000 characters ("line 0…\\nline 1…"): unreadable, and
each key took 0.3-0.5 s to appear while Textual re-wrapped the line (finding Y7). A
top-level string argument that holds a line break, or is long, gets a box of its own
holding the text as it is; the JSON box holds the rest. What the user then runs is
the JSON with each text put back in its place, checked as any edit is
(:func:`shell.core.approvals.parse_edited_args`).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from shell.core.approvals import json_object
from shell.core.textsafety import sanitize

LONG = 120
"""A string argument this long (or with a line break) is edited in a box of its own."""
MIN_BOX = 3
"""Rows a text box keeps however small the dialog: its border and one line of text."""


def split_texts(args: Mapping[str, Any]) -> tuple[dict[str, Any], dict[str, str]]:
    """``args`` as the JSON box's part and the text boxes' (name → text), in order. A
    text holding what the screen would not show as it is (a control character, a bidi
    override, a zero-width space, a CR) stays in the JSON, escaped, where it can be seen."""
    texts = {k: v for k, v in args.items()
             if isinstance(v, str) and ("\n" in v or len(v) >= LONG) and sanitize(v) == v}
    return {k: v for k, v in args.items() if k not in texts}, texts


def merged(original: Mapping[str, Any], edited: str, texts: Mapping[str, str]) -> str:
    """The JSON the edit stands for: the JSON box's object with each text put back where
    it was (new keys after). Raises ``ValueError`` with what to fix."""
    rest = json_object(edited)
    twice = [key for key in texts if key in rest]
    if twice:
        raise ValueError(f"{twice[0]!r} is edited in its own box below: leave it out of the JSON.")
    out: dict[str, Any] = {}
    for key in original:
        if key in texts:
            out[key] = texts[key]
        elif key in rest:
            out[key] = rest[key]
    out.update((key, value) for key, value in rest.items() if key not in out)
    return json.dumps(out)


def box_heights(room: int, wants: list[int]) -> list[int]:
    """The heights the edit view's text boxes get out of ``room`` rows, each wanting
    ``wants`` (its text and border): all they want when it fits, else a fair share
    (a small box keeps what it needs, the rest split the remainder), never under
    :data:`MIN_BOX`. Why: two boxes each bounded on their own (max 14 and 16 rows)
    filled an 80x24 dialog, and the validity line and the Run/Back buttons under them
    were below its edge (finding B3)."""
    heights = [0] * len(wants)
    left, waiting = max(room, 0), sorted(range(len(wants)), key=lambda i: wants[i])
    while waiting:
        share = left // len(waiting)
        i = waiting.pop(0)
        heights[i] = max(MIN_BOX, min(wants[i], share if waiting else left))
        left -= heights[i]
    return heights
