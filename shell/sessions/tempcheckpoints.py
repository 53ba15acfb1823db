"""The temporary folders that hold a ``--no-session`` conversation's checkpoints.

They hold the user's prompts and the contents of files before each edit, in the
shared temporary directory (private to the user, 0700). :meth:`.Checkpoints.close`
removes one, but a run that is killed (SIGKILL, a timeout, a crash before close)
never gets there: 2,127 were found in one machine's ``/tmp`` in a day (tester round
7). So each folder carries the id of the process that made it, is removed at that
process's exit too (``atexit``), and the next ``--no-session`` start removes the
folders whose process is gone. Folders of the older name (no process id) are
removed once nothing has touched them for :data:`STALE_SECONDS`.
"""

from __future__ import annotations

import atexit
import os
import re
import shutil
import tempfile
import threading
import time
from pathlib import Path

PREFIX = "agent-shell-checkpoints-"
STALE_SECONDS = 24 * 3600
_NAMED = re.compile(re.escape(PREFIX) + r"(\d+)-[^/]+")
_ours: set[Path] = set()
_lock = threading.Lock()
_swept = False


def make() -> Path:
    """A new private folder for one conversation's checkpoints, removed at exit; the
    first call in a process sweeps what killed runs left."""
    global _swept
    with _lock:
        sweep_now, _swept = not _swept, True
    if sweep_now:
        sweep()
    folder = Path(tempfile.mkdtemp(prefix=f"{PREFIX}{os.getpid()}-"))
    with _lock:
        if not _ours:
            atexit.register(_remove_ours)
        _ours.add(folder)
    return folder


def forget(folder: Path) -> None:
    """``folder`` was removed by its owner (:meth:`.Checkpoints.close`)."""
    with _lock:
        _ours.discard(folder)


def sweep(base: str | None = None, now: float | None = None) -> list[Path]:
    """Remove the checkpoint folders of processes that are gone (and old unnamed ones)
    in ``base`` (default: the temporary directory); only the user's own. Returns them."""
    base = base or tempfile.gettempdir()
    now = time.time() if now is None else now
    removed: list[Path] = []
    try:
        entries = list(os.scandir(base))
    except OSError:
        return removed
    uid = os.getuid() if hasattr(os, "getuid") else None
    for entry in entries:
        if not entry.name.startswith(PREFIX):
            continue
        try:
            info = entry.stat(follow_symlinks=False)
        except OSError:
            continue
        if not entry.is_dir(follow_symlinks=False) or (uid is not None and info.st_uid != uid):
            continue
        named = _NAMED.fullmatch(entry.name)
        stale = (not _alive(int(named.group(1)))) if named else now - info.st_mtime > STALE_SECONDS
        if stale:
            shutil.rmtree(entry.path, ignore_errors=True)
            removed.append(Path(entry.path))
    return removed


def _alive(pid: int) -> bool:
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except (PermissionError, OverflowError, OSError):
        return True  # someone else's, or cannot tell: leave it
    return True


def _remove_ours() -> None:
    with _lock:
        folders = list(_ours)
        _ours.clear()
    for folder in folders:
        shutil.rmtree(folder, ignore_errors=True)


__all__ = ["PREFIX", "STALE_SECONDS", "forget", "make", "sweep"]
