"""The records of skip-worktree bits agent-shell set and has not cleared yet.

Each command's marking (:mod:`.gitmarks`) writes one record in the shell's data folder
(hidden from commands, so none can forge or remove one): the repositories and index
names it marked. A record whose process is gone is a crash's, undone at the next
start. A live one is a mark set in use: two agent-shells in one repository (two
terminals, an editor's agent beside the shell) share the bits of the files both hide,
and the first to end must not clear what the other's command still relies on. So
marking takes a bit already set by a live record as its own too, clearing leaves the
names another live record holds, and both decide under one lock across processes
(``flock`` on a file in that folder): the last holder clears.
"""

from __future__ import annotations

import contextlib
import fcntl
import itertools
import json
import os
import threading
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path

from shell.core.dirs import data_dir

RECORDS = "index-marks"
"""The folder (in the data dir) of records of bits set and not yet cleared."""

_counter = itertools.count()
_lock = threading.Lock()
_held = threading.RLock()


class _Depth(threading.local):
    n = 0


_depth = _Depth()


def folder() -> Path:
    return data_dir() / RECORDS


@contextlib.contextmanager
def deciding() -> Iterator[None]:
    """One marking or clearing at a time among every agent-shell of this data folder
    (and every thread of this one); without the folder, among this process's threads."""
    with _held:
        if _depth.n:
            _depth.n += 1
            try:
                yield
            finally:
                _depth.n -= 1
            return
        try:
            folder().mkdir(parents=True, exist_ok=True, mode=0o700)
            fd = os.open(folder() / ".lock", os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW, 0o600)
        except OSError:
            yield
            return
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)
            _depth.n = 1
            yield
        finally:
            _depth.n = 0
            os.close(fd)


def write(wanted: Mapping[Path, Sequence[bytes]]) -> Path | None:
    """The record of the bits about to be set (None: it could not be written; the bits
    are still set and cleared after the command, only a crash would leave them)."""
    with _lock:
        name = f"{os.getpid()}-{next(_counter)}.json"
    body = {str(repo): [os.fsdecode(r) for r in rels] for repo, rels in wanted.items()}
    try:
        folder().mkdir(parents=True, exist_ok=True, mode=0o700)
        path = folder() / name
        path.write_text(json.dumps(body), encoding="utf-8", errors="surrogateescape")
    except OSError:
        return None
    return path


def read(record: Path) -> dict[Path, tuple[bytes, ...]] | None:
    try:
        body = json.loads(record.read_text(encoding="utf-8", errors="surrogateescape"))
    except (OSError, ValueError):
        return None
    if not isinstance(body, dict):
        return None
    repos: dict[Path, tuple[bytes, ...]] = {}
    for repo, rels in body.items():
        if isinstance(repo, str) and os.path.isabs(repo) and isinstance(rels, list):
            repos[Path(repo)] = tuple(os.fsencode(r) for r in rels if isinstance(r, str) and r)
    return repos


def records() -> list[Path]:
    try:
        return sorted(p for p in folder().iterdir() if p.name.endswith(".json"))
    except OSError:
        return []


def owner(record: Path) -> int | None:
    pid = record.name.partition("-")[0]
    return int(pid) if pid.isdigit() else None


def held_elsewhere(repo: Path, names: Sequence[bytes], own: Path | None) -> set[bytes]:
    """Those of ``names`` in ``repo`` a live record other than ``own`` lists (a command
    of another agent-shell, or another of this one, still running with them marked)."""
    wanted, out = set(names), set[bytes]()
    for record in records():
        pid = owner(record)
        if record == own or pid is None or not alive(pid):
            continue
        listed = read(record) or {}
        out |= wanted & set(listed.get(repo, ()))
    return out


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:
        return True  # someone else's: alive
    return True


__all__ = ["alive", "deciding", "folder", "held_elsewhere", "owner", "read", "records", "write"]
