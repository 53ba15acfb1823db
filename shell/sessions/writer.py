"""``SessionWriter``: appends records to one session file, and survives a disk that fails.

This is the file half of the recorder (:mod:`shell.sessions.recorder` decides what
to write, from the events; this module only writes it): the session's lock, the
file created with its header, one ``write`` per record then ``fsync``.

Saving never breaks a reply. A write that fails (the disk is full, the file
system went read-only, whatever else) is reported once, as a ``Notice`` the
recorder puts in the event stream (every front end shows notices; headless exits
non-zero), and while the failure is fresh every write raises at once (nothing
may be marked written): the next attempt comes ``retry_s`` seconds later, and
the first write that works says so in a second notice. A write cut off midway
is truncated away, so the file never holds a torn line in its middle. Encoding
cannot fail: :func:`encode_record` escapes lone surrogates and nests iteratively.

Not thread-safe on its own: the recorder calls it under its lock.
"""

from __future__ import annotations

import logging
import os
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from shell.core.events import Notice
from shell.core.textsafety import json_text

from .store import SessionLock, SessionStore, describe_os_error

log = logging.getLogger("agent_shell.sessions")

RETRY_S = 2.0
"""After a failed write, how long before the next attempt (made as events come; a
reply's start and end always try)."""


def encode_record(record: dict[str, Any]) -> bytes:
    """One line of UTF-8 JSON; never raises for JSON-ready values (lone surrogates and
    controls are ``\\u`` escapes, too-deep nesting is encoded iteratively)."""
    return (json_text(record, compact=True) + "\n").encode("utf-8")


class Deferred(Exception):
    """A write not attempted: saving failed a moment ago."""


class SessionWriter:
    """The session file of ``session_id`` in ``store``: opened (and locked) by
    :meth:`open`, appended to by :meth:`write`, released by :meth:`close`."""

    def __init__(
        self,
        store: SessionStore,
        session_id: str,
        *,
        fsync: bool = True,
        retry_s: float = RETRY_S,
        on_failure: Callable[[], None] | None = None,
    ) -> None:
        self.store = store
        self.session_id = session_id
        self.path: Path = store.path(session_id)
        self.fsync = fsync
        self.retry_s = retry_s
        self.on_failure = on_failure
        """Called when a write fails (the recorder stops its checkpoint timer)."""
        self.error: str | None = None
        """Why saving fails now (None while it works), as the user is told."""
        self.failures = 0
        """How many times saving started failing (each one reported once)."""
        self.fd: int | None = None
        self.news: list[Notice] = []
        """Notices for the event stream (saving failed, or works again), not yet taken."""
        self._failed_at = 0.0
        self._lock: SessionLock | None = None
        self._size: int | None = None  # the file's length as we wrote it (None: ask the file)

    @property
    def started(self) -> bool:
        """True once the file is open (it exists)."""
        return self.fd is not None

    def open(self, header: Callable[[], dict[str, Any]]) -> None:
        """Lock the session and open its file, creating it with ``header()`` if new.

        Raises :class:`~shell.sessions.store.SessionLocked` when another process
        has it open, ``OSError`` when it cannot be opened."""
        if self.fd is not None:
            return
        self.store.ensure()
        lock = self.store.lock(self.session_id)
        lock.acquire()
        try:
            fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
        except OSError:
            lock.release()
            raise
        self._lock, self.fd = lock, fd
        size = os.fstat(fd).st_size
        if size == 0:
            self.write(header())
        elif not _ends_with_newline(self.path, size):
            os.write(fd, b"\n")  # a torn last line must not swallow our first record

    def close(self) -> None:
        """Close the file and release the lock (what is pending is the caller's)."""
        if self.fd is not None:
            os.close(self.fd)
            self.fd = None
        if self._lock is not None:
            self._lock.release()
            self._lock = None

    def size(self) -> int:
        """The file's length (0 before it exists)."""
        return 0 if self.fd is None else os.fstat(self.fd).st_size

    def retry_now(self) -> None:
        """Let the next write try at once, however fresh a failure is (a reply's
        start and end, the last words before closing)."""
        self._failed_at = float("-inf")

    def take_notices(self) -> list[Notice]:
        news, self.news = self.news, []
        return news

    def write(self, record: dict[str, Any]) -> None:
        """Append one record, or raise: :class:`Deferred` at once while a failure is
        fresh (nothing may be marked written), else the write's own ``OSError``. A
        record cut off midway is truncated away. The first write that works after a
        failure says so."""
        assert self.fd is not None
        if self.error is not None and time.monotonic() - self._failed_at < self.retry_s:
            raise Deferred
        data = encode_record(record)
        start = self._size if self._size is not None else os.lseek(self.fd, 0, os.SEEK_END)
        try:
            view = memoryview(data)
            while view:
                n = os.write(self.fd, view)
                view = view[n:]
            if self.fsync:
                os.fsync(self.fd)
        except OSError:
            self._size = None
            try:
                os.ftruncate(self.fd, start)
                self._size = start
            except OSError:
                pass
            raise
        self._size = start + len(data)
        if self.error is not None:
            self._recovered()

    def guarded(self, fn: Callable[..., Any], *args: Any) -> None:
        """Run ``fn`` (which writes); a failure becomes :attr:`error` and a notice."""
        try:
            fn(*args)
        except Deferred:
            pass
        except Exception as exc:
            self.failed(exc)

    def failed(self, exc: Exception) -> None:
        """A write (or the opening) failed: said once, tried again after ``retry_s``."""
        self._failed_at = time.monotonic()
        if self.on_failure is not None:
            self.on_failure()
        if self.error is not None:
            return  # said already; the next attempt comes after retry_s
        what = describe_os_error(exc) if isinstance(exc, OSError) else f"{type(exc).__name__}: {exc}"
        if isinstance(exc, OSError) and exc.filename is None:
            what += f" ({self.path})"
        self.error = (
            f"The session could not be saved: {what}. Nothing is lost: the conversation stays in "
            "memory and is saved as soon as writing works again."
        )
        self.failures += 1
        log.info(self.error)
        self.news.append(Notice("error", self.error, "session"))

    def _recovered(self) -> None:
        self.error = None
        self.news.append(Notice("info", f"Saving works again: the session is complete in {self.path}.",
                                "session"))


def _ends_with_newline(path: os.PathLike[str] | str, size: int) -> bool:
    with open(path, "rb") as f:
        f.seek(size - 1)
        return f.read(1) == b"\n"
