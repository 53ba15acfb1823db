"""The data behind a tool-call span, kept apart from the widget.

The conversation drops old widgets out of the tree (virtualisation) and builds
them again when scrolled to; a span rebuilt from its :class:`SpanState` looks the
same as the live one did.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal, TypeAlias

from shell.core.textsafety import json_text, map_strings

Status: TypeAlias = Literal[
    "streaming", "pending", "approval", "running", "done", "error", "blocked", "cancelled"
]

ICONS: dict[str, str] = {
    "streaming": "◌",
    "pending": "·",
    "approval": "?",
    "running": "◐",
    "done": "✓",
    "error": "✗",
    "blocked": "⊘",
    "cancelled": "■",
}
LABELS: dict[str, str] = {
    "streaming": "preparing",
    "pending": "waiting",
    "approval": "awaiting approval",
    "running": "running",
    "done": "done",
    "error": "error",
    "blocked": "blocked",
    "cancelled": "cancelled",
}


@dataclass(slots=True)
class SpanState:
    call_id: str
    name: str
    status: Status = "streaming"
    args_text: str = ""
    args: dict[str, Any] | None = None
    modified: bool = False
    decision: str = ""
    progress: str = ""
    result: str = ""
    is_error: bool = False
    diff: str = ""
    duration_s: float | None = None
    details: dict[str, Any] = field(default_factory=dict)

    def args_json(self) -> str:
        if self.args is not None:  # any nesting a model sends (json.dumps would recurse out)
            return json_text(map_strings(self.args, str), indent=2)
        return self.args_text

    def summary(self, width: int = 60) -> str:
        """One line of arguments: ``path=a.txt, pattern=foo``."""
        if self.args is None:
            text = self.args_text[: width * 2].replace("\n", " ")  # it may be megabytes long
        else:
            parts = []
            for key, value in self.args.items():
                shown = value if isinstance(value, str) else json_text(map_strings(value, str))
                parts.append(f"{key}={shown[: width * 2]}")
            text = ", ".join(parts).replace("\n", "⏎")
        return text if len(text) <= width else text[: width - 1] + "…"
