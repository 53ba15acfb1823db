"""Where a resumed conversation left off, for a front end that cannot scroll back to it.

The TUI redraws a resumed session; the line mode starts on an empty scrollback, and
``--continue`` with nothing on screen leaves the user guessing what was said (or
whether anything was resumed at all). :func:`recap` picks the last thing the user
said and the last answer, each cut to a few lines, and the calls after it that were
cancelled or interrupted (the line mode shows no old calls: a call that never
finished must not read as done). The text comes from a session
file: it is hostile like any other, and the caller prints it through the sanitiser.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from shell.core.messages import AssistantMessage, Message, UserMessage

from .reply import CallView, calls_from_messages, end_notice

PROMPT_LINES = 3
ANSWER_LINES = 12


@dataclass(frozen=True, slots=True)
class Recap:
    messages: int
    said: str
    """The user's last message (cut), or empty."""
    answer: str
    """The last answer's text after that message (cut), or empty."""
    left_out: int
    """Lines of the answer not shown."""
    stopped: tuple[CallView, ...] = ()
    """The calls after the user's last message that were cancelled or interrupted."""
    ended: str = ""
    """"Reply cancelled." when that reply was, as the live one said."""


def recap(messages: Sequence[Message], outcomes: Mapping[str, str] | None = None) -> Recap:
    """``outcomes``: the session's (see :func:`.reply.calls_from_messages`)."""
    said, answer = "", ""
    start = 0
    for at in range(len(messages) - 1, -1, -1):
        message = messages[at]
        if isinstance(message, AssistantMessage) and not answer and message.text.strip():
            answer = message.text.strip()
        elif isinstance(message, UserMessage) and message.text.strip():
            said = message.text.strip()
            start = at
            break
    last = messages[start:]
    calls = calls_from_messages(last, outcomes)
    stopped = tuple(c for c in calls.values() if c.status in ("cancelled", "interrupted"))
    cancelled = any(c.status == "cancelled" for c in stopped) or any(
        isinstance(m, AssistantMessage) and m.stop_reason == "cancelled" for m in last)
    said_lines = said.splitlines()
    if len(said_lines) > PROMPT_LINES:
        said = "\n".join(said_lines[:PROMPT_LINES]) + " …"
    lines = answer.splitlines()
    left_out = max(0, len(lines) - ANSWER_LINES)
    if left_out:
        answer = _close_fences("\n".join(lines[:ANSWER_LINES]))
    return Recap(len(messages), said, answer, left_out, stopped, end_notice("cancelled") if cancelled else "")


def notes_again(notes: Mapping[str, Mapping[str, Sequence[str]]]) -> list[str]:
    """The ⚠ lines of a resumed session whose sandboxed commands planted what runs
    later (moved out of the workspace) or could not write it, said again: the line
    mode shows no old tool calls, and the user may not have acted on them."""
    from .reply import not_written_warning, quarantine_warning

    lines = []
    kinds = (("quarantined", quarantine_warning, "created files that would run later as you; they were"),
             ("not_written", not_written_warning, "could not write files that run later as you:"))
    for key, say, what in kinds:
        calls = [paths for noted in notes.values() if (paths := noted.get(key))]
        if calls:
            who = f"{len(calls)} sandboxed commands" if len(calls) != 1 else "a sandboxed command"
            said = say({key: [path for paths in calls for path in paths]})
            lines.append(f"Earlier in this session {who} {what} {said}")
    return lines


def _close_fences(text: str) -> str:
    """A cut inside a code fence would leave the rest of the recap in code."""
    fence = ""
    for line in text.splitlines():
        mark = line.lstrip()[:3]
        if mark in ("```", "~~~"):
            fence = "" if fence == mark else (fence or mark)
    return f"{text}\n{fence}" if fence else text
