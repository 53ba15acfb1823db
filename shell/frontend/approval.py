"""An approval as plain lines: what is approved is what is seen.

Every argument is shown whole (never cut at a width: a command padded with
spaces to push ``; touch x`` out of sight is shown with its tail), multi-line
values line by line, and the policy's preview (a diff for file edits, the
commands a shell line runs) after them. The line mode and headless mode print
these lines; the TUI dialog shows the same pieces in its own widgets.

Callers sanitise the lines before they reach a terminal.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from shell.core.approvals import ApprovalRequest

DIFF_REPLACES = ("content", "old_string", "new_string")
"""Arguments a diff preview shows in full already (the change itself)."""


@dataclass(frozen=True, slots=True)
class Choice:
    key: str
    label: str
    decision: str


def choices(request: ApprovalRequest) -> list[Choice]:
    """Only what the request allows: approve (y), edit (e), reject (n), and
    always (a) when approving is allowed and a rule could cover the call."""
    allowed = request.allowed_decisions
    out = []
    if "approve" in allowed:
        out.append(Choice("y", "approve", "approve"))
    if "edit" in allowed:
        out.append(Choice("e", "edit", "edit"))
    if "reject" in allowed:
        out.append(Choice("n", "reject", "reject"))
    if "approve" in allowed and request.suggested_rules:
        out.append(Choice("a", "always", "always"))
    return out


def is_diff(preview: str) -> bool:
    return preview.startswith(("--- ", "(no "))


def value_lines(value: Any) -> list[str]:
    """A value whole: strings as they are (line by line), the rest as JSON."""
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, indent=2)
    return text.split("\n") if text else ['""']


def argument_lines(request: ApprovalRequest, *, indent: str = "  ") -> list[str]:
    """``key: value`` per argument, every character of it (a diff preview stands
    in for the content it shows)."""
    skip = DIFF_REPLACES if request.preview.startswith("--- ") else ()
    lines: list[str] = []
    for key, value in request.args.items():
        if key in skip:
            continue
        body = value_lines(value)
        if len(body) == 1:
            lines.append(f"{indent}{key}: {body[0]}")
        else:
            lines.append(f"{indent}{key}:")
            lines.extend(f"{indent}  {line}" for line in body)
    if not request.args:
        lines.append(f"{indent}(no arguments)")
    return lines


def approval_lines(request: ApprovalRequest, *, indent: str = "  ") -> list[str]:
    """The tool, why it asks, every argument, then the preview."""
    lines = [f"{request.call.name}"]
    words = request.own_words()
    if words:
        lines.extend(f"{indent}{line}" for line in words.splitlines() if line.strip())
    lines.extend(argument_lines(request, indent=indent))
    if request.preview:
        lines.extend(f"{indent}{line}" for line in request.preview.split("\n"))
    return lines
