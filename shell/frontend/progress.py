"""What a running tool's progress reads as on its line: "3 of 30 (10%)", not the dict.

A tool reports progress as it likes: a shell command its output (text), an MCP
server ``{"progress": done, "total": total, "message": …}`` (MCP's progress
notification, numbers of any size and a message of its own), a call that waits long
``{"message": …, "waiting": seconds}``. The TUI and line mode show one short line
of it; every string in it is the tool's or the server's, so it is sanitised here.
"""

from __future__ import annotations

import math
from typing import Any

from shell.core.textsafety import sanitize_line

WIDTH = 60
"""Characters of progress shown on a call's line (more ends in "…")."""
TEXT_WIDTH = 40
"""Of a tool's own text (a command's latest output): its first characters."""


def progress_text(progress: Any) -> str:
    """One short, sanitised line for a ``ToolExecutionUpdate.progress``."""
    if isinstance(progress, dict):
        return _cut(_reported(progress), WIDTH)
    return _cut(str(progress).replace("\n", " "), TEXT_WIDTH)


def _reported(progress: dict[Any, Any]) -> str:
    done, total = _number(progress.get("progress")), _number(progress.get("total"))
    message = progress.get("message")
    parts = []
    if done is not None:
        if total is not None and total > 0:
            percent = min(100, max(0, round(100 * done / total)))
            parts.append(f"{_amount(done)} of {_amount(total)} ({percent}%)")
        else:
            parts.append(_amount(done))
    if isinstance(message, str) and message.strip():
        parts.append(message.strip())
    return " · ".join(parts)


def _number(value: Any) -> float | None:
    """A finite number, or None (a server may send anything)."""
    if isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value):
        return float(value)
    return None


def _amount(value: float) -> str:
    """3.0058 → "3", 2.5 → "2.5", 12345678 → "12,345,678"."""
    if abs(value) >= 1e15:
        return f"{value:.3g}"
    rounded = round(value, 1)
    return f"{int(rounded):,}" if rounded == int(rounded) else f"{rounded:,}"


def _cut(text: str, width: int) -> str:
    line = sanitize_line(text)
    return line if len(line) <= width else line[:width - 1] + "…"


__all__ = ["progress_text"]
