"""The quarantine: where the sandbox puts what a command planted that runs later.

A sandboxed command that creates a git hook, an ``.envrc``, a ``.vscode`` task … is
not allowed to leave it in the workspace (:mod:`.runslater`): once the command has
ended it is moved here, into agent-shell's data dir, which commands cannot see. Each
command gets a folder (``quarantine/20261128-181500-4242-1/``) holding the moved
paths under their place in the workspace, and beside it a record
(``20261128-181500-4242-1.json``) of where each came from and why, so the user can
see them all (``/quarantine``) and put one back (``/quarantine restore N``) without
reading the old tool results.

What nobody put back is kept :data:`RETENTION_DAYS` days, then removed at the next
start (:func:`prune_later`, in a thread: start-up does not wait on a big tree).
"""

from __future__ import annotations

import contextlib
import errno
import itertools
import json
import os
import shutil
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from shell.core.filedata import json_loads

if TYPE_CHECKING:  # not imported at start (build_sandbox calls prune_later): see sandbox.prepare
    from .runslater import Planted

RETENTION_DAYS = 30
"""How long a quarantined file is kept when nobody put it back."""

_FOLDERS = itertools.count(1)
_PRUNED = threading.Event()


class QuarantineError(Exception):
    """A file could not be put back; the message says why and what to do."""


@dataclass(frozen=True, slots=True)
class Entry:
    """One quarantined path: where it is now, where it came from, why, and when."""

    stored: Path
    original: Path | None
    """None for a folder from before records were kept: where it came from is unknown."""
    why: str
    moved_at: float


def root() -> Path:
    """The quarantine folder in agent-shell's data dir (not created here)."""
    from shell.core.dirs import data_dir

    return data_dir() / "quarantine"


def new_folder() -> Path:
    """A new folder for what one command planted (made when something is moved there)."""
    stamp = time.strftime("%Y%m%d-%H%M%S")
    return root() / f"{stamp}-{os.getpid()}-{next(_FOLDERS)}"


def record(folder: Path, planted: Sequence[Planted]) -> None:
    """Keep, beside ``folder``, where each moved path came from (for ``/quarantine``).
    A record that cannot be written loses nothing: the tool result says where each went."""
    moved = [p for p in planted if p.moved_to is not None]
    if not moved:
        return
    path = folder.with_name(folder.name + ".json")
    entries = _read(path)
    now = time.time()
    entries += [{"stored": str(p.moved_to), "original": str(p.path), "why": p.why, "moved_at": now}
                for p in moved]
    with contextlib.suppress(OSError):
        _write(path, entries)


def entries(base: Path | None = None) -> list[Entry]:
    """Everything in the quarantine, newest first."""
    base = root() if base is None else base
    try:
        folders = [e for e in os.scandir(base) if e.is_dir(follow_symlinks=False)]
    except OSError:
        return []
    out: list[Entry] = []
    for folder in sorted(folders, key=lambda e: e.name, reverse=True):
        kept = [e for e in _read(base / f"{folder.name}.json") if isinstance(e, dict)]
        for item in kept:
            stored, original, when = item.get("stored"), item.get("original"), item.get("moved_at")
            if isinstance(stored, str) and os.path.lexists(stored):
                came = Path(original) if isinstance(original, str) else None
                at = float(when) if isinstance(when, int | float) else 0.0
                out.append(Entry(Path(stored), came, str(item.get("why", "")), at))
        if not kept:  # a folder from before records were kept: its top-level entries
            with contextlib.suppress(OSError):
                when = folder.stat(follow_symlinks=False).st_mtime
                out += [Entry(Path(child.path), None, "", when)
                        for child in sorted(os.scandir(folder.path), key=lambda e: e.name)]
    return out


def restore(entry: Entry, roots: Sequence[Path]) -> Path:
    """Put ``entry`` back where it was, inside one of ``roots`` (the workspace asking);
    returns that path. Raises :class:`QuarantineError` when where it came from is
    unknown, taken, in another workspace, or reached through a symlink or a file.

    The path is walked from the root one folder at a time without following a symlink
    (as rewind writes): a later command may have put ``sub -> ~/other-project`` where
    ``sub/`` was, and a move by name would write into that other project."""
    if entry.original is None:
        raise QuarantineError(f"where {entry.stored} came from was not recorded; move it back yourself "
                              f"(mv {entry.stored} …)")
    root = next((r for r in roots if r in entry.original.parents), None)
    if root is None:
        raise QuarantineError(f"{entry.original} is not in this workspace; start agent-shell in its "
                              "workspace to put it back there")
    fd, name = _open_parent(root, entry.original)
    try:
        try:
            os.lstat(name, dir_fd=fd)
        except FileNotFoundError:
            pass
        else:
            raise QuarantineError(f"{entry.original} exists again; nothing was moved (compare the two, then "
                                  f"move {entry.stored} back yourself)")
        try:
            os.rename(entry.stored, name, dst_dir_fd=fd)
        except OSError as exc:
            if exc.errno != errno.EXDEV:
                raise
            shutil.move(str(entry.stored), f"/proc/self/fd/{fd}/{name}")  # another file system: copied
    except OSError as exc:
        raise QuarantineError(f"{entry.stored} could not be moved back: {exc.strerror or exc}") from None
    finally:
        os.close(fd)
    _forget(entry)
    return entry.original


_DIR = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC


def _open_parent(root: Path, original: Path) -> tuple[int, str]:
    """The folder ``original`` goes into, opened from ``root`` without following a
    symlink (missing folders are made), and its name there."""
    parts = original.relative_to(root).parts
    fd = os.open(root, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    walked = root
    try:
        for part in parts[:-1]:
            walked = walked / part
            try:
                step = os.open(part, _DIR, dir_fd=fd)
            except FileNotFoundError:
                os.mkdir(part, 0o777, dir_fd=fd)
                step = os.open(part, _DIR, dir_fd=fd)
            os.close(fd)
            fd = step
    except OSError as exc:
        os.close(fd)
        if exc.errno in (errno.ELOOP, errno.ENOTDIR):
            raise QuarantineError(f"{walked} is a symlink or a file now, not the folder it was; nothing was "
                                  f"moved (a move through it would write where it leads). Put {walked} "
                                  "back as a folder first") from None
        raise QuarantineError(f"{walked} could not be opened: {exc.strerror or exc}") from None
    return fd, parts[-1]


def _forget(entry: Entry) -> None:
    """Take a restored entry out of its folder's record; remove what is left empty."""
    folder = _folder_of(entry.stored)
    if folder is None:
        return
    path = folder.with_name(folder.name + ".json")
    left = [e for e in _read(path) if isinstance(e, dict) and e.get("stored") != str(entry.stored)]
    with contextlib.suppress(OSError):
        if left:
            _write(path, left)
        else:
            path.unlink(missing_ok=True)
    for parent in [entry.stored.parent, *entry.stored.parent.parents]:  # the empty folders it leaves
        if parent == folder.parent:
            break
        try:
            parent.rmdir()
        except OSError:
            break


def _folder_of(stored: Path) -> Path | None:
    base = root()
    try:
        rel = stored.relative_to(base)
    except ValueError:
        return None
    return base / rel.parts[0] if rel.parts else None


def prune(days: float = RETENTION_DAYS, now: float | None = None, base: Path | None = None) -> int:
    """Remove the command folders (and their records) older than ``days``; how many."""
    base = root() if base is None else base
    cutoff = (time.time() if now is None else now) - days * 86400
    removed = 0
    try:
        found = list(os.scandir(base))
    except OSError:
        return 0
    for entry in found:
        try:
            info = entry.stat(follow_symlinks=False)
        except OSError:
            continue
        if info.st_mtime >= cutoff:
            continue
        if entry.is_dir(follow_symlinks=False):
            shutil.rmtree(entry.path, ignore_errors=True)
            Path(entry.path + ".json").unlink(missing_ok=True)
            removed += not os.path.lexists(entry.path)
        elif entry.name.endswith(".json") and not os.path.lexists(entry.path[:-5]):
            with contextlib.suppress(OSError):
                os.unlink(entry.path)  # a record whose folder is gone
    return removed


def prune_later() -> None:
    """:func:`prune` in a thread, once per process (start-up does not wait on it)."""
    if _PRUNED.is_set():
        return
    _PRUNED.set()
    threading.Thread(target=prune, name="agent-shell quarantine prune", daemon=True).start()


def _read(path: Path) -> list[object]:
    try:
        data = json_loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return []
    return list(data) if isinstance(data, list) else []


def _write(path: Path, entries: Sequence[object]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    tmp = path.with_name(path.name + ".tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as fh:
        json.dump(list(entries), fh, indent=1)
    os.replace(tmp, path)


__all__ = ["RETENTION_DAYS", "Entry", "QuarantineError", "entries", "new_folder", "prune", "prune_later",
           "record", "restore", "root"]
