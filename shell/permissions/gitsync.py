"""Hidden tracked files brought along when a command moved git to another version.

A sandboxed ``git checkout b2`` (a ``git switch``, a reset, a fast-forward ``git pull``)
stages b2's version of a file the sandbox hides, but cannot write it: the folder the
command sees is an empty stand-in, read-only. It exits 0 and leaves the user on b2 with
the old branch's content, which ``git status`` shows as a change and the user's next
``git commit -a`` commits: b2's change silently reverted (finding Q20).

So once the marks are cleared, the shell (which may read the file; the command may not)
does what the checkout would have done, where that loses nothing and writes nothing the
command chose: only when HEAD moved to a commit that existed before the command
(:class:`Move`, judged by refs in :mod:`.gitnet`), only from exactly what HEAD's tree
held before (hashed as git hashes a blob, no filter applied) and that git had staged,
only to exactly what the new HEAD's tree holds, and only where no write rule covers the
file (``may_write``, the sandbox's judgement). Then the file is written with git's
version (``git checkout-index``), or removed where git no longer tracks it; one git
tracks anew there, missing, is written. Anything else is left and said: a file the user
edited, a version they staged and had not committed (a sandboxed ``git reset --hard``
must not discard it), a commit the command made (``git checkout -b b2``, a commit
staging content it chose, then back: tester finding S17; a back-dated commit deleting
the file: S18), a filtered file (LFS, git-crypt, line endings: never the same hash raw).
"""

from __future__ import annotations

import hashlib
import os
import stat
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path

from . import githardened

TIMEOUT = 10.0
LARGEST = 64 << 20
"""Bytes of a file read to compare it with its blob; a larger one is left and said."""


@dataclass(frozen=True, slots=True)
class Move:
    """HEAD moved to a commit that existed before the command: ``name -> object`` of the
    hidden files in HEAD's tree before and after, and of index entries new under them."""

    before: Mapping[bytes, bytes]
    after: Mapping[bytes, bytes]
    new: Mapping[bytes, bytes]


def bring_along(
    repo: Path, was: Mapping[bytes, bytes], now: Mapping[bytes, bytes], move: Move | None,
    may_write: Callable[[Path], bool],
) -> tuple[list[bytes], list[bytes]]:
    """For each index name whose object ``was`` (before the command) differs from ``now``
    (after it; missing: no longer tracked): the names brought to git's version, and those
    left as the user had them (``move`` None: HEAD did not move to a commit that existed
    before, and every one is left)."""
    write: list[bytes] = []
    brought: list[bytes] = []
    left: list[bytes] = []
    for name, old in was.items():
        if now.get(name) == old:
            continue
        path = repo / os.fsdecode(name)
        if (move is None or move.before.get(name) != old or move.after.get(name) != now.get(name)
                or not _inside(path, repo) or not may_write(path) or not _holds(path, old)):
            left.append(name)
        elif name in now:
            write.append(name)
        else:
            try:
                os.unlink(path)
            except OSError:
                left.append(name)
            else:
                brought.append(name)
    if write:
        done = githardened.run(["-C", str(repo), "checkout-index", "-f", "-z", "--stdin"],
                               stdin=b"".join(n + b"\0" for n in write), timeout=TIMEOUT)
        if done is not None and done.returncode == 0:
            brought += write
        else:
            left += write
    return brought, left


def write_missing(repo: Path, move: Move, may_write: Callable[[Path], bool]) -> list[bytes]:
    """Those of the entries new since the command started (the branch it checked out
    tracks them) missing in the work tree, written from the index: only as the new
    HEAD's tree holds them, where no write rule covers them."""
    missing = [n for n, sha in move.new.items() if move.after.get(n) == sha
               and _inside(repo / os.fsdecode(n), repo) and may_write(repo / os.fsdecode(n))
               and not os.path.lexists(repo / os.fsdecode(n))]
    if not missing:
        return []
    done = githardened.run(["-C", str(repo), "checkout-index", "-z", "--stdin"],
                           stdin=b"".join(n + b"\0" for n in missing), timeout=TIMEOUT)
    return [n for n in missing if os.path.lexists(repo / os.fsdecode(n))] if done is not None else []


def _inside(path: Path, repo: Path) -> bool:
    """Whether ``path``'s folder is in ``repo`` (no link above it leads elsewhere)."""
    top, folder = os.path.realpath(repo), os.path.realpath(path.parent)
    return folder == top or folder.startswith(top.rstrip("/") + "/")


def _holds(path: Path, blob: bytes) -> bool:
    """Whether ``path`` is exactly the blob ``blob`` names (sha1 or sha256, as git hashes it)."""
    try:
        info = os.lstat(path)
        if stat.S_ISLNK(info.st_mode):
            data = os.fsencode(os.readlink(path))
        elif stat.S_ISREG(info.st_mode) and info.st_size <= LARGEST:
            with open(path, "rb") as handle:
                data = handle.read(LARGEST + 1)
        else:
            return False
    except OSError:
        return False
    digest = hashlib.sha256() if len(blob) == 64 else hashlib.sha1()
    digest.update(b"blob %d\0" % len(data))
    digest.update(data)
    return digest.hexdigest().encode() == blob


__all__ = ["Move", "bring_along", "write_missing"]
