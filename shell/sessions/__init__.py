"""Sessions: JSON-lines files that a crash cannot take a word from.

Library half (no UI): :class:`SessionStore` (where, list, latest, get),
:class:`SessionRecorder` (writes as a reply happens), :func:`load_session` and
:func:`resume` (read back, even from a damaged file, into an agent),
:func:`export_markdown`, :mod:`~shell.sessions.redact`.

Front ends use :func:`recorder_for` (one recorder per runtime, new session on
first use) and wrap each reply: ``runtime_recorder.record(agent.reply(text))``;
``--continue`` / ``--resume`` go through :func:`resume_into`.
"""

from __future__ import annotations

import sys
from typing import Any

from .codec import CodecError, message_from_dict, message_to_dict
from .export import export_markdown
from .loader import INTERRUPTED_RESULT, LoadedSession, load_session, repair_history, resume
from .recorder import FORMAT_VERSION, SessionRecorder
from .redact import Redactor, redact
from .store import (
    DATA_DIR_ENV,
    SessionError,
    SessionInfo,
    SessionLocked,
    SessionNotFound,
    SessionStore,
    data_dir,
)

__all__ = [
    "DATA_DIR_ENV",
    "FORMAT_VERSION",
    "INTERRUPTED_RESULT",
    "CodecError",
    "LoadedSession",
    "Redactor",
    "SessionError",
    "SessionInfo",
    "SessionLocked",
    "SessionNotFound",
    "SessionRecorder",
    "SessionStore",
    "data_dir",
    "export_markdown",
    "format_sessions",
    "load_session",
    "message_from_dict",
    "message_to_dict",
    "recorder_for",
    "redact",
    "repair_history",
    "resume",
    "resume_into",
]

RECORDER_ATTR = "session_recorder"


def recorder_for(runtime: Any, store: SessionStore | None = None) -> SessionRecorder:
    """The runtime's recorder (``runtime.session_recorder``), created on first use.

    A new recorder starts a new session whose file appears at the first event.
    """
    recorder = getattr(runtime, RECORDER_ATTR, None)
    if isinstance(recorder, SessionRecorder):
        return recorder
    recorder = SessionRecorder(
        store or SessionStore(),
        runtime.agent,
        cwd=str(runtime.workspace.root),
        redactor=Redactor.from_environment(getattr(runtime, "settings", None)),
    )
    setattr(runtime, RECORDER_ATTR, recorder)
    return recorder


def format_sessions(infos: list[SessionInfo], limit: int = 20) -> str:
    """A numbered plain-text list (newest first) for a chooser or an error message."""
    import time

    rows = []
    for n, info in enumerate(infos[:limit], 1):
        when = time.strftime("%Y-%m-%d %H:%M", time.localtime(info.updated))
        rows.append(f"{n:>2}. {info.id}  {when}  {info.message_count:>3} msgs  {info.title}")
    return "\n".join(rows)


def resume_into(
    runtime: Any, id_or_prefix: str | None, *, latest: bool = False, store: SessionStore | None = None
) -> LoadedSession:
    """``--continue`` (``latest=True``) / ``--resume [ID]`` for the CLI.

    Loads the session into ``runtime.agent``, attaches a recorder that carries on
    writing it (``runtime.session_recorder``, lock taken now) and adds what the
    loader skipped or repaired to ``runtime.problems``. With neither an id nor
    ``latest``, asks on the terminal which session (newest first). Errors become
    the runtime's ``ShellError`` (one line for the user).
    """
    from shell.runtime import ShellError

    store = store or SessionStore()
    cwd = str(runtime.workspace.root)
    try:
        if latest:
            info = store.latest(cwd)
            if info is None:
                raise SessionError(f"no session to continue in {cwd}")
        elif id_or_prefix:
            info = store.get(id_or_prefix)
        else:
            info = _choose(store, cwd)
        loaded = load_session(info.path)
        resume(runtime.agent, loaded)
        recorder = SessionRecorder.resume(
            store, runtime.agent, loaded,
            redactor=Redactor.from_environment(getattr(runtime, "settings", None)),
        )
    except (SessionError, OSError) as exc:
        raise ShellError(str(exc)) from None
    setattr(runtime, RECORDER_ATTR, recorder)
    problems = getattr(runtime, "problems", None)
    if isinstance(problems, list):
        problems.extend(f"session {loaded.session_id}: {p}" for p in loaded.problems)
    return loaded


def _choose(store: SessionStore, cwd: str) -> SessionInfo:
    infos = store.list(cwd) or store.list()
    if not infos:
        raise SessionError("there are no sessions to resume yet")
    listing = format_sessions(infos)
    if not (sys.stdin.isatty() and sys.stderr.isatty()):
        raise SessionError(f"--resume needs an ID when not on a terminal. Recent sessions:\n{listing}")
    print(listing, file=sys.stderr)
    answer = input(f"Resume which session? [1-{min(len(infos), 20)}] ").strip()
    if answer.isdigit() and 1 <= int(answer) <= min(len(infos), 20):
        return infos[int(answer) - 1]
    return store.get(answer) if answer else infos[0]
