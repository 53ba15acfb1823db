"""Where sessions live, how they are named, listed, found and locked.

One JSON-lines file per session, ``<data dir>/sessions/<id>.jsonl``, where the
data dir is platformdirs' user data dir for ``agent-shell`` (or
``$AGENT_SHELL_DATA_DIR``, for tests and portable installs). Ids start with the
creation time (``20260101-120000-3fa9c1``) so they sort by age and a short
prefix is enough for ``--resume``.

Two shells writing one file would interleave half-lines, so a recorder holds an
exclusive ``flock`` on ``<id>.lock`` while it is open; the lock file holds the
owner's pid so the second shell can say who has it. The lock dies with the
process (the kernel drops it), so a crash never leaves a session locked.
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import json
import os
import secrets
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from shell.core.attached import name_of, parts_of
from shell.core.dirs import data_dir
from shell.core.messages import Message, UserMessage
from shell.core.summaryrecord import SUMMARY_MARK, summary_of

SUFFIX = ".jsonl"
TITLE_WIDTH = 80


_ERRNO_WORDS = {
    errno.ENOSPC: "the disk is full",
    errno.EDQUOT: "the disk quota is used up",
    errno.EROFS: "the file system is read-only",
    errno.EACCES: "permission denied",
    errno.EPERM: "permission denied",
    errno.EIO: "an input/output error (a failing disk?)",
}


def describe_os_error(exc: OSError) -> str:
    """An ``OSError`` as words a user can act on: ``the disk is full (/path)``, not
    ``[Errno 28] No space left on device``."""
    words = _ERRNO_WORDS.get(exc.errno or 0) or exc.strerror or str(exc)
    where = exc.filename
    return f"{words} ({where})" if where else words


class SessionError(Exception):
    """A session that cannot be found, chosen or opened; the message is for the user."""


class SessionNotFound(SessionError, KeyError):
    def __str__(self) -> str:  # KeyError would quote the message
        return str(self.args[0]) if self.args else "session not found"


class SessionLocked(SessionError):
    """Another process has the session open for writing."""

    def __init__(self, session_id: str, pid: int | None) -> None:
        self.session_id = session_id
        self.pid = pid
        who = f"process {pid}" if pid else "another process"
        super().__init__(
            f"Session {session_id} is open in another agent-shell ({who}); "
            "close it there, or start a new session."
        )


def new_session_id(now: float | None = None) -> str:
    stamp = time.strftime("%Y%m%d-%H%M%S", time.localtime(now if now is not None else time.time()))
    return f"{stamp}-{secrets.token_hex(3)}"


def utc_now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


@dataclass(frozen=True, slots=True)
class SessionInfo:
    """One row of ``/sessions`` or ``--resume``'s list."""

    id: str
    path: Path
    title: str
    message_count: int
    updated: float
    """The file's modification time (seconds since the epoch)."""
    created: str
    cwd: str
    model: str


class SessionLock:
    """An exclusive, non-blocking ``flock`` on ``<id>.lock`` with the owner's pid in it."""

    def __init__(self, path: Path, session_id: str) -> None:
        self.path = path
        self.session_id = session_id
        self._fd: int | None = None

    def acquire(self) -> None:
        fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError as exc:
            os.close(fd)
            if exc.errno in (errno.EWOULDBLOCK, errno.EAGAIN, errno.EACCES):
                raise SessionLocked(self.session_id, self.owner()) from None
            raise
        self._fd = fd
        with contextlib.suppress(OSError):  # the pid is a courtesy (a full disk must not lose the lock)
            os.ftruncate(fd, 0)
            os.pwrite(fd, f"{os.getpid()}\n".encode(), 0)

    def owner(self) -> int | None:
        try:
            text = self.path.read_text(encoding="ascii", errors="replace").strip()
        except OSError:
            return None
        return int(text) if text.isdigit() else None

    def release(self) -> None:
        if self._fd is None:
            return
        fd, self._fd = self._fd, None
        with contextlib.suppress(OSError):
            os.ftruncate(fd, 0)
        os.close(fd)  # closing drops the flock

    @property
    def held(self) -> bool:
        return self._fd is not None


class SessionStore:
    """The sessions directory: paths, listing, lookup by id or prefix."""

    def __init__(self, root: Path | str | None = None) -> None:
        self.root = Path(root) if root is not None else data_dir() / "sessions"

    def ensure(self) -> Path:
        self.root.mkdir(parents=True, exist_ok=True, mode=0o700)
        return self.root

    def path(self, session_id: str) -> Path:
        if not session_id or "/" in session_id or session_id.startswith("."):
            raise SessionError(f"not a session id: {session_id!r}")
        return self.root / f"{session_id}{SUFFIX}"

    def lock(self, session_id: str) -> SessionLock:
        return SessionLock(self.root / f"{session_id}.lock", session_id)

    def ids(self) -> list[str]:
        if not self.root.is_dir():
            return []
        return sorted(p.name[: -len(SUFFIX)] for p in self.root.glob(f"*{SUFFIX}") if p.is_file())

    def info(self, session_id: str) -> SessionInfo:
        """Header, title and count from one pass over the file. Lines are parsed only
        when needed: ``/sessions`` must stay quick with long sessions full of audio."""
        path = self.path(session_id)
        header: dict[str, object] = {}
        title, count = "", 0
        named, named_by = "", ""  # a title record: the model's summary, or the user's /rename
        try:
            stat = path.stat()
            with path.open("rb") as f:
                for line in f:
                    if title and header and line.startswith(_MESSAGE_PREFIX):
                        count += 1  # the recorder's compact form: no need to parse
                        continue
                    if line.startswith(_SKIPPABLE):
                        continue
                    try:
                        record = json.loads(line)
                    except (ValueError, RecursionError):  # garbage, or nested too deep
                        continue
                    if not isinstance(record, dict):
                        continue
                    kind = record.get("kind")
                    if kind == "header" and not header:
                        header = record
                    elif kind == "message":
                        count += 1
                        if not title:
                            title = message_title(record.get("message"))
                    elif kind == "results_landed":
                        landed = record.get("call_ids")
                        count += len(landed) if isinstance(landed, list) else 0
                    elif kind in ("history", "rewind"):
                        messages = record.get("messages")
                        if isinstance(messages, list):
                            count = len(messages)
                            if kind == "rewind":  # a first message taken back is no title
                                title = next((t for t in map(message_title, messages) if t), "")
                    elif (kind == "title" and isinstance(record.get("title"), str)
                          and (named_by != "user" or record.get("source") == "user")):
                        named, named_by = _one_line(record["title"]), str(record.get("source", ""))
        except OSError as exc:
            raise SessionNotFound(f"session {session_id} cannot be read: {exc}") from None
        return SessionInfo(
            session_id,
            path,
            named or title or "(no messages)",
            count,
            stat.st_mtime,
            str(header.get("created", "")),
            str(header.get("cwd", "")),
            str(header.get("model", "")),
        )

    def list(self, cwd: str | Path | None = None) -> list[SessionInfo]:
        """Sessions, newest (last written) first; only those started in ``cwd`` if given.
        A session with no message (its only message taken back: too long for the
        context, or refused by a policy) is not listed: nothing to resume or read. Its
        file stays (it may be this process's, about to get its first message); an id
        still finds it."""
        wanted = _norm(cwd) if cwd is not None else None
        found = []
        for session_id in self.ids():
            try:
                info = self.info(session_id)
            except SessionError:
                continue
            if info.message_count == 0:
                continue
            if wanted is None or _norm(info.cwd) == wanted:
                found.append(info)
        found.sort(key=lambda i: (i.updated, i.id), reverse=True)
        return found

    def latest(self, cwd: str | Path | None = None) -> SessionInfo | None:
        """The session to ``--continue``: the newest one started in ``cwd``."""
        found = self.list(cwd)
        return found[0] if found else None

    def get(self, id_or_prefix: str) -> SessionInfo:
        """By full id or unique prefix; :class:`SessionNotFound` or :class:`SessionError`."""
        key = id_or_prefix.strip()
        ids = self.ids()
        if key in ids:
            return self.info(key)
        matches = [i for i in ids if i.startswith(key)] if key else []
        if not matches:  # the random tail is what people copy from a listing
            matches = [i for i in ids if key and i.endswith(key)]
        if not matches:
            raise SessionNotFound(f"no session matches {id_or_prefix!r} (in {self.root})")
        if len(matches) > 1:
            shown = ", ".join(matches[:5]) + (", …" if len(matches) > 5 else "")
            raise SessionError(
                f"{id_or_prefix!r} matches {len(matches)} sessions: {shown}; give more of the id"
            )
        return self.info(matches[0])

    def find(self, key: str, cwd: str | Path | None = None, *, listed: int = 20) -> SessionInfo:
        """What a user means by ``key``: a number is a row of the listing they were
        shown (``/sessions``: the newest ``listed`` of ``cwd``, numbered from 1),
        anything else an id or a part of one (:meth:`get`)."""
        key = key.strip()
        if key.isdigit() and len(key) <= 3:
            infos = self.list(cwd) if cwd is not None else self.list()
            if 1 <= int(key) <= min(len(infos), listed):
                return infos[int(key) - 1]
            raise SessionNotFound(
                f"there is no session number {key} here ({min(len(infos), listed)} listed); "
                "`/sessions` shows the numbers"
            )
        return self.get(key)


_MESSAGE_PREFIX = b'{"kind":"message",'
_SKIPPABLE = tuple(
    f'{{"kind":"{k}",'.encode() for k in ("checkpoint", "tool_result", "state", "reply_end", "interrupted")
)


def _norm(path: str | Path) -> str:
    try:
        return str(Path(path).expanduser().resolve())
    except (OSError, RuntimeError):
        return str(path)


def _one_line(text: str) -> str:
    line = " ".join(text.split())
    return line if len(line) <= TITLE_WIDTH else line[: TITLE_WIDTH - 1] + "…"


def message_title(message: object, clean: Callable[[str], str] | None = None) -> str:
    """A stored user message as a session's name: the user's own words and how many
    files it attached (``explain @src/mod.py (+1 file)``), never the attached text
    (finding B4: the list showed the tag and the file's first lines). Empty for any
    other message. ``clean`` (the search index's redactor) goes over the words before
    they are cut, so a secret is never cut into a piece it no longer recognises. A
    ``/compact`` summary record names nothing (a fork of a compacted session, whose
    first message it is, was listed as "[agent-shell: summary of earlier turns] …")."""
    if not isinstance(message, dict) or message.get("role") != "user":
        return ""
    content = message.get("content")
    if isinstance(content, str):
        parts: list[str | None] = [content]
    elif isinstance(content, list):
        parts = [
            (str(b.get("text", "")) if b.get("type") == "text" else None)
            for b in content if isinstance(b, dict) and b.get("type") in ("text", "data")
        ]
    else:
        return ""
    if parts and isinstance(parts[0], str) and parts[0].startswith(SUMMARY_MARK):
        return ""  # a /compact's summary record: the model's text, not a name the user gave
    return name_of(parts, TITLE_WIDTH, clean)


FORK_MARK = " (fork)"


def fork_title(title: str, messages: Iterable[Message]) -> str:
    """A fork's name: its original's title (or, untitled, its first message's
    words) and `` (fork)``, so the two are told apart in ``/sessions`` and the fork
    does not fall back to the raw first message (finding B4). The summary record a
    ``/compact`` left first is the model's text, not the user's words: it is passed by
    (finding E3: a fork was titled "[agent-shell: summary of earlier turns] Here is…")."""
    if not title:
        first = next((m for m in messages if isinstance(m, UserMessage) and summary_of(m) is None), None)
        title = name_of(parts_of(first.content), TITLE_WIDTH) if first is not None else ""
    if not title:
        return ""
    line = " ".join(title.split())
    room = TITLE_WIDTH - len(FORK_MARK)
    return (line if len(line) <= room else line[: room - 1] + "…") + FORK_MARK
