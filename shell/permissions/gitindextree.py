"""The index's tree cache dropped after a command changed the index (finding Z8).

Why: git's index may carry a cache of the tree ids of its folders (the ``TREE``
extension), and ``git commit`` writes those ids as they are instead of hashing the
folders again. A sandboxed command may write ``.git/index`` (``git add`` must work):
one that put an evil tree's id there for ``src/``, entries and work tree untouched,
made the user's next ``git add main.py && git commit`` commit code nobody saw, with
``git status`` clean before and after, and a push shipped it. The cache is only a
cache: without it git hashes the folders at the next commit, as after ``git add -A``.
So after any command that changed the index it is taken out (the rest of the index
kept byte for byte); a split index (``link``), which keeps part of itself elsewhere,
is left and said.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import struct
from pathlib import Path

Stamp = tuple[int, int, int, int, bool]
"""The index file's inode, size, mtime and ctime (ns), and whether git's lock beside it
is there."""
MAX_INDEX = 1 << 30
"""Bytes of index read at most (a repository of millions of files has ~100 MB)."""


def stamp(index: Path) -> Stamp | None:
    """The index's stamp; its ctime is the latest of the index's and of the split
    index's shared files beside it (``sharedindex.<id>``): a command that forged an
    entry there, ``index`` untouched, changed the index all the same (finding C2)."""
    try:
        st = os.lstat(index)
    except OSError:
        return None
    return st.st_ino, st.st_size, st.st_mtime_ns, max(st.st_ctime_ns, _shared_ctime(index.parent)), \
        os.path.lexists(_lock(index))


def _shared_ctime(gitdir: Path) -> int:
    """The latest ctime of a split index's shared files in ``gitdir`` (0: none)."""
    latest = 0
    try:
        with os.scandir(gitdir) as entries:
            for entry in entries:
                if entry.name.startswith("sharedindex."):
                    with contextlib.suppress(OSError):
                        latest = max(latest, entry.stat(follow_symlinks=False).st_ctime_ns)
    except OSError:
        pass
    return latest


def indexes(gitdir: Path) -> dict[Path, Stamp | None]:
    """The index of the repository whose git directory is ``gitdir`` and each of its
    linked worktrees' (``worktrees/NAME/index``: finding Z13), stamped."""
    found = {gitdir / "index": stamp(gitdir / "index")}
    try:
        with os.scandir(gitdir / "worktrees") as entries:
            for entry in entries:
                if entry.is_dir(follow_symlinks=False):
                    found[Path(entry.path) / "index"] = stamp(Path(entry.path) / "index")
    except OSError:
        pass
    return found


def drop_changed(before: dict[Path, Stamp | None], gitdir: Path) -> list[tuple[Path, str]]:
    """After a command: the tree cache taken out of each index of ``gitdir`` it changed;
    what stopped it, by index (finding Z8)."""
    out = []
    for index, now in indexes(gitdir).items():
        was = before.get(index)
        if now is not None and now != was and (problem := drop_tree_cache(index)):
            out.append((index, problem))
    return out


def _lock(index: Path) -> Path:
    return index.with_name(index.name + ".lock")


def drop_tree_cache(index: Path) -> str:
    """Take the tree cache out of ``index``; what stopped it ("" when done or when there
    was none). Git's lock is taken as git takes it, so a git running now is not raced.
    A lock there is never taken away, even one that came during the command: the user's
    own git in another terminal holds it while their editor is open (finding S21), so
    a lock the command left keeps the cache, and the result says how to drop it
    (finding Z12). A split index is made one file first, by git (hardened: no hook or
    filter runs)."""
    try:
        data = index.read_bytes() if index.is_file() and not index.is_symlink() else b""
    except OSError:
        data = b""
    if data and _split_index(data) and not _unsplit(index):
        return "a split index (part of it kept in another file) git could not make one file again"
    try:
        if os.path.islink(index) or not index.is_file() or index.stat().st_size > MAX_INDEX:
            return "not a regular file of a size agent-shell reads"
        data = index.read_bytes()
    except OSError as exc:
        return f"unreadable ({exc.strerror or exc})"
    try:
        kept = _without_tree(data)
    except ValueError as exc:
        return str(exc)
    if kept is None:
        return ""
    return write_locked(index, kept)


def write_locked(index: Path, data: bytes) -> str:
    """``index`` replaced by ``data`` through git's lock, as git writes it; what stopped
    it ("" when done). A lock already there is never taken (see :func:`drop_tree_cache`)."""
    lock = _lock(index)
    try:
        fd = os.open(lock, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o644)
    except FileExistsError:
        return "git's index.lock is there (a git may be running): left as it is"
    except OSError as exc:
        return f"its lock could not be made ({exc.strerror or exc})"
    try:
        with os.fdopen(fd, "wb") as out:
            out.write(data)
            out.flush()
            os.fsync(out.fileno())
        os.chmod(lock, os.stat(index).st_mode & 0o777)
        os.replace(lock, index)
    except OSError as exc:
        with contextlib.suppress(OSError):
            os.unlink(lock)
        return f"it could not be written ({exc.strerror or exc})"
    return ""


def _without_tree(data: bytes) -> bytes | None:
    """``data`` (an index) without its ``TREE`` extension, trailer made again; None when
    it has none. ``ValueError`` when it cannot be read as an index."""
    if len(data) < 12 or data[:4] != b"DIRC":
        raise ValueError("not an index git wrote")
    version, count = struct.unpack(">II", data[4:12])
    if version not in (2, 3, 4):
        raise ValueError(f"index version {version}, which agent-shell does not read")
    size = hash_size(data)
    pos = _entries_end(data, version, count, size)
    extensions: list[tuple[bytes, bytes]] = []
    while pos < len(data) - size:
        if pos + 8 > len(data) - size:
            raise ValueError("its extensions end early")
        sig, length = data[pos:pos + 4], struct.unpack(">I", data[pos + 4:pos + 8])[0]
        extensions.append((sig, data[pos:pos + 8 + length]))
        pos += 8 + length
    if pos != len(data) - size:
        raise ValueError("its extensions run past its end")
    if b"link" in (sig for sig, _ in extensions):
        raise ValueError("a split index (part of it is kept in another file) is left as it is")
    if b"TREE" not in (sig for sig, _ in extensions):
        return None
    body = data[:_entries_end(data, version, count, size)] + b"".join(
        raw for sig, raw in extensions if sig != b"TREE")
    trailer = data[-size:]
    if any(trailer):  # (all zeros: index.skipHash, git does not check it)
        trailer = hashlib.new("sha1" if size == 20 else "sha256", body).digest()
    return body + trailer


def hash_size(data: bytes) -> int:
    """20 (sha-1) or 32 (sha-256): the one whose trailer checks out (or is all zeros)."""
    for size, name in ((20, "sha1"), (32, "sha256")):
        trailer = data[-size:]
        if hashlib.new(name, data[:-size]).digest() == trailer:
            return size
    if not any(data[-20:]):  # index.skipHash: taken as sha-1 (a sha-256 one then fails to parse: left)
        return 20
    raise ValueError("its checksum does not match (git would refuse it too)")


def _entries_end(data: bytes, version: int, count: int, size: int) -> int:
    """Where the entries end (and the extensions start)."""
    pos = 12
    for _ in range(count):
        flags_at = pos + 40 + size
        if flags_at + 2 > len(data):
            raise ValueError("its entries end early")
        flags = struct.unpack(">H", data[flags_at:flags_at + 2])[0]
        name_at = flags_at + 2 + (2 if version >= 3 and flags & 0x4000 else 0)
        if version == 4:
            while name_at < len(data) and data[name_at] & 0x80:  # the prefix length, a varint
                name_at += 1
            name_at += 1
        end = data.find(b"\0", name_at)
        if end < 0:
            raise ValueError("an entry's name does not end")
        pos = end + 1 if version == 4 else pos + ((end - pos + 8) & ~7)
    return pos


def _split_index(data: bytes) -> bool:
    try:
        version, count = struct.unpack(">II", data[4:12])
        size = hash_size(data)
        pos = _entries_end(data, version, count, size)
    except (ValueError, struct.error):
        return False
    while pos + 8 <= len(data) - size:
        if data[pos:pos + 4] == b"link":
            return True
        pos += 8 + struct.unpack(">I", data[pos + 4:pos + 8])[0]
    return False


def _unsplit(index: Path) -> bool:
    """``git update-index --no-split-index`` for ``index`` (its git dir is its folder)."""
    from . import githardened

    done = githardened.run(["update-index", "--no-split-index"], cwd=index.parent,
                           env={"GIT_DIR": str(index.parent), "GIT_INDEX_FILE": str(index)}, timeout=30)
    return done is not None and done.returncode == 0
