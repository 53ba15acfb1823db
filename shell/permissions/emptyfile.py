"""The empty, read-only file the sandbox binds over secret files: one per process."""

from __future__ import annotations

import atexit
import os
import tempfile
import threading

_EMPTY_LOCK = threading.Lock()
_empty: list[str] = []


def empty_file() -> str:
    """An empty, read-only file of ours that the sandbox binds over secret files
    (made once per process, again if something removed it; gone at exit)."""
    with _EMPTY_LOCK:
        if _empty and os.path.isfile(_empty[0]) and os.path.getsize(_empty[0]) == 0:
            return _empty[0]
        fd, path = tempfile.mkstemp(prefix="agent-shell-hidden-")
        os.close(fd)
        os.chmod(path, 0o444)
        if not _empty:
            atexit.register(_remove_empty)
        _empty[:] = [path]
        return path


def _remove_empty() -> None:
    for path in _empty:
        try:
            os.unlink(path)
        except OSError:
            pass


__all__ = ["empty_file"]
