"""Reading a session back: everything readable, and a valid history.

A session file may be damaged: the last line torn by a crash, a line of garbage
(a disk error, an editor), records or fields from a newer version. The loader
never gives up on the whole file for one bad line: each line is a record on its
own, a bad one is skipped and described in ``problems``.

A reply that was cut off (the process died mid-stream) leaves a ``checkpoint``
without its final message, or tool calls without results. It comes back as
``interrupted``: the checkpoint's text is kept as an assistant message with
``stop_reason="interrupted"``, and every tool call without a result gets an
"interrupted" error result, so the history is valid for the next request (the
same rule the engine keeps after a cancel). Results whose call is unknown are
dropped for the same reason.
"""

from __future__ import annotations

import copy
import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from shell.core.messages import AssistantMessage, Message, ToolResultMessage
from shell.core.textsafety import encodable_value

from .call_records import NOTED_DETAILS
from .callids import CallIds
from .codec import CodecError, block_from_dict, message_from_dict
from .compactions import LoadedCompaction, compaction_in, pointed_at
from .recorder import FORMAT_VERSION

if TYPE_CHECKING:
    from shell.agent.loop import Agent

_SURROGATE_ESCAPE = re.compile(rb"\\u[dD][89a-fA-F]")
"""A JSON escape of a surrogate in a line (a pair or a lone one; lone ones are fixed)."""
MAX_NOTED = 100
"""Paths kept per note of a ``call_notes`` record (the notice names a few)."""
INTERRUPTED_RESULT = "The tool call was interrupted: agent-shell stopped before it finished."
KNOWN_KINDS = frozenset(
    {"header", "message", "checkpoint", "state", "reply_end", "interrupted", "history", "tool_result",
     "results_landed", "tool_progress", "title", "outcome", "rewind", "call_notes", "call_args"}
)


@dataclass(slots=True)
class LoadedSession:
    """What :func:`load_session` read. ``messages`` is valid for the next request."""

    messages: list[Message]
    session_state: dict[str, dict[str, Any]]
    meta: dict[str, Any]
    """The header: ``id``, ``created``, ``cwd``, ``model``, ``version`` (``forked_from``
    for a fork); ``title`` and ``title_source`` once the session has a title."""
    problems: list[str] = field(default_factory=list)
    """What was skipped or repaired, one line each, for the user."""
    interrupted: bool = False
    interrupted_reason: str = ""
    stored: tuple[Message, ...] = ()
    """The messages exactly as the file holds them (``messages`` minus repairs)."""
    skipped_lines: int = 0
    unknown_records: int = 0
    path: Path | None = None
    outcomes: dict[str, str] = field(default_factory=dict)
    """How calls the messages show only as errors ended, by call id: ``rejected`` (the
    user said no), ``blocked`` (a rule, the mode or a middleware stopped it),
    ``cancelled`` (the reply was cancelled before it ran or finished) or
    ``interrupted`` (agent-shell stopped while it ran: its result is the loader's)."""
    interrupted_calls: tuple[str, ...] = ()
    """The calls this load gave an "interrupted" result (the resumed recorder writes
    their outcome, so the file keeps saying so once their results are in it)."""
    call_notes: dict[str, dict[str, list[str]]] = field(default_factory=dict)
    """What the sandbox did to a command that the user must hear of again, by call id:
    ``quarantined`` (paths moved out), ``not_written`` (paths it kept from writing)."""
    call_edits: dict[str, dict[str, Any]] = field(default_factory=dict)
    """The arguments a call ran with when the user edited them first, by call id (the
    message keeps the model's): shown again as they ran, "modified by you"."""
    compactions: list[LoadedCompaction] = field(default_factory=list)
    """The compactions the file holds, oldest first: what the user saw before each."""
    call_editors: dict[str, str] = field(default_factory=dict)
    """The middleware that changed a call's arguments, where it was not the user, by
    call id: shown again as "modified by" it."""

    @property
    def session_id(self) -> str:
        return str(self.meta.get("id") or (self.path.stem if self.path else ""))


class _Reader:
    """The state machine over the records, one line at a time."""

    def __init__(self) -> None:
        self.meta: dict[str, Any] = {}
        self.messages: list[Message] = []
        self.state: dict[str, dict[str, Any]] = {}
        self.problems: list[str] = []
        self.checkpoint: AssistantMessage | None = None
        self.results: dict[str, ToolResultMessage] = {}
        """Results of calls whose batch had not landed in the history (``tool_result``)."""
        self.progress: dict[str, str] = {}
        """Output of calls still running (``tool_progress``)."""
        self.ids = CallIds()
        self.outcomes: dict[str, str] = {}
        self.call_notes: dict[str, dict[str, list[str]]] = {}
        self.call_edits: dict[str, dict[str, Any]] = {}
        self.call_editors: dict[str, str] = {}
        self.compactions: list[LoadedCompaction] = []
        self.open_reply = False
        self.skipped = 0
        self.unknown: dict[str, int] = {}
        self.newer = False
        self.title = ""
        self.title_source = ""

    def line(self, number: int, raw: bytes, last: bool) -> None:
        if not raw.strip():
            return
        try:
            record = json.loads(raw.decode("utf-8"))
        except RecursionError:
            self.skipped += 1
            self.problems.append(f"line {number} is nested too deep to read; skipped")
            return
        except (UnicodeDecodeError, ValueError):
            self.skipped += 1
            where = "the last line is torn (cut off mid-write)" if last else f"line {number} is not JSON"
            self.problems.append(f"{where}; skipped")
            return
        if _SURROGATE_ESCAPE.search(raw):
            # a lone surrogate stored by an older version made every request of the resumed
            # session raise UnicodeEncodeError: read it back as U+FFFD, ids changed alike
            record = encodable_value(record)
        if not isinstance(record, dict) or not isinstance(record.get("kind"), str):
            self.skipped += 1
            self.problems.append(f"line {number} is not a session record; skipped")
            return
        kind = record["kind"]
        if kind not in KNOWN_KINDS:
            self.unknown[kind] = self.unknown.get(kind, 0) + 1
            return
        try:
            getattr(self, f"_{kind}")(record)
        except Exception as exc:  # any line, however strange, costs only itself
            self.skipped += 1
            why = str(exc) if isinstance(exc, ValueError) else type(exc).__name__
            self.problems.append(f"line {number} ({kind}) could not be read: {why}; skipped")

    def _header(self, record: dict[str, Any]) -> None:
        if self.meta:
            return  # a second header (two files concatenated?): keep the first
        self.meta = {k: v for k, v in record.items() if k != "kind"}
        version = record.get("version")
        if isinstance(version, int) and version > FORMAT_VERSION:
            self.newer = True
            self.problems.append(
                f"written by a newer agent-shell (format {version}, this one reads {FORMAT_VERSION}); "
                "what it added is ignored"
            )

    def _message(self, record: dict[str, Any]) -> None:
        message = self.ids.message(message_from_dict(record.get("message"), self.problems))
        self.messages.append(message)
        if isinstance(message, AssistantMessage):
            self.checkpoint = None
        self.open_reply = True

    def _history(self, record: dict[str, Any], *, rewind: bool = False) -> None:
        raw = record.get("messages")
        if not isinstance(raw, list):
            raise ValueError("'messages' must be a list")
        self.ids.reset()
        messages = [self.ids.message(message_from_dict(m, self.problems)) for m in raw]
        compaction = None if rewind else compaction_in(self.messages, messages)
        if compaction is not None:
            self.compactions.append(compaction)
        self.messages = messages
        self.checkpoint = None

    def _rewind(self, record: dict[str, Any]) -> None:
        """The user went back: the conversation is the record's list (as for a
        ``history``; only the search index treats the two differently)."""
        self._history(record, rewind=True)

    def _checkpoint(self, record: dict[str, Any]) -> None:
        content = record.get("content")
        if not isinstance(content, list):
            raise ValueError("'content' must be a list")
        blocks = []
        for item in content:
            try:
                blocks.append(block_from_dict(item))
            except CodecError as exc:
                self.problems.append(f"a checkpoint block was skipped: {exc}")
        self.checkpoint = AssistantMessage(tuple(blocks), stop_reason="interrupted")
        self.open_reply = True

    def _state(self, record: dict[str, Any]) -> None:
        state = record.get("state")
        if not isinstance(state, dict):
            raise ValueError("'state' must be an object")
        self.state = {str(k): v for k, v in state.items() if isinstance(v, dict)}

    def _tool_result(self, record: dict[str, Any]) -> None:
        message = self.ids.message(message_from_dict(record.get("message"), self.problems))
        if not isinstance(message, ToolResultMessage):
            raise ValueError("a tool_result record must hold a tool message")
        self.results[message.call_id] = message

    def _results_landed(self, record: dict[str, Any]) -> None:
        """Results written as ``tool_result`` records land in the history, in this order."""
        call_ids = record.get("call_ids")
        if not isinstance(call_ids, list) or not all(isinstance(c, str) for c in call_ids):
            raise ValueError("'call_ids' must be a list of call ids")
        call_ids = [self.ids.of(c) for c in call_ids]
        missing = [c for c in call_ids if c not in self.results]
        for call_id in call_ids:
            if call_id in self.results:
                self.messages.append(self.results.pop(call_id))
        self.open_reply = True
        if missing:
            raise ValueError(f"{len(missing)} landed result(s) were never written")

    def _tool_progress(self, record: dict[str, Any]) -> None:
        call_id, output = record.get("call_id"), record.get("output")
        if not isinstance(call_id, str) or not isinstance(output, str):
            raise ValueError("a tool_progress record needs a call_id and an output")
        self.progress[self.ids.of(call_id)] = output

    def _outcome(self, record: dict[str, Any]) -> None:
        call_id, status = record.get("call_id"), record.get("status")
        if not isinstance(call_id, str) or status not in ("rejected", "blocked", "cancelled", "interrupted"):
            raise ValueError("an outcome record needs a call_id and a status: rejected, blocked, cancelled "
                             "or interrupted")
        self.outcomes[self.ids.of(call_id)] = status

    def _call_notes(self, record: dict[str, Any]) -> None:
        call_id, notes = record.get("call_id"), record.get("notes")
        if not isinstance(call_id, str) or not isinstance(notes, dict):
            raise ValueError("a call_notes record needs a call_id and notes")
        kept = {key: [p for p in value if isinstance(p, str)][:MAX_NOTED] for key, value in notes.items()
                if key in NOTED_DETAILS and isinstance(value, list)}
        if kept:
            self.call_notes[self.ids.of(call_id)] = kept

    def _call_args(self, record: dict[str, Any]) -> None:
        call_id, args = record.get("call_id"), record.get("args")
        if not isinstance(call_id, str) or not isinstance(args, dict):
            raise ValueError("a call_args record needs a call_id and args")
        call_id = self.ids.of(call_id)
        self.call_edits[call_id] = args
        by = record.get("by")
        if isinstance(by, str) and by:
            self.call_editors[call_id] = by

    def _title(self, record: dict[str, Any]) -> None:
        title = record.get("title")
        if not isinstance(title, str):
            raise ValueError("'title' must be text")
        if self.title_source != "user" or record.get("source") == "user":
            self.title, self.title_source = title, str(record.get("source", ""))

    def _reply_end(self, record: dict[str, Any]) -> None:
        self.checkpoint = None
        self.open_reply = False

    def _interrupted(self, record: dict[str, Any]) -> None:
        self.checkpoint = None
        self.open_reply = False


def load_session(path: str | Path, *, upto: int | None = None) -> LoadedSession:
    """Everything readable from ``path``; raises only ``OSError`` (no such file...).
    ``upto``: read only the first ``upto`` bytes (the session as it was then: a rewind)."""
    path = Path(path)
    if upto is None:
        data = path.read_bytes()
    else:
        with path.open("rb") as f:
            data = f.read(upto)
    reader = _Reader()
    lines = data.split(b"\n")
    torn = bool(lines) and lines[-1] != b""
    for index, raw in enumerate(lines):
        reader.line(index + 1, raw, last=torn and index == len(lines) - 1)
    if not reader.meta:
        reader.problems.insert(0, "the header is missing; the file name gives the id")
        reader.meta = {"id": path.stem}
    if reader.title:
        reader.meta["title"], reader.meta["title_source"] = reader.title, reader.title_source
    for kind, count in sorted(reader.unknown.items()):
        reader.problems.append(f"{count} record(s) of unknown type {kind!r} skipped (a newer version's?)")
    stored = tuple(reader.messages)
    messages = list(stored)
    reason = ""
    if reader.checkpoint is not None and reader.checkpoint.content:
        messages.append(reader.checkpoint)
        reason = "the reply was cut off mid-stream; its text so far is kept"
    elif reader.open_reply:
        reason = "the last reply did not finish"
    marked: list[str] = []
    messages, repairs = repair_history(messages, reader.results, reader.progress, marked=marked)
    for call_id in marked:  # shown "interrupted", not "error"
        reader.outcomes.setdefault(call_id, "interrupted")
    if repairs:
        reason = reason or "the last reply did not finish"
        reader.problems.extend(repairs)
    if reason:
        reader.problems.append(reason)
    return LoadedSession(
        messages=messages,
        session_state=reader.state,
        meta=reader.meta,
        problems=reader.problems,
        interrupted=bool(reason),
        interrupted_reason=reason,
        stored=stored,
        skipped_lines=reader.skipped,
        unknown_records=sum(reader.unknown.values()),
        path=path,
        outcomes=reader.outcomes,
        interrupted_calls=tuple(marked),
        call_notes=reader.call_notes,
        call_edits=reader.call_edits,
        call_editors=reader.call_editors,
        compactions=pointed_at(reader.compactions, messages),
    )


def repair_history(
    messages: list[Message],
    results: dict[str, ToolResultMessage] | None = None,
    progress: dict[str, str] | None = None,
    *,
    marked: list[str] | None = None,
) -> tuple[list[Message], list[str]]:
    """A valid history: every tool call answered once, before the next assistant
    turn; unanswered calls get their recorded result from ``results`` (a call
    that finished before the crash) or else an "interrupted" error result with
    the output it had shown (``progress``), their ids added to ``marked``; stray
    results go.

    Messages that need no change are kept as the same objects (the recorder
    relies on that to append rather than rewrite)."""
    out: list[Message] = []
    notes: list[str] = []
    open_calls: dict[str, str] = {}  # id → name, in call order

    def close_open() -> None:
        kept = 0
        for call_id, name in open_calls.items():
            found = (results or {}).get(call_id)
            if found is not None:
                out.append(ToolResultMessage(call_id, found.name or name, found.content, found.is_error))
                kept += 1
            else:
                shown = (progress or {}).get(call_id)
                text = f"{INTERRUPTED_RESULT}\nIts output until then:\n{shown}" if shown else ""
                out.append(ToolResultMessage(call_id, name, text or INTERRUPTED_RESULT, is_error=True))
                if marked is not None:
                    marked.append(call_id)
        if kept:
            notes.append(f"{kept} tool result(s) that finished before the interruption were kept")
        if len(open_calls) > kept:
            notes.append(f"{len(open_calls) - kept} tool call(s) without a result were marked interrupted")
        open_calls.clear()

    for message in messages:
        if isinstance(message, AssistantMessage):
            close_open()
            out.append(message)
            for call in message.tool_calls:
                open_calls.setdefault(call.id, call.name)
        elif isinstance(message, ToolResultMessage):
            if message.call_id in open_calls:
                del open_calls[message.call_id]
                out.append(message)
            else:
                who = message.name or message.call_id
                notes.append(f"a tool result without its call ({who}) was dropped")
        else:
            close_open()  # a user message after unanswered calls: answer them first
            out.append(message)
    close_open()
    return out, notes


def resume(agent: Agent, loaded: LoadedSession) -> None:
    """Put a loaded session's history and middleware state into ``agent``."""
    if agent.busy:
        raise RuntimeError("resume: wait for the reply in flight to finish")
    agent.messages[:] = loaded.messages
    agent.session_state.clear()
    agent.session_state.update(copy.deepcopy(loaded.session_state))
