"""How a span of the ``Tracing`` tree reads in the trace view: one line each.

Kept apart from the widget so the words can be tested without a screen and the
widget only decides *when* to redraw. Spans are read duck-typed (``name``,
``kind``, ``start``, ``end``, ``attributes``, ``children``, ``events``,
``status``), so the UI does not depend on the middleware's classes; ``now`` is
passed in, so a running span's elapsed time (and every snapshot) is under the
caller's control.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from rich.style import Style
from rich.text import Text

from shell.core.textsafety import sanitize

Styles = Mapping[str, Style | str]
"""Rich styles by role (``ok``, ``error``, ``warning``, ``running``, ``muted``,
``name``); the widget fills them from its theme-driven component classes."""
NO_STYLES: Styles = {}

MIDDLEWARE_PREFIX = "agent_shell.middleware."
MIDDLEWARE_SUFFIX = ".time_s"

STATUS_MARK = {
    "running": ("◌", "running"),
    "ok": ("✓", "ok"),
    "error": ("✗", "error"),
    "blocked": ("⊘", "error"),
    "cancelled": ("■", "warning"),
    "interrupted": ("■", "warning"),
}


def duration(seconds: float) -> str:
    """0.42s under a minute (ms under 10 ms), 1m05s above."""
    if seconds < 0.01:
        return f"{seconds * 1000:.1f}ms"
    if seconds < 60:
        return f"{seconds:.2f}s"
    return f"{int(seconds // 60)}m{int(seconds % 60):02d}s"


def elapsed(span: Any, now: float) -> str:
    end = span.end
    if end is None:
        return duration(max(0.0, now - span.start)) + "…"
    return duration(max(0.0, end - span.start))


def tokens(attributes: dict[str, Any]) -> str:
    tin = attributes.get("gen_ai.usage.input_tokens")
    tout = attributes.get("gen_ai.usage.output_tokens")
    if tin is None and tout is None:
        return ""
    return f"{tin or 0}→{tout or 0} tok"


def prompt_of(span: Any, width: int = 20) -> str:
    """The user's words that started the reply (from ``gen_ai.input.messages``)."""
    raw = span.attributes.get("gen_ai.input.messages")
    if not isinstance(raw, str):
        return ""
    try:
        messages = json.loads(raw)
        text = " ".join(
            str(part.get("content", ""))
            for m in messages
            for part in m.get("parts", [])
            if isinstance(part, dict)
        )
    except (ValueError, AttributeError, TypeError):
        text = raw
    text = " ".join(sanitize(text).split())
    return text if len(text) <= width else text[: width - 1] + "…"


def middleware_times(span: Any) -> list[tuple[str, float]]:
    """``(middleware, seconds)`` recorded on a reply's root, slowest first."""
    out = []
    for key, value in span.attributes.items():
        if key.startswith(MIDDLEWARE_PREFIX) and key.endswith(MIDDLEWARE_SUFFIX):
            name = key[len(MIDDLEWARE_PREFIX) : -len(MIDDLEWARE_SUFFIX)]
            if isinstance(value, (int, float)):
                out.append((name, float(value)))
    return sorted(out, key=lambda item: -item[1])


def _mark(text: Text, status: str, styles: Styles) -> None:
    mark, style = STATUS_MARK.get(status, ("·", "muted"))
    text.append(mark + " ", style=styles.get(style, ""))


def label(span: Any, now: float, number: int | None = None, styles: Styles = NO_STYLES) -> Text:
    """The tree line of one span: what it is, how long, tokens or status."""
    text = Text(no_wrap=True, overflow="ellipsis")
    _mark(text, span.status, styles)
    attrs = span.attributes
    if span.kind == "agent":
        said = prompt_of(span)
        text.append(f"reply {number}" if number is not None else "reply", style=styles.get("name", ""))
        if said:
            text.append(f" “{said}”", style=styles.get("muted", ""))
        details = [elapsed(span, now), tokens(attrs)]
    elif span.kind == "model":
        text.append("model ", style=styles.get("name", ""))
        text.append(sanitize(str(attrs.get("gen_ai.request.model", span.name))))
        reasons = attrs.get("gen_ai.response.finish_reasons") or []
        details = [elapsed(span, now), tokens(attrs), ", ".join(map(str, reasons))]
    elif span.kind == "tool":
        text.append("tool ", style=styles.get("name", ""))
        text.append(sanitize(str(attrs.get("gen_ai.tool.name", span.name))))
        details = [elapsed(span, now), "" if span.status in ("ok", "running") else span.status]
    else:
        text.append(sanitize(span.name), style=styles.get("name", ""))
        details = [elapsed(span, now)]
    shown = [d for d in details if d]
    if shown:
        text.append("  " + " · ".join(shown), style=styles.get("muted", ""))
    return text


def record_label(record: Any, now: float, styles: Styles = NO_STYLES) -> Text:
    """A reply Tracing did not see (a :class:`~shell.tui.replylog.ReplyRecord`): its
    number, words, time, tokens, from the front-end core's reply state."""
    state = record.state
    text = Text(no_wrap=True, overflow="ellipsis")
    status = "running" if record.ended is None else {
        "end_turn": "ok", "cancelled": "cancelled", "error": "error"}.get(state.stop_reason, "ok")
    _mark(text, status, styles)
    text.append(f"reply {record.number}", style=styles.get("name", ""))
    said = " ".join(sanitize(record.text).split())
    if said:
        text.append(f" “{said if len(said) <= 20 else said[:19] + '…'}”", style=styles.get("muted", ""))
    end = record.ended if record.ended is not None else now
    usage = state.usage
    spent = {"gen_ai.usage.input_tokens": usage.input_tokens,
             "gen_ai.usage.output_tokens": usage.output_tokens}
    details = [duration(max(0.0, end - record.started)) + ("" if record.ended is not None else "…"),
               tokens(spent) if usage.input_tokens or usage.output_tokens else "", "untraced"]
    text.append("  " + " · ".join(d for d in details if d), style=styles.get("muted", ""))
    return text


def call_label(call: Any, styles: Styles = NO_STYLES) -> Text:
    """One tool call of an untraced reply (a :class:`~shell.frontend.reply.CallView`)."""
    text = Text(no_wrap=True, overflow="ellipsis")
    ok = call.status == "done"
    ended = call.status if call.status in ("cancelled", "interrupted") else "error"
    status = "ok" if ok else "running" if call.live else ended

    _mark(text, status, styles)
    text.append("tool ", style=styles.get("name", ""))
    text.append(sanitize(call.name))
    took = duration(call.duration_s) if call.duration_s is not None else ""
    details = [took, "" if ok or call.live else call.label]
    shown = [d for d in details if d]
    if shown:
        text.append("  " + " · ".join(shown), style=styles.get("muted", ""))
    return text


def middleware_label(times: list[tuple[str, float]], styles: Styles = NO_STYLES) -> Text:
    total = sum(t for _, t in times)
    text = Text(no_wrap=True, overflow="ellipsis")
    text.append("⚙ middleware", style=styles.get("name", ""))
    text.append(f"  {duration(total)}", style=styles.get("muted", ""))
    return text


def middleware_row(name: str, seconds: float, styles: Styles = NO_STYLES) -> Text:
    text = Text(no_wrap=True, overflow="ellipsis")
    text.append(sanitize(name))
    text.append(f"  {duration(seconds)}", style=styles.get("muted", ""))
    return text


def event_label(event: dict[str, Any], styles: Styles = NO_STYLES) -> Text:
    """An approval or error recorded on the reply span."""
    name = str(event.get("name", ""))
    attrs = event.get("attributes") or {}
    text = Text(no_wrap=True, overflow="ellipsis")
    if name == "agent_shell.approval.pending":
        text.append("? approval asked ", style=styles.get("warning", ""))
        text.append(sanitize(str(attrs.get("gen_ai.tool.name", ""))))
    elif name == "agent_shell.approval.resolved":
        text.append("! approval ", style=styles.get("warning", ""))
        text.append(sanitize(str(attrs.get("agent_shell.approval.decision", ""))))
    elif name == "exception":
        text.append("✗ ", style=styles.get("error", ""))
        text.append(sanitize(str(attrs.get("exception.message", "error")))[:80])
    else:
        text.append(sanitize(name), style=styles.get("muted", ""))
    return text
