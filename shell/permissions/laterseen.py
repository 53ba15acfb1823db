"""One watched path as it was, before and after a sandboxed command: what is there,
its identity, where a symlink leads and when it last changed.

Kept apart from the walls (:mod:`.runslater`) and the moving out (:mod:`.laterplanted`)
because both compare these snapshots: a path is judged by how its :class:`Seen` moved.
"""

from __future__ import annotations

import os
import stat
from dataclasses import dataclass, field
from pathlib import Path

Ident = tuple[int, int]


@dataclass(frozen=True, slots=True)
class Seen:
    """One watched path as it was: what is there (``missing``, ``file``, ``dir``,
    ``link``, ``other``), its identity, and where a symlink leads."""

    kind: str
    ident: Ident | None = None
    target: Ident | None = None
    link: str = ""
    mtime: int = 0
    """A file's (or a link's target's) mtime; 0 for a directory, whose entries are
    judged one by one (a pinned ``.git`` changes with every commit)."""
    ctime: int = field(default=0, compare=False)
    """When the entry itself last changed (creating or moving it sets it; nothing sets
    it back): an entry older than the command was not made by it."""


def seen_now(path: Path) -> Seen:
    """``path`` as it is now (``missing`` when it cannot be looked at)."""
    try:
        info = os.lstat(path)
    except OSError:
        return Seen("missing")
    ident = (info.st_dev, info.st_ino)
    ctime = info.st_ctime_ns
    if stat.S_ISLNK(info.st_mode):
        try:
            real = os.stat(path)
            target: Ident | None = (real.st_dev, real.st_ino)
            mtime = real.st_mtime_ns
        except OSError:
            target, mtime = None, 0
        try:
            link = os.readlink(path)
        except OSError:
            link = ""
        return Seen("link", ident, target, link, mtime, ctime)
    kind = "dir" if stat.S_ISDIR(info.st_mode) else "file" if stat.S_ISREG(info.st_mode) else "other"
    return Seen(kind, ident, ident, "", info.st_mtime_ns if kind != "dir" else 0, ctime)


__all__ = ["Ident", "Seen", "seen_now"]
