"""Hidden tracked files brought along when a command moved git to another version.

A sandboxed ``git checkout b2`` (a ``git switch``, a reset, a fast-forward ``git pull``)
stages b2's version of a file the sandbox hides, but cannot write it: the folder the
command sees is an empty stand-in, read-only. It exits 0 and leaves the user on b2 with
the old branch's content, which ``git status`` shows as a change and the user's next
``git commit -a`` commits: b2's change silently reverted (finding Q20).

So once the marks are cleared, the shell (which may read the file; the command may not)
does what the checkout would have done, where that loses nothing: a file that still
holds exactly what was staged before the command (hashed as git hashes a blob, no
filter applied) is written with what git stages now (``git checkout-index``), or
removed where git no longer tracks it; one git tracks anew there, missing, is written.
A file the user had edited is left alone and
said, with the commands that choose. A filtered file (LFS, git-crypt, line endings)
never hashes the same as its blob raw, so it is left and said too.
"""

from __future__ import annotations

import hashlib
import os
import stat
from collections.abc import Mapping, Sequence
from pathlib import Path

from . import githardened

TIMEOUT = 10.0
LARGEST = 64 << 20
"""Bytes of a file read to compare it with its blob; a larger one is left and said."""


def bring_along(
    repo: Path, was: Mapping[bytes, bytes], now: Mapping[bytes, bytes]
) -> tuple[list[bytes], list[bytes]]:
    """For each index name whose object ``was`` (before the command) differs from ``now``
    (after it; missing: no longer tracked): the names brought to git's version, and those
    left as the user had them."""
    write: list[bytes] = []
    brought: list[bytes] = []
    left: list[bytes] = []
    for name, old in was.items():
        if now.get(name) == old:
            continue
        path = repo / os.fsdecode(name)
        if not _inside(path, repo) or not _holds(path, old):
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


def write_missing(repo: Path, names: Sequence[bytes]) -> list[bytes]:
    """Those of ``names`` (index entries new since the command started: the branch it
    checked out tracks them) missing in the work tree, written from the index."""
    missing = [n for n in names if _inside(repo / os.fsdecode(n), repo)
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


__all__ = ["bring_along", "write_missing"]
