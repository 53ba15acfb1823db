"""``SessionRecorder``: writes a session as the reply happens, so a crash loses nothing shown.

The recorder watches the events a front end receives and, at each one, compares
``agent.messages`` with what it has written: every message that has landed in
the history since is appended at once (one ``write`` per line, then ``fsync``).
The history, not the events, is the source of truth for messages: it is what the
next request will send, with the middleware's rewrites included. If the history
was rewritten rather than extended (summarization), a ``history`` record with
the whole new list replaces it; a rewrite the user asked for by going back
(``/rewind``, Esc Esc) is a ``rewind`` record instead: same list, but it also says
that what was said from byte ``to`` of the file on is gone from the conversation
(the search index drops it; a compaction's summarised messages stay findable).

Text in flight is not a message yet: :class:`~shell.sessions.inflight.InFlight`
checkpoints it (and a running tool's live output) within about a second of being
shown. A finished call's result is kept in a ``tool_result`` record until its batch
lands in the history (:class:`~shell.sessions.pending_results.PendingResults`); what
a call's messages do not say (rejected, the sandbox's notes, edited arguments) is
:class:`~shell.sessions.call_records.CallRecords`'.

The file itself (lock, header, one fsynced line per record, a disk that fails)
is :class:`~shell.sessions.writer.SessionWriter`'s; this module decides what goes
in it. Saving never breaks a reply: a failed write is said once, as a ``Notice``
in the event stream, and the conversation stays in memory; the bookkeeping goes
on, and when a write works again the backlog (messages, the last checkpoint, the
reply's end) is written. Encoding cannot fail: the redactor's walk is iterative
and depth-capped.
"""

from __future__ import annotations

import logging
import os
import threading
from collections.abc import AsyncIterator
from typing import TYPE_CHECKING, Any

from shell.core.events import (
    ApprovalResolved,
    AttemptWithdrawn,
    ErrorEvent,
    Event,
    ModelCallStart,
    Notice,
    ReplyEnd,
    ReplyStart,
    TextBlockDelta,
    TextBlockEnd,
    TextBlockStart,
    ThinkingBlockDelta,
    ThinkingBlockEnd,
    ThinkingBlockStart,
    ToolArgsChanged,
    ToolCallDelta,
    ToolCallEnd,
    ToolCallStart,
    ToolExecutionEnd,
    ToolExecutionStart,
    ToolExecutionUpdate,
)
from shell.core.messages import AssistantMessage, Message, ToolResultMessage, tool_result_message
from shell.core.textsafety import json_text

from .call_records import CallRecords
from .codec import message_to_dict
from .inflight import InFlight
from .pending_results import PendingResults
from .redact import Redactor
from .state_check import StateCheck
from .store import SessionStore, new_session_id, utc_now
from .writer import RETRY_S, SessionWriter

if TYPE_CHECKING:
    from shell.agent.loop import Agent

    from .loader import LoadedSession

log = logging.getLogger("agent_shell.sessions")

FORMAT_VERSION = 2
"""2: ``results_landed`` (a tool result is written once) and ``rewind`` records. A
version-1 file reads the same; an older reader of a version-2 file says it is newer
and still gets every result (from the ``tool_result`` records)."""
_BLOCK_EVENTS = (
    TextBlockStart, TextBlockDelta, TextBlockEnd, ThinkingBlockStart, ThinkingBlockDelta,
    ThinkingBlockEnd, ToolCallStart, ToolCallDelta, ToolCallEnd,
)
_DELTAS = (TextBlockDelta, ThinkingBlockDelta, ToolCallDelta)


class SessionRecorder:
    """Records one agent's conversation into one session file.

    Use ``async for event in recorder.record(agent.reply(text))`` (the events pass
    through unchanged), or call ``recorder.observe(event)`` for each event you
    receive. Close it (``close()`` or ``with``) when the shell exits: that
    releases the lock. A new session's file is created at the first event, so a
    shell that is opened and closed leaves nothing behind.
    """

    def __init__(
        self,
        store: SessionStore,
        agent: Agent,
        *,
        session_id: str | None = None,
        cwd: str | None = None,
        model: str | None = None,
        redactor: Redactor | None = None,
        checkpoint_interval: float = 0.5,
        fsync: bool = True,
        retry_s: float = RETRY_S,
        header: dict[str, Any] | None = None,
    ) -> None:
        self.store = store
        self.agent = agent
        self.session_id = session_id or new_session_id()
        self.file = SessionWriter(store, self.session_id, fsync=fsync, retry_s=retry_s,
                                  on_failure=lambda: self.inflight.cancel_timer())
        self.path = self.file.path
        self.cwd = cwd if cwd is not None else os.getcwd()
        self.model = model
        self.redactor = redactor if redactor is not None else Redactor.from_environment()
        self._state_check = StateCheck()
        self._state_news: list[Notice] = []
        self._pending_end: dict[str, Any] | None = None  # a reply_end record not yet written
        self._lock = threading.RLock()
        self._written: list[Message] = []
        self._answered: set[str] = set()
        self.pending = PendingResults(lambda record: self.file.write(record))
        self._rewinding: dict[str, Any] | None = None  # a rewind's record fields, until it is written
        self._input: Message | None = None  # the first message of the reply under way
        self._input_at: int | None = None  # where it begins in the file, once written
        self._call_names: dict[str, str] = {}
        self.calls = CallRecords(lambda record: self.file.write(record), self.redactor)
        """What the session keeps about its calls beyond their messages (outcomes, the
        sandbox's notes, edited arguments)."""
        self._state_json: str | None = "{}"
        self.inflight = InFlight(self.file, self.redactor, self._lock, checkpoint_interval)
        self._closed = False
        self._resumed: LoadedSession | None = None
        self._header_extra = dict(header or {})
        self.title = ""
        """The session's title (the model's summary, or the user's ``/rename``)."""
        self.title_source = ""
        self._pending_title: dict[str, Any] | None = None

    @property
    def outcomes(self) -> dict[str, str]:
        """Calls stopped before they ran, by id (:attr:`CallRecords.outcomes`)."""
        return self.calls.outcomes

    @property
    def call_notes(self) -> dict[str, dict[str, list[str]]]:
        """The sandbox's notes on calls, by id (:attr:`CallRecords.call_notes`)."""
        return self.calls.call_notes

    @property
    def call_edits(self) -> dict[str, dict[str, Any]]:
        """The arguments of calls the user edited, by id (:attr:`CallRecords.call_edits`)."""
        return self.calls.call_edits

    @property
    def call_editors(self) -> dict[str, str]:
        """The middleware that changed calls' arguments, by id (:attr:`CallRecords.call_editors`)."""
        return self.calls.call_editors

    @property
    def error(self) -> str | None:
        """Why saving fails now (None while it works), as the user is told."""
        return self.file.error

    @property
    def failures(self) -> int:
        """How many times saving started failing (each one reported once)."""
        return self.file.failures

    # -- opening and closing --------------------------------------------------------
    @classmethod
    def resume(
        cls, store: SessionStore, agent: Agent, loaded: LoadedSession, **kwargs: Any
    ) -> SessionRecorder:
        """Carry on writing a loaded session (after :func:`resume` filled ``agent``).

        Takes the lock at once (so a session open elsewhere is refused before the
        user types) and, if the last reply had been cut off, writes its repair (the
        kept partial text, the "interrupted" tool results) and an ``interrupted``
        marker, so the file reads back as the agent now holds it. A write that
        fails (a full disk) does not stop the resume: it is the recorder's
        ``error`` (and notice), retried as the conversation goes on.
        """
        kwargs.setdefault("cwd", loaded.meta.get("cwd") or None)
        recorder = cls(store, agent, session_id=loaded.session_id, **kwargs)
        recorder._resumed = loaded
        recorder._written = list(loaded.stored)
        recorder.calls.resume(loaded.outcomes, loaded.call_notes, loaded.call_edits, loaded.call_editors)
        for message in loaded.stored:
            recorder._note_calls(message)
        recorder._state_json = json_text(
            recorder.redactor.json(loaded.session_state), sort_keys=True, compact=True
        )
        recorder.title = str(loaded.meta.get("title", ""))
        recorder.title_source = str(loaded.meta.get("title_source", ""))
        try:
            recorder.open()
        except OSError as exc:  # a full disk: the session is read, carried on in memory, said
            recorder.file.failed(exc)
        return recorder

    def open(self) -> SessionRecorder:
        """Lock the session and open its file (creating it with a header if new).

        Raises :class:`~shell.sessions.store.SessionLocked` when another process
        has it open."""
        with self._lock:
            if self.file.started:
                return self
            self.file.open(self._header)
            if self._pending_title is not None:
                self.file.guarded(self._write_title)
            loaded = self._resumed
            if loaded is not None and loaded.interrupted:
                self.sync()
                self.file.write({"kind": "interrupted", "at": utc_now(), "reason": loaded.interrupted_reason})
                for call_id in loaded.interrupted_calls:  # their results are in the file now
                    if self.outcomes.get(call_id) == "interrupted":
                        self.file.write({"kind": "outcome", "call_id": call_id, "status": "interrupted"})
            return self

    def _header(self) -> dict[str, Any]:
        return {
            "kind": "header", "version": FORMAT_VERSION, "id": self.session_id,
            "created": utc_now(), "cwd": self.redactor.text(self.cwd),
            "model": self.model if self.model is not None else _model_label(self.agent),
            "app": "agent-shell", **self._header_extra,
        }

    def close(self) -> None:
        """Write what is pending and release the lock. Safe to call twice."""
        with self._lock:
            if self._closed:
                return
            self._closed = self.inflight.closed = True
            self.inflight.cancel_timer()
            cleared = bool(self._written) and not self.agent.messages
            if self.file.started and not cleared:
                # (a history cleared for a new conversation is not this session's to record)
                self.file.retry_now()  # a failing disk gets one last try
                self.file.guarded(self._last_words)
            self.file.close()

    def _last_words(self) -> None:
        self.sync()
        self._write_title()
        if self._pending_end is not None:
            self.file.write(self._pending_end)
            self._pending_end = None
        self.inflight.checkpoint()
        self._save_state()

    def __enter__(self) -> SessionRecorder:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def set_title(self, title: str, source: str = "user") -> str:
        """Name the session (``/rename``: ``source="user"``; the model's one-line summary:
        ``"model"``, which never replaces the user's). One line, redacted, at most 80
        characters; written at once, or after the header once the file exists.
        Returns the title as kept (empty: refused or nothing left)."""
        from shell.core.textsafety import sanitize_line

        line = sanitize_line(" ".join(self.redactor.text(title).split())).strip()
        if len(line) > 80:
            line = line[:79] + "…"
        with self._lock:
            if not line or (source != "user" and self.title_source == "user"):
                return ""
            self.title, self.title_source = line, source
            self._pending_title = {"kind": "title", "title": line, "source": source, "at": utc_now()}
            if self.file.started:
                self.file.guarded(self._write_title)
            return line

    def _write_title(self) -> None:
        if self._pending_title is not None:
            self.file.write(self._pending_title)
            self._pending_title = None

    def size(self) -> int | None:
        """The file's length once what is pending is written: where the next record
        starts (0 before the file exists; None while saving fails)."""
        with self._lock:
            if not self.file.started:
                return 0
            self.file.guarded(self.sync)
            if self.error is not None:
                return None
            return self.file.size()

    @property
    def started(self) -> bool:
        """True once the session file exists (the first event was recorded)."""
        return self.file.started

    # -- observing ------------------------------------------------------------------
    async def record(self, events: AsyncIterator[Event]) -> AsyncIterator[Event]:
        """Pass ``events`` through, recording each one before it is shown; a notice
        joins the stream when saving fails, and again when it works once more."""
        try:
            async for event in events:
                self.observe(event)
                if self.file.news or self._state_news:
                    for notice in self.take_notices():
                        yield Notice(notice.level, notice.text, notice.source, reply_id=event.reply_id)
                    if isinstance(event, ReplyEnd):  # the news comes before the end
                        yield event
                        continue
                yield event
        finally:
            close = getattr(events, "aclose", None)
            if close is not None:
                await close()
            if self.error is None:
                self.file.guarded(self.sync)

    def take_notices(self) -> list[Notice]:
        """What the user has not been told yet about saving (failed, or resumed; a
        middleware's session_state that will not come back as it is)."""
        news, self._state_news = self._state_news, []
        return [*self.file.take_notices(), *news]

    def observe(self, event: Event) -> None:
        """Record one event (call it for every event, before or as you display it).

        While saving fails, the bookkeeping goes on and every write raises at once
        (nothing is marked written), until ``retry_s`` has passed: then the next
        non-delta event writes the whole backlog."""
        if self._closed:
            return
        self.file.guarded(self._observe, event)

    def _observe(self, event: Event) -> None:
        if self.error is not None and isinstance(event, (ReplyStart, ReplyEnd)):
            self.file.retry_now()  # a reply's start and end are always worth a try
        with self._lock:
            if not self.file.started:
                self.open()
            if isinstance(event, ReplyStart):  # before syncing: the sync may land this reply's first message
                self.calls.reply_start()
                self.inflight.reply_start(event.reply_id)
                self._input, self._input_at = (event.input[0] if event.input else None), None
            elif (isinstance(event, (ErrorEvent, ReplyEnd)) and event.withdrawn
                  and self._rewinding is None):
                # the input left the history (it did not fit the context, or the reply was
                # cancelled before any answer): a rewind to before it (the search index
                # drops it too), not a compaction
                self._rewinding = {} if self._input_at is None else {"to": self._input_at}
            if not isinstance(event, _DELTAS):
                self._catch_up()
            if isinstance(event, ModelCallStart):  # after syncing: a rewrite before it is not this call
                self.inflight.model_call()
            if isinstance(event, _BLOCK_EVENTS):
                self.inflight.block(event)
            else:
                self._other(event)

    def _catch_up(self) -> None:
        """The messages that landed, and the end of a reply that ended while saving failed."""
        self.sync()
        if self._pending_end is not None:
            self.file.write(self._pending_end)
            self._pending_end = None
            self._save_state()

    def _other(self, event: Event) -> None:
        if isinstance(event, ToolExecutionUpdate):
            if isinstance(event.progress, str) and event.call_id not in self._answered:
                self.inflight.tool_output(event.call_id, event.progress)
        elif isinstance(event, AttemptWithdrawn):
            self.inflight.attempt_withdrawn()
        elif isinstance(event, ApprovalResolved):
            if event.decision.type == "reject":
                self.calls.rejected(event.call_id)
        elif isinstance(event, (ToolExecutionStart, ToolArgsChanged)):
            self.calls.started(event, self._asked_args(event.call_id))
        elif isinstance(event, ToolExecutionEnd):
            self.inflight.tool_done(event.call_id)
            self.calls.ended(event)
            self._tool_result(event)
        elif isinstance(event, ReplyEnd):
            self.inflight.reply_end()
            self._pending_end = _reply_end(event)
            self._save_state()
            self.file.write(self._pending_end)
            self._pending_end = None
        elif self.inflight.dirty and not isinstance(event, _DELTAS):
            self.inflight.maybe_checkpoint()  # saving had failed while text streamed

    def rewind(self, to: int | None) -> None:
        """The user took the conversation back: ``agent.messages`` holds the shorter
        history. It is written as a ``rewind`` record; ``to`` is where the message the
        user went back to began in the file (its turn's offset; None: not known, and
        the record says only the new history)."""
        with self._lock:
            self._rewinding = {} if to is None else {"to": to}
            if self.file.started:
                self.file.guarded(self.sync)

    def settled(self, why: str) -> None:
        """Close the messages written so far as a finished reply would (a ``reply_end``
        record, ``stop_reason`` ``why``): a fork copies message records of replies that
        ended, and without it every resumed fork said "the last reply did not finish"
        (finding E3)."""
        with self._lock:
            if self.file.started and self._written:
                self.file.write({"kind": "reply_end", "reply_id": "", "stop_reason": why, "at": utc_now()})

    def sync(self) -> None:
        """Append the messages that landed in the history since the last call."""
        with self._lock:
            if not self.file.started:
                return
            history = self.agent.messages
            written = self._written
            n = len(written)
            # One C-level pass (identity first, then equality: an equal message written
            # is as good as the same one); a long session calls this on every event.
            if len(history) >= n and (history[:n] if len(history) > n else history) == written:
                landing: list[Message] = []  # results whose tool_result record says it all
                for message in history[n:]:
                    encoded = self._encode(message)
                    if self.pending.written_as(message, encoded):
                        landing.append(message)
                        continue
                    self._land(landing)
                    if message is self._input:
                        self._input_at = self.file.size()
                    self.file.write({"kind": "message", "message": encoded})
                    self._wrote(message)
                self._land(landing)
                self._rewinding = None  # nothing was taken back (a rewind to the end)
                return
            kind, extra = ("history", {}) if self._rewinding is None else ("rewind", self._rewinding)
            self.file.write({"kind": kind, **extra, "messages": [self._encode(m) for m in history]})
            self._rewinding = None
            self._written = list(history)
            self._answered.clear()
            self.pending.clear()
            for message in history:
                self._note_calls(message)
            self._note_landed(None)

    def _land(self, results: list[Message]) -> None:
        """Results already in the file as ``tool_result`` records land in the history:
        one record names them, in order (the result is not written twice)."""
        if not results:
            return
        self.pending.land(results)
        for message in results:
            self._wrote(message)
        results.clear()

    def _wrote(self, message: Message) -> None:
        self._written.append(message)
        self._note_calls(message)
        self._note_landed(message)

    def _note_calls(self, message: Message) -> None:
        if isinstance(message, AssistantMessage):
            self._call_names.update((c.id, c.name) for c in message.tool_calls)
        elif isinstance(message, ToolResultMessage):
            self._answered.add(message.call_id)

    def _note_landed(self, message: Message | None) -> None:
        """An assistant message landed (``None``: the history was rewritten): the
        model call in flight, if any, is complete in the file; no more checkpoints."""
        if message is None or isinstance(message, AssistantMessage):
            self.inflight.message_landed(rewritten=message is None)

    def carry_calls(self, other: SessionRecorder) -> None:
        """A fork (after its history is written): what ``other`` knew of the calls
        this session holds, written again (:meth:`CallRecords.carry`), so the fork
        resumes showing them as the original does."""
        with self._lock:
            self.calls.carry(other.calls, list(self._call_names))

    def _asked_args(self, call_id: str) -> dict[str, Any] | None:
        """The arguments the model gave ``call_id`` (None: not found), looked up among
        the last messages written: the call's turn has landed before its tools run."""
        return next((c.args for m in reversed(self._written[-16:]) if isinstance(m, AssistantMessage)
                     for c in m.tool_calls if c.id == call_id), None)

    def _tool_result(self, event: ToolExecutionEnd) -> None:
        """A finished call's result, shown now but in the history only when the
        whole batch is done: written as a ``tool_result`` record so a crash in
        between keeps it (the loader uses it instead of an "interrupted" result)."""
        if event.call_id in self._answered:
            return  # its batch landed already: the result is in the file as a message
        name = self._call_names.get(event.call_id, "")
        result = tool_result_message(event.call_id, name, event.result)
        self.pending.write(event.call_id, self._encode(result))

    # -- writing --------------------------------------------------------------------
    def _save_state(self) -> None:
        self._state_news += self._state_check.problems(self.agent.session_state, self.redactor.json)
        state = self.redactor.json(self.agent.session_state)  # JSON-ready, any depth
        text = json_text(state, sort_keys=True, compact=True)
        if text == self._state_json:
            return
        self.file.write({"kind": "state", "state": state})
        self._state_json = text

    def _encode(self, message: Message) -> dict[str, Any]:
        """``message`` redacted, as a session file holds it; one that cannot be encoded
        is saved as a stand-in that says so (one strange message must not stop every
        later save)."""
        try:
            return message_to_dict(self.redactor.message(message))
        except Exception as exc:  # one strange message must not stop every later save
            log.exception("a message could not be encoded")
            stand_in = f"[agent-shell could not save this message: {type(exc).__name__}]"
            if isinstance(message, AssistantMessage):
                return {"role": "assistant", "content": [{"type": "text", "text": stand_in}]}
            if isinstance(message, ToolResultMessage):
                return {"role": "tool", "call_id": str(message.call_id), "name": str(message.name),
                        "content": stand_in, "is_error": True}
            return {"role": "user", "content": stand_in}


def _reply_end(event: ReplyEnd) -> dict[str, Any]:
    return {
        "kind": "reply_end", "reply_id": event.reply_id, "stop_reason": event.stop_reason, "at": utc_now(),
    }


def _model_label(agent: Agent) -> str:
    from shell.core.model import model_label

    try:
        return model_label(agent.model)
    except Exception:  # a model object without the usual attributes
        return str(getattr(agent.model, "name", ""))
