"""A reply's events reduced to what every front end shows: the one reducer.

:class:`ReplyState` takes each event of one reply (``apply``) and keeps the facts
the TUI, the line mode and headless mode all draw: every tool call as a
:class:`CallView` (status, arguments as they stream in and as they ran, the
user's decision, progress, result, diff, time), the phase a status line shows
(``thinking``, ``streaming``, ``approval``, ``tool``, ``idle``), the usage the
model calls reported, the errors, and how the reply ended (its stop reason, its
answer, its exit code). The front ends only draw from it, so a call rejected in
the approval dialog is "rejected" with the same words in all three, live and
after a resume.

A :class:`CallView` can also be rebuilt from a saved conversation
(:func:`calls_from_messages`), so a resumed session shows its calls as they ended.
Nothing here draws or imports a UI library; strings stay as they came (the front
ends sanitise at the moment they write), except the one-line summaries, which
:mod:`.summary` makes safe.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, TypeAlias

from shell.core import events as ev
from shell.core.messages import (
    AssistantMessage,
    Message,
    ToolCallBlock,
    ToolResultMessage,
    Usage,
    stored_text,
)
from shell.core.packed_text import packed_field, store
from shell.core.textsafety import json_text, map_strings, sanitize_line

from .exits import exit_code
from .progress import progress_text
from .summary import summarize_args, summarize_partial

Status: TypeAlias = Literal[
    "streaming", "pending", "checking", "approval", "running", "done", "error", "blocked", "rejected",
    "cancelled", "interrupted",
]
Phase: TypeAlias = Literal["idle", "thinking", "streaming", "approval", "tool"]

ICONS: dict[str, str] = {
    "streaming": "◌",
    "pending": "·",
    "checking": "…",
    "approval": "?",
    "running": "◐",
    "done": "✓",
    "error": "✗",
    "blocked": "⊘",
    "rejected": "⊘",
    "cancelled": "■",
    "interrupted": "■",
}
LABELS: dict[str, str] = {
    "streaming": "preparing",
    "pending": "waiting",
    "checking": "checking permission…",
    "approval": "awaiting approval",
    "running": "running",
    "done": "done",
    "error": "error",
    "blocked": "blocked",
    "rejected": "rejected",
    "cancelled": "cancelled",
    "interrupted": "interrupted",
}
LIVE: frozenset[str] = frozenset({"streaming", "pending", "checking", "approval", "running"})
"""Statuses of a call that has not ended."""


@dataclass(slots=True)
class CallView:
    """One tool call as the user sees it, from its first argument delta to its result."""

    call_id: str
    name: str
    status: Status = "streaming"
    args: dict[str, Any] | None = None
    """The arguments once complete (as they ran, after an edit)."""
    modified: bool = False
    """The arguments it ran with are not the model's."""
    modified_by: str = ""
    """Who changed them: ``you`` (an edit in the approval) or a middleware's name."""
    asked_args: dict[str, Any] | None = None
    """The model's arguments when they are not the ones that ran ("asked for")."""
    decision: str = ""
    """``approve``, ``approve (always)``, ``edit`` or ``reject``; empty when nobody was asked."""
    progress: str = ""
    result: str = ""
    is_error: bool = False
    diff: str = ""
    duration_s: float | None = None
    """How long the tool itself ran (an approval wait is not counted)."""
    args_error: str = ""
    warning: str = ""
    """What the user must hear about a call that went well for the model: files a
    sandboxed command planted that run later as them, moved out of the workspace."""
    _parts: list[str] = field(default_factory=list, repr=False)

    @property
    def args_text(self) -> str:
        """The argument JSON streamed so far (joined on demand: there may be thousands of pieces)."""
        if len(self._parts) > 1:
            self._parts[:] = ["".join(self._parts)]
        return self._parts[0] if self._parts else ""

    @args_text.setter
    def args_text(self, text: str) -> None:
        self._parts[:] = [text] if text else []

    def add_args(self, delta: str) -> None:
        self._parts.append(delta)

    @property
    def live(self) -> bool:
        return self.status in LIVE

    @property
    def icon(self) -> str:
        return ICONS[self.status]

    @property
    def label(self) -> str:
        return LABELS[self.status]

    def args_json(self) -> str:
        """The arguments as indented JSON (or what has streamed of them)."""
        if self.args is not None:  # any nesting a model sends (json.dumps would recurse out)
            return json_text(map_strings(self.args, str), indent=2)
        return self.args_text

    def summary(self, width: int = 80) -> str:
        """The one-line argument summary (see :mod:`.summary`)."""
        if self.args is None:
            return summarize_partial(self.args_text, width)
        return summarize_args(self.args, width)

    def first_result_line(self, width: int = 200) -> str:
        """The result's first non-empty line (an error's gist), unsanitised."""
        for line in self.result.splitlines():
            if line.strip():
                return line.strip()[:width]
        return ""


# ``result`` shares the history's packed text (see shell.core.packed_text): read as a
# str, held as UTF-8 bytes when large; a span decodes it only when opened.
packed_field(CallView, "result", auto=True)


def ended_status(
    result_is_error: bool, *, blocked: bool, cancelled: bool, rejected: bool = False,
    interrupted: bool = False,
) -> Status:
    """How a finished call reads: cancelled (the user's Esc or Ctrl+C), interrupted
    (agent-shell stopped while it ran: a resumed session's), rejected (the user said
    no), blocked (a gate stopped it), error or done."""
    if interrupted:
        return "interrupted"
    if cancelled:
        return "cancelled"
    if blocked:
        return "rejected" if rejected else "blocked"
    return "error" if result_is_error else "done"


class ReplyState:
    """The state of one reply, advanced one event at a time by :meth:`apply`."""

    def __init__(self) -> None:
        self.reply_id = ""
        self.phase: Phase = "thinking"
        self.calls: dict[str, CallView] = {}
        self.usage = Usage()
        self.model = ""
        """The model the last model call went to: the one that answered, after a
        fallback too (``ModelCallStart`` names the model each attempt called)."""
        self.errors: list[tuple[str, str]] = []
        """``(source, text)`` of each ``ErrorEvent`` and error-level ``Notice``."""
        self.end: ev.ReplyEnd | None = None
        self.cancelled = False
        self.withdrawn: tuple[Message, ...] = ()
        """The input the engine took back out of the history (it did not fit the
        context, or the reply was cancelled before any answer): the front end gives
        its text back to the user."""
        self._table: dict[type, Callable[[Any], CallView | None]] = {
            ev.ReplyStart: self._reply_start,
            ev.ModelCallStart: self._model_call_start,
            ev.ModelCallEnd: self._model_call_end,
            ev.TextBlockStart: self._streaming,
            ev.ThinkingBlockStart: self._thinking,
            ev.ToolCallStart: self._call_start,
            ev.ToolCallDelta: self._call_delta,
            ev.ToolCallEnd: self._call_end,
            ev.PermissionChecking: self._permission_checking,
            ev.ApprovalRequested: self._approval_requested,
            ev.ApprovalResolved: self._approval_resolved,
            ev.ToolExecutionStart: self._exec_start,
            ev.ToolArgsChanged: self._args_changed,
            ev.ToolExecutionUpdate: self._exec_update,
            ev.ToolExecutionEnd: self._exec_end,
            ev.ErrorEvent: self._error,
            ev.Notice: self._notice,
            ev.ReplyEnd: self._reply_end,
        }

    # -- reading it ---------------------------------------------------------------
    @property
    def stop_reason(self) -> str:
        """How the reply ended; ``error`` for one that never reached its end."""
        return self.end.stop_reason if self.end is not None else "error"

    @property
    def answer(self) -> str:
        message = self.end.message if self.end is not None else None
        return message.text if message is not None else ""

    @property
    def shown_stop(self) -> str:
        """The stop reason to report: ``max_tokens`` when the answer was cut at the
        output limit (the loop ends such a reply ``end_turn``)."""
        message = self.end.message if self.end is not None else None
        if self.stop_reason == "end_turn" and message is not None and message.stop_reason == "max_tokens":
            return "max_tokens"
        return self.stop_reason

    @property
    def exit_code(self) -> int:
        return exit_code(self.stop_reason)

    # -- advancing it -------------------------------------------------------------
    def apply(self, event: Any) -> CallView | None:
        """Take one event; returns the call it changed, if any."""
        handler = self._table.get(type(event))
        if handler is None:
            return None
        if self.cancelled and isinstance(event, (ev.ToolCallDelta, ev.ToolExecutionUpdate)):
            return None  # cancelled: what was in flight is not drawn
        return handler(event)

    def cancel(self) -> None:
        """The user cancelled: later deltas are ignored (the reply's end still comes)."""
        self.cancelled = True

    def finish(self) -> list[CallView]:
        """End what is still live (a cancelled or failed reply leaves some); the calls changed."""
        self.phase = "idle"
        changed = [call for call in self.calls.values() if call.live]
        for call in changed:
            call.status = "cancelled"
        return changed

    def _reply_start(self, event: ev.ReplyStart) -> None:
        self.reply_id = event.reply_id
        self.phase = "thinking"

    def _thinking(self, event: Any) -> None:
        self.phase = "thinking"

    def _model_call_start(self, event: ev.ModelCallStart) -> None:
        self.phase, self.model = "thinking", event.model

    def _streaming(self, event: Any) -> None:
        self.phase = "streaming"

    def _model_call_end(self, event: ev.ModelCallEnd) -> None:
        self.usage = self.usage + event.usage

    def _call(self, call_id: str, name: str) -> CallView:
        call = self.calls.get(call_id)
        if call is None:
            call = self.calls[call_id] = CallView(call_id, name)
        return call

    def _call_start(self, event: ev.ToolCallStart) -> CallView:
        self.phase = "streaming"
        return self._call(event.call_id, event.name)

    def _call_delta(self, event: ev.ToolCallDelta) -> CallView | None:
        call = self.calls.get(event.call_id)
        if call is not None and call.args is None:
            call.add_args(event.delta)
        return call

    def _call_end(self, event: ev.ToolCallEnd) -> CallView:
        call = self._call(event.call_id, event.name)
        call.status = "pending"
        if event.args_error:
            call.args, call.args_error = None, event.args_error
            call.result = event.args_error
        else:
            call.args = dict(event.args)
        return call

    def _permission_checking(self, event: ev.PermissionChecking) -> CallView | None:
        """A slow permission check: said on a call still waiting for it, and no more once it ends."""
        call = self.calls.get(event.call_id)
        if call is None or call.status not in ("pending", "checking"):
            return None
        call.status = "checking" if event.checking else "pending"
        return call

    def _approval_requested(self, event: ev.ApprovalRequested) -> CallView | None:
        self.phase = "approval"
        call = self.calls.get(event.call_id)
        if call is not None:
            call.status = "approval"
        return call

    def _approval_resolved(self, event: ev.ApprovalResolved) -> CallView | None:
        self.phase = "tool"
        call = self.calls.get(event.call_id)
        if call is not None:
            decision = event.decision
            # a rejection stays "reject" (what a refused call is recognised by)
            rest = " (the rest)" if decision.rest and decision.type == "approve" else ""
            call.decision = decision.type + (" (always)" if decision.always else "") + rest
            call.status = "pending"
        return call

    def _exec_start(self, event: ev.ToolExecutionStart) -> CallView:
        self.phase = "tool"
        call = self._call(event.call_id, event.name)
        self._runs_with(call, event.args, event.edited_by)
        call.status = "running"
        return call

    def _args_changed(self, event: ev.ToolArgsChanged) -> CallView | None:
        call = self.calls.get(event.call_id)
        if call is not None:
            self._runs_with(call, event.args, event.edited_by)
        return call

    @staticmethod
    def _runs_with(call: CallView, args: Mapping[str, Any], edited_by: str) -> None:
        """The call's arguments are now what runs; the model's kept as "asked for" when
        someone changed them."""
        if edited_by or (call.args is not None and dict(args) != call.args):
            if call.asked_args is None and call.args is not None:
                call.asked_args = call.args
            call.modified = True
            call.modified_by = edited_by or "you"
        call.args = dict(args)

    def _exec_update(self, event: ev.ToolExecutionUpdate) -> CallView | None:
        call = self.calls.get(event.call_id)
        if call is not None:
            call.progress = progress_text(event.progress)
        return call

    def _exec_end(self, event: ev.ToolExecutionEnd) -> CallView | None:
        self.phase = "thinking"
        call = self.calls.get(event.call_id)
        if call is None:
            return None
        result = event.result
        details = result.details if isinstance(result.details, dict) else {}
        diff = details.get("diff")
        store(call, "result", stored_text(result))  # shared with the history, packed if large
        call.is_error = result.is_error
        call.diff = diff if isinstance(diff, str) else ""
        call.warning = call_warning(details)
        call.duration_s = event.duration_s
        call.progress = ""
        cancelled = bool(details.get("cancelled"))
        rejected = call.decision == "reject"
        call.status = ended_status(result.is_error, blocked=event.blocked, cancelled=cancelled,
                                   rejected=rejected)
        return call

    def _error(self, event: ev.ErrorEvent) -> None:
        self.errors.append((event.source, event.error))
        self.withdrawn = self.withdrawn or event.withdrawn

    def _notice(self, event: ev.Notice) -> None:
        if event.level == "error":  # a session that could not be saved: the script must know
            self.errors.append((event.source, event.text))

    def _reply_end(self, event: ev.ReplyEnd) -> None:
        self.end = event
        self.withdrawn = self.withdrawn or event.withdrawn  # cancelled before any answer
        self.cancelled = self.cancelled or event.stop_reason == "cancelled"


def call_head(call: CallView, width: int = 80) -> tuple[str, str, str, str]:
    """The pieces of a call's one line, for a front end to style: icon, name, the
    argument summary and the tail (`` · 0.12s`` once it ran, `` (running)`` while it
    runs, the status otherwise), each safe to print."""
    if call.status == "running":
        tail = " (running)"
    elif call.duration_s is not None and call.status in ("done", "error"):
        tail = f" · {call.duration_s:.2f}s"
    else:
        tail = f" · {call.label}"
    return call.icon, sanitize_line(call.name), call.summary(width), tail


def call_lines(call: CallView, width: int = 80) -> list[str]:
    """A call as plain lines: its head, then (when it failed or was stopped) the
    first line of what the model read about it."""
    icon, name, summary, tail = call_head(call, width)
    lines = [f"{icon} {name} {summary}{tail}".replace("  ", " ")]
    if call.is_error or call.status in ("blocked", "rejected"):
        gist = call.first_result_line()
        if gist:
            lines.append(f"  {sanitize_line(gist)}")
    if call.modified:
        lines.append(f"  {modified_line(call, width)}")
    if call.warning:
        lines.append(f"  ⚠ {sanitize_line(call.warning)}")
    return lines


def modified_line(call: CallView, width: int = 80) -> str:
    """``modified by <who>; the model asked for (<summary>)``: a call whose arguments
    are not the model's says so, and what the model asked for stays visible."""
    asked = f"; the model asked for ({summarize_args(call.asked_args, width)})" if call.asked_args else ""
    return sanitize_line(f"modified by {call.modified_by or 'you'}{asked}")


def call_warning(details: Mapping[str, Any]) -> str:
    """What the user must hear about a call beyond its status (a sandboxed command's
    planted files moved out, or files that run later it could not write), else empty."""
    return "; ".join(w for w in (quarantine_warning(details), not_written_warning(details)) if w)


def not_written_warning(details: Mapping[str, Any]) -> str:
    """``NOT written …: .vscode/settings.json`` for a sandboxed command that exited as if
    it had written what runs later as the user (a ``git checkout``), else empty."""
    names = _named(details.get("not_written"))
    return (f"NOT written, as they run later as you (the sandbox keeps them read-only): {names} (they "
            "still hold what they held before; the result says more)") if names else ""


def quarantine_warning(details: Mapping[str, Any]) -> str:
    """``moved out of the workspace: .envrc, .vscode (…)`` for a sandboxed command that
    created what runs later as the user (``run_shell``'s ``quarantined``), else empty."""
    names = _named(details.get("quarantined"))
    return (f"moved out of the workspace, as they would run later as you: {names} (the result says "
            "where to; /quarantine lists them and puts one back)") if names else ""


def _named(paths: Any) -> str:
    """``a, b, c, d and 3 more`` for a details list of paths; empty for none."""
    if not isinstance(paths, list) or not paths:
        return ""
    more = f" and {len(paths) - 4} more" if len(paths) > 4 else ""
    return ", ".join(str(p) for p in paths[:4]) + more


WITHDRAWN_NOTE = "(the model's answer failed part way and was asked again: the text above is not part of it)"
"""What a front end that cannot take printed text back (``--plain``, ACP) says after it
when a middleware retried a model call (:class:`~shell.core.events.AttemptWithdrawn`)."""


def end_notice(stop_reason: str) -> str:
    """What a front end says under a reply that did not simply answer ("" when it did)."""
    return {"cancelled": "Reply cancelled.", "max_rounds": "Stopped: too many rounds."}.get(stop_reason, "")


def calls_from_messages(
    messages: Sequence[Any], outcomes: Mapping[str, str] | None = None,
    notes: Mapping[str, Mapping[str, Sequence[str]]] | None = None,
    edits: Mapping[str, Mapping[str, Any]] | None = None,
    editors: Mapping[str, str] | None = None,
) -> dict[str, CallView]:
    """Every tool call of a saved conversation as it ended (resumed sessions).
    ``outcomes`` (the session's, by call id: ``rejected``, ``blocked``, ``cancelled``
    or ``interrupted``) says what the messages cannot: a call the user rejected reads
    "rejected", as it did live, and one agent-shell stopped in mid-run "interrupted",
    not "error". ``notes`` (the session's, by call id) give back the ⚠ of a sandboxed
    command whose planted files were moved out, or that could not write them. ``edits``
    (the session's, by call id) are the arguments a call ran with after the user
    edited them: it reads as it ran, "modified by you", not with the model's; ``editors``
    (by call id) the middleware that changed them instead, "modified by" it."""
    edits = edits or {}
    editors = editors or {}
    outcomes = outcomes or {}
    notes = notes or {}
    calls: dict[str, CallView] = {}
    for message in messages:
        if isinstance(message, AssistantMessage):
            for block in message.content:
                if isinstance(block, ToolCallBlock):
                    edited = edits.get(block.id)
                    calls[block.id] = CallView(block.id, block.name, "cancelled",
                                               args=dict(block.args if edited is None else edited),
                                               modified=edited is not None,
                                               asked_args=dict(block.args) if edited is not None else None,
                                               modified_by=editors.get(block.id, "you") if edited else "")
        elif isinstance(message, ToolResultMessage):
            call = calls.get(message.call_id)
            if call is not None:
                store(call, "result", stored_text(message))
                call.is_error = message.is_error
                outcome = outcomes.get(message.call_id, "")
                call.status = ended_status(message.is_error, blocked=outcome in ("rejected", "blocked"),
                                           cancelled=outcome == "cancelled", rejected=outcome == "rejected",
                                           interrupted=outcome == "interrupted")
                call.decision = "reject" if outcome == "rejected" else ""
                call.warning = call_warning(dict(notes.get(message.call_id, {})))
    return calls
