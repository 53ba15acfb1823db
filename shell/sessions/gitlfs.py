"""The repository's Git LFS objects, kept for ``/rewind`` like its git objects (:mod:`.gitstore`).

A repository that uses Git LFS commits only a pointer (the file's sha256 and size);
the file's bytes live in ``.git/lfs/objects/ab/cd/abcd…``, and often nowhere else:
never pushed, or the remote gone. ``rm -rf .git/lfs`` then loses those files for good
(every later checkout of them fails: "smudge filter lfs failed"), and the workspace
capture does not scan ``.git`` (finding A6). So each LFS object is kept as git's
objects are: hard-linked into the session's store as it appears (copied where a link
cannot be made), under the same budget (what the store holds alone counts against the
history's share of the checkpoints' limit), said when a command removes it, and put
back by a rewind only when its content still hashes (sha256) to its name: a link is
the repository's own file, which a command can rewrite in place.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import secrets
import shutil
import stat
from pathlib import Path

from .gitrefs import folder_entries, folder_names, real_folder

MAX_FILES = 100_000
"""LFS object files looked at in one repository at most."""
CHUNK = 1 << 20
HEX = frozenset("0123456789abcdef")


def is_name(name: str) -> bool:
    """Whether ``name`` is an LFS object's (64 hex digits: its content's sha256)."""
    return len(name) == 64 and HEX.issuperset(name)


def lfs_objects(gitdir: Path) -> Path:
    return gitdir / "lfs" / "objects"


def hashes_to_name(path: Path, name: str) -> bool:
    """Whether the regular file at ``path`` (no symlink) holds what ``name`` says."""
    digest = hashlib.sha256()
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC | os.O_NONBLOCK)
    except OSError:
        return False
    with os.fdopen(fd, "rb") as fh:
        if not _regular(fd):
            return False
        while chunk := fh.read(CHUNK):
            digest.update(chunk)
    return digest.hexdigest() == name


def _regular(fd: int) -> bool:
    return stat.S_ISREG(os.fstat(fd).st_mode)


def folders(base: Path) -> dict[str, int]:
    """``ab/cd``: mtime of each two-level fan-out folder under ``base`` (no symlinks)."""
    out: dict[str, int] = {}
    for top in folder_entries(base):
        if len(top.name) != 2 or not top.is_dir(follow_symlinks=False):
            continue
        for sub in folder_entries(Path(top.path)):
            if len(sub.name) == 2 and sub.is_dir(follow_symlinks=False):
                with contextlib.suppress(OSError):
                    out[f"{top.name}/{sub.name}"] = sub.stat(follow_symlinks=False).st_mtime_ns
    return out


class LfsKeeper:
    """The LFS objects of one repository, linked into ``store`` (``ab/cd/<sha256>``)."""

    def __init__(self, store: Path) -> None:
        self.store = store
        self._listed: dict[str, int | None] = {}
        """Each fan-out folder's mtime when last listed: unchanged, it is not listed again."""
        self._absent: dict[str, set[str]] = {}
        """Each folder's kept files the repository lacked when last listed (gone before
        the command: not its doing)."""
        self._counted: dict[str, int | None] = {}
        """Each folder's mtime when the store's own files in it were last counted."""
        self.own: dict[str, int] = {}
        """``rel: size`` of each kept file the store holds alone: what it costs."""
        self.full = False
        """A file was not kept for want of room (said once per command)."""

    @property
    def own_bytes(self) -> int:
        return sum(self.own.values())

    def keep(self, gitdir: Path, room: int) -> None:
        """Link the repository's new LFS objects (copies and what it deleted count
        against ``room``; beyond it, not kept: :attr:`full`). A fan-out folder whose
        mtime is as it was is not listed again: one ``stat`` per folder."""
        base = lfs_objects(gitdir)
        stamps = folders(base)
        seen = 0
        for rel, stamp in sorted(stamps.items()):
            if self._listed.get(rel) == stamp:
                continue
            names = [e for e in folder_entries(base / rel)
                     if is_name(e.name) and e.is_file(follow_symlinks=False)]
            for entry in names[: max(0, MAX_FILES - seen)]:
                self._link(Path(entry.path), f"{rel}/{entry.name}", room)
            seen += len(names)
            self._absent[rel] = folder_names(self.store / rel) - {e.name for e in names}
            self._listed[rel] = stamp
        for rel in [r for r, stamp in self._listed.items() if stamp is not None and r not in stamps]:
            self._absent[rel] = folder_names(self.store / rel)  # the repository lost the folder before
            self._listed[rel] = None
        self.count(gitdir, room, stamps)

    def _link(self, source: Path, rel: str, room: int) -> None:
        target = self.store / rel
        if os.path.lexists(target):
            return
        target.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        try:
            os.link(source, target, follow_symlinks=False)
            return
        except OSError:
            pass
        with contextlib.suppress(OSError):
            size = os.lstat(source).st_size
            if self.own_bytes + size > room:
                self.full = True
                return
            shutil.copyfile(source, target, follow_symlinks=False)
            self.own[rel] = size

    def count(self, gitdir: Path, room: int, stamps: dict[str, int] | None = None) -> None:
        """Count what the store holds alone (the repository deleted it, or it is a copy)
        in the folders whose listing changed since they were last counted; what is
        beyond ``room`` is removed from the store, the newest first."""
        base = lfs_objects(gitdir)
        stamps = folders(base) if stamps is None else stamps
        found: list[tuple[int, str, int]] = []
        for folder in list(self._listed):
            stamp = stamps.get(folder)
            if folder in self._counted and self._counted[folder] == stamp:
                continue
            self._counted[folder] = stamp
            for entry in folder_entries(self.store / folder):
                rel = f"{folder}/{entry.name}"
                with contextlib.suppress(OSError):
                    info = entry.stat(follow_symlinks=False)
                    if info.st_nlink == 1 or not os.path.lexists(base / rel):
                        if rel not in self.own:
                            found.append((info.st_mtime_ns, rel, info.st_size))
                    else:
                        self.own.pop(rel, None)
        for _, rel, size in sorted(found):
            if self.own_bytes + size <= room:
                self.own[rel] = size
                continue
            with contextlib.suppress(OSError):
                os.unlink(self.store / rel)
                self.full = True

    def kept(self) -> list[str]:
        """Every kept file, ``ab/cd/<sha256>``."""
        out: list[str] = []
        for rel in folders(self.store):
            out += [f"{rel}/{e.name}" for e in folder_entries(self.store / rel) if is_name(e.name)]
        return sorted(out)

    def missing(self, gitdir: Path) -> list[str]:
        """Kept LFS objects the repository no longer has (all folders: for a rewind)."""
        base = lfs_objects(gitdir)
        return [rel for rel in self.kept() if not os.path.lexists(base / rel)]

    def removed(self, gitdir: Path) -> list[str]:
        """Kept objects the repository had before the command and lacks now, looked for
        in the folders whose listing changed; what is gone is remembered, so the next
        command is not said to have removed it."""
        base = lfs_objects(gitdir)
        now = folders(base)
        fresh: list[str] = []
        for folder, stamp in self._listed.items():
            if stamp is None or now.get(folder) == stamp:
                continue
            gone = folder_names(self.store / folder) - folder_names(base / folder)
            absent = self._absent.setdefault(folder, set())
            fresh += [f"{folder}/{name}" for name in sorted(gone - absent) if is_name(name)]
            absent |= gone
        return fresh

    def spoilt(self, rels: list[str]) -> list[str]:
        """Of ``rels``, the kept copies that no longer hash to their names (a command
        rewrote the repository's file in place: the kept link is the same file)."""
        return [rel for rel in rels if not hashes_to_name(self.store / rel, rel.rsplit("/", 1)[1])]

    def put_back(self, gitdir: Path, rels: list[str]) -> tuple[int, list[str]]:
        """Put back the kept ``rels`` that still hash to their names (a new file each,
        read-only, never over one that is there): how many, and each left out with why."""
        done, refused = 0, list[str]()
        for rel in rels:
            name = rel.rsplit("/", 1)[1]
            folder = real_folder(gitdir, ["lfs", "objects", *rel.split("/")[:2]])
            if folder is None:
                refused.append(f"lfs/objects/{rel} (its folder is not a folder inside .git)")
                continue
            try:
                if _copy_checked(self.store / rel, folder / name, name):
                    done += 1
                else:
                    refused.append(f"lfs/objects/{rel} (its content does not hash to its name)")
            except FileExistsError:
                continue
            except OSError as exc:
                refused.append(f"lfs/objects/{rel} (not written: {exc.strerror or exc})")
        return done, refused


def _copy_checked(kept: Path, target: Path, name: str) -> bool:
    """Copy ``kept`` to a new file at ``target`` when the bytes copied hash to ``name``
    (only the bytes checked are written: a later change of the kept file cannot reach it)."""
    digest = hashlib.sha256()
    tmp = target.with_name(f"tmp_lfs_{secrets.token_hex(6)}")
    try:
        fd = os.open(kept, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC)
        out_fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, 0o444)
        with os.fdopen(fd, "rb") as src, os.fdopen(out_fd, "wb") as out:
            if not _regular(src.fileno()):
                return False
            while chunk := src.read(CHUNK):
                digest.update(chunk)
                out.write(chunk)
        if digest.hexdigest() != name:
            return False
        os.link(tmp, target)  # never replaces: an object that is there is left as it is
        return True
    finally:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
