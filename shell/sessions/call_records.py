"""``CallRecords``: what a session keeps about its tool calls beyond their messages.

A tool result message says only "error" for a call that never ran and holds the
command's own output (forgeable) for one that did; the arguments in the assistant
message are the model's, not the ones the user edited. So a resumed, forked or
rewound conversation would show calls otherwise than the live one did. The recorder
writes three kinds of record for that, all kept here: ``outcome`` (rejected by the
user, blocked by a gate, cancelled), ``call_notes`` (what the sandbox did that the
user must hear of again) and ``call_args`` (the arguments a call ran with when the
user edited them). :mod:`shell.sessions.loader` reads them back.

Kept apart from :class:`~shell.sessions.recorder.SessionRecorder` (which decides
when to call it, under its lock) because this is one theme: a call's story, not the
history's.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import Any

from shell.core.events import ToolArgsChanged, ToolExecutionEnd, ToolExecutionStart

from .redact import Redactor

NOTED_DETAILS = ("quarantined", "not_written")
"""Details of a tool result (lists of paths) that a resumed session shows again: what
the sandbox moved out of the workspace, and what it kept a command from writing."""

Write = Callable[[dict[str, Any]], None]
"""Appends one record to the session file (:meth:`SessionWriter.write`)."""


class CallRecords:
    """The per-call records of one session, and what they say so far."""

    def __init__(self, write: Write, redactor: Redactor) -> None:
        self._write = write
        self._redactor = redactor
        self._rejected: set[str] = set()  # calls of this reply the user said no to
        self.outcomes: dict[str, str] = {}
        """Calls stopped before they ran, by id: ``rejected`` or ``blocked`` (what a
        resumed session shows for them; their result messages say only "error")."""
        self.call_notes: dict[str, dict[str, list[str]]] = {}
        """What the sandbox did to a command that the user must hear of, by call id: the
        :data:`NOTED_DETAILS` of its result (paths moved out, paths not written), so a
        resumed session shows the ⚠ the live one showed (the result text is the
        command's output too: forgeable)."""
        self.call_edits: dict[str, dict[str, Any]] = {}
        """The arguments a call ran with when the user edited them (the message keeps
        the model's), by call id: a resumed or rewound conversation shows them, "modified by you"."""
        self.call_editors: dict[str, str] = {}
        """The middleware that changed a call's arguments, by call id, where it was not
        the user: shown again as "modified by" it (finding R7)."""

    def resume(
        self,
        outcomes: Mapping[str, str],
        call_notes: Mapping[str, dict[str, list[str]]],
        call_edits: Mapping[str, dict[str, Any]],
        call_editors: Mapping[str, str] | None = None,
    ) -> None:
        """Start from what a loaded session's file said (its records are there already;
        :class:`~shell.sessions.loader.LoadedSession` read them)."""
        self.outcomes = dict(outcomes)
        self.call_notes = dict(call_notes)
        self.call_edits = dict(call_edits)
        self.call_editors = dict(call_editors or {})

    def reply_start(self) -> None:
        """A new reply: a rejection belongs to the reply it was given in."""
        self._rejected.clear()

    def rejected(self, call_id: str) -> None:
        """The user said no to ``call_id``: its blocked end is ``rejected``, not ``blocked``."""
        self._rejected.add(call_id)

    def started(
        self, event: ToolExecutionStart | ToolArgsChanged, asked: Mapping[str, Any] | None
    ) -> None:
        """A call that runs with arguments other than the model's (``asked``: None when
        its message is not found) was edited (by the user, or a middleware at its start
        or inside ``on_acting``): what ran is kept, since the message holds the model's."""
        if asked is None or dict(event.args) == dict(asked):
            return
        args = self._redactor.json(dict(event.args))
        self.call_edits[event.call_id] = args
        record: dict[str, Any] = {"kind": "call_args", "call_id": event.call_id, "args": args}
        if event.edited_by and event.edited_by != "you":
            self.call_editors[event.call_id] = record["by"] = event.edited_by
        self._write(record)

    def ended(self, event: ToolExecutionEnd) -> None:
        """A call's end: its outcome if it never ran, then the sandbox's notes."""
        self._outcome(event)
        self._notes(event)

    def _outcome(self, event: ToolExecutionEnd) -> None:
        """A call that was stopped before it ran: say whether the user rejected it or a
        gate blocked it (its result message says neither), so a resumed session shows it
        as it was shown live; a call the user cancelled (Esc) is kept as ``cancelled``."""
        details = event.result.details if isinstance(event.result.details, dict) else {}
        if details.get("cancelled") is True:
            status = "cancelled"
        elif not event.blocked:
            return
        else:
            status = "rejected" if event.call_id in self._rejected else "blocked"
        self.outcomes[event.call_id] = status
        self._write({"kind": "outcome", "call_id": event.call_id, "status": status})

    def _notes(self, event: ToolExecutionEnd) -> None:
        """A sandboxed command whose planted files were moved out, or that could not
        write what runs later (``run_shell``'s ``quarantined`` and ``not_written``):
        kept, so a resumed session warns as the live one did."""
        details = event.result.details if isinstance(event.result.details, dict) else {}
        notes = {key: [self._redactor.text(str(p)) for p in value] for key in NOTED_DETAILS
                 if isinstance(value := details.get(key), list) and value}
        if not notes:
            return
        self.call_notes[event.call_id] = notes
        self._write({"kind": "call_notes", "call_id": event.call_id, "notes": notes})

    def carry(self, other: CallRecords, call_ids: Iterable[str]) -> None:
        """A fork (after its history is written): what ``other`` knew of ``call_ids``
        (rejected or blocked, the sandbox's ⚠ notes, edited arguments), written again, so
        the fork resumes showing them as the original does."""
        for call_id in call_ids:
            status = other.outcomes.get(call_id)
            if status is not None:
                self.outcomes[call_id] = status
                self._write({"kind": "outcome", "call_id": call_id, "status": status})
            notes = other.call_notes.get(call_id)
            if notes:
                self.call_notes[call_id] = notes
                self._write({"kind": "call_notes", "call_id": call_id, "notes": notes})
            edited = other.call_edits.get(call_id)
            if edited is not None:
                self.call_edits[call_id] = edited
                record: dict[str, Any] = {"kind": "call_args", "call_id": call_id, "args": edited}
                if call_id in other.call_editors:
                    self.call_editors[call_id] = record["by"] = other.call_editors[call_id]
                self._write(record)
