"""Small pieces the command modules share."""

from __future__ import annotations

import re


def fence(text: str) -> str:
    """A Markdown code fence longer than any run of backticks in ``text``."""
    return "`" * max(3, 1 + max((len(r) for r in re.findall(r"`+", text)), default=0))
