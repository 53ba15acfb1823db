"""Git LFS object files a sandboxed command wrote or changed: what the user's next
checkout of an LFS file would write (finding A6).

A repository that uses Git LFS commits a pointer (the file's sha256 and size); git-lfs
lays the file out from ``.git/lfs/objects/ab/cd/<sha256>`` and checks only the local
object's size. A command that rewrites one in place with same-size bytes (a script)
makes the user's next ``git checkout -- tool.bin`` or branch switch write them into
the work tree, and ``git status`` then shows it as the user's own change; nothing in
git gets the honest bytes back. So, as for git's loose objects (:mod:`.gitobjects`):
before a command each LFS object file is stamped (inode, size, mtime, ctime), after it
those it changed or added are hashed (sha256); one that is not its name is moved into
the quarantine folder, so git-lfs fetches the right one from a remote or refuses,
rather than lays out the command's. The hashing shares the loose objects' time bound;
what it did not reach is left and said.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import stat
import time
from collections.abc import Mapping
from pathlib import Path

from . import crossmove
from .runslater import Planted

Stamp = tuple[int, int, int, int]
MAX_FILES = 100_000
"""LFS object files stamped in one repository at most."""
MAX_CHECKED = 2_000
"""New LFS object files hashed after one command at most (changed ones: all)."""
HEX = frozenset("0123456789abcdef")

FORGED_WHY = ("a Git LFS object file whose content is not what its name (sha256) says: git-lfs would write "
              "this content in place of the committed file at the next checkout")
UNVERIFIED_WHY = "Git LFS object files the command wrote or changed that agent-shell could not hash in time"


def _name(rel: str) -> str | None:
    """The sha256 an ``ab/cd/<sha256>`` path stands for (None: not an object's)."""
    parts = rel.split("/")
    if len(parts) != 3 or len(parts[2]) != 64 or not HEX.issuperset(parts[2]):
        return None
    return parts[2] if parts[2][:2] == parts[0] and parts[2][2:4] == parts[1] else None


def stamps(gitdir: Path) -> dict[str, Stamp]:
    """Each file under ``gitdir/lfs/objects`` two folders down (none: an empty map)."""
    base = gitdir / "lfs" / "objects"
    out: dict[str, Stamp] = {}
    for top in _dirs(base):
        for sub in _dirs(base / top):
            try:
                with os.scandir(base / top / sub) as entries:
                    for entry in entries:
                        if len(out) >= MAX_FILES:
                            return out
                        with contextlib.suppress(OSError):
                            st = entry.stat(follow_symlinks=False)
                            out[f"{top}/{sub}/{entry.name}"] = (st.st_ino, st.st_size, st.st_mtime_ns,
                                                                st.st_ctime_ns)
            except OSError:
                continue
    return out


def _dirs(folder: Path) -> list[str]:
    try:
        with os.scandir(folder) as entries:
            return sorted(e.name for e in entries if len(e.name) == 2 and e.is_dir(follow_symlinks=False))
    except OSError:
        return []


def hashes_to(path: Path, name: str, deadline: float) -> bool | None:
    """Whether the regular file at ``path`` hashes (sha256) to ``name``; None when
    ``time.monotonic()`` passes ``deadline`` first."""
    digest = hashlib.sha256()
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC | os.O_NONBLOCK)
    except OSError:
        return False
    with os.fdopen(fd, "rb") as fh:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return False
        while chunk := fh.read(1 << 20):
            if time.monotonic() > deadline:
                return None
            digest.update(chunk)
    return digest.hexdigest() == name


def check(gitdir: Path, was: Mapping[str, Stamp], now: Mapping[str, Stamp], folder: Path,
          deadline: float) -> list[Planted]:
    """After a command (``was``: the stamps before it, ``now``: after): each LFS object
    file it changed or added that is not its name, moved into ``folder``; those the
    time ran out on, said."""
    changed = [rel for rel, st in now.items() if rel in was and was[rel] != st]
    new = [rel for rel in now if rel not in was]
    out: list[Planted] = []
    left: list[str] = []
    for rel in changed + new[:MAX_CHECKED]:
        path = gitdir / "lfs" / "objects" / rel
        name = _name(rel)
        if name is None:
            continue  # git-lfs's own temporary files are elsewhere (lfs/tmp); not an object name
        found = hashes_to(path, name, deadline)
        if found:
            continue
        if found is None:
            left.append(rel)
            continue
        out.append(_moved_out(path, rel, rel in was, folder))
    left += new[MAX_CHECKED:]
    if left:
        shown = ", ".join(r.rsplit("/", 1)[1][:12] for r in left[:3]) + (" …" if len(left) > 3 else "")
        out.append(Planted(gitdir / "lfs" / "objects", UNVERIFIED_WHY, undone=(
            f"left in place, not checked: {len(left):,} ({shown}); `git lfs fsck` names any whose content is "
            "not its name: run it before you check out here")))
    return out


def _moved_out(path: Path, rel: str, existed: bool, folder: Path) -> Planted:
    target = folder / "git-lfs-objects" / rel.rsplit("/", 1)[1]
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        crossmove.move(path, target)
    except OSError as exc:
        return Planted(path, FORGED_WHY, undone=f"moving it out FAILED ({exc.strerror or exc}): delete it "
                       "before you check out here (git lfs fsck names it)")
    return Planted(path, FORGED_WHY, undone=(
        f"{'changed' if existed else 'new'}; moved to {target}; git-lfs now fetches the committed file from "
        "a remote that has it (git lfs fetch), or says it is missing, instead of writing the command's"))


__all__ = ["FORGED_WHY", "UNVERIFIED_WHY", "check", "stamps"]
