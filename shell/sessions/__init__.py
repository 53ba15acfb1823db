"""Sessions: JSON-lines files that a crash cannot take a word from.

Library half (no UI): :class:`SessionStore` (where, list, latest, get),
:class:`SessionRecorder` (writes as a reply happens), :func:`load_session` and
:func:`resume` (read back, even from a damaged file, into an agent),
:func:`export_markdown`, :mod:`~shell.sessions.redact`.

The runtime owns one recorder per conversation and wraps each reply in it
(``ShellRuntime.reply``); ``--continue`` / ``--resume`` go through
``ShellRuntime.resume``. Nothing here knows the runtime or asks on a terminal.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from shell.core.dirs import DATA_DIR_ENV, data_dir

from .redact import Redactor, redact  # eager: the submodule ``redact`` would shadow the function
from .store import (
    SessionError,
    SessionInfo,
    SessionLocked,
    SessionNotFound,
    SessionStore,
    describe_os_error,
)

if TYPE_CHECKING:
    from .codec import CodecError, message_from_dict, message_to_dict
    from .export import export_markdown
    from .loader import INTERRUPTED_RESULT, LoadedSession, load_session, repair_history, resume
    from .recorder import FORMAT_VERSION, SessionRecorder

_LAZY = {
    "CodecError": "codec", "message_from_dict": "codec", "message_to_dict": "codec",
    "export_markdown": "export",
    "INTERRUPTED_RESULT": "loader", "LoadedSession": "loader", "load_session": "loader",
    "repair_history": "loader", "resume": "loader",
    "FORMAT_VERSION": "recorder", "SessionRecorder": "recorder",
}
"""Names loaded on first use: a shell starting with ``--no-session`` (or not resuming)
never needs the loader or the exporter before its first prompt."""


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    import importlib

    value = getattr(importlib.import_module(f"{__name__}.{module}"), name)
    globals()[name] = value
    return value


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
    "describe_os_error",
    "export_markdown",
    "format_sessions",
    "load_session",
    "message_from_dict",
    "message_to_dict",
    "redact",
    "repair_history",
    "resume",
]

def format_sessions(infos: list[SessionInfo], limit: int = 20, current: str | None = None) -> str:
    """A numbered plain-text list (newest first) for a chooser or an error message:
    each session its title (what was first typed or pasted, or its name: one line,
    controls neutralised, wrapped), then its id, date and message count, every line at
    most ``listing.LISTING_WIDTH`` columns (see :mod:`.listing`). The session whose id
    is ``current`` (the one being recorded) is marked: else ``/sessions`` listed it as
    one more to ``/resume``, looking like another conversation."""
    from shell.core.textsafety import sanitize_line

    from .listing import plural, when, wrapped

    rows: list[str] = []
    for n, info in enumerate(infos[:limit], 1):
        number = f"{n:>2}. "
        rest = " " * len(number)
        rows += wrapped(sanitize_line(info.title), number, rest)
        count = plural(info.message_count, "msg")
        rows.append(f"{rest}{sanitize_line(info.id)}  {when(info.updated)}  {count}")
        if current is not None and info.id == current:
            rows.append(f"{rest}(this conversation)")
    return "\n".join(rows)
