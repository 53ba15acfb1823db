"""Index entries a command made say "unchanged" for a file whose content is not
their blob: their stat cleared, so git compares the content again (tester finding A2).

Git trusts an index entry whose recorded stat (mtime, size, ctime, inode) matches the
work-tree file: it does not read the file, and takes it to hold the entry's blob. A
sandboxed command may write the index (``git add`` must work), so one that edited
``app.py``, staged it, then wrote the committed blob's id back into the entry (stat
kept: ``touch -d`` first, so it is not "racily clean") left ``git status``, ``git diff``
and ``git diff HEAD`` clean, and the user's ``git reset --hard``, ``git checkout -- .``
and ``git stash`` did not touch the file: they too believe the stat. The user's next run
of ``app.py`` ran the planted line.

So after a command that changed an index (the trigger :mod:`.gitindextree` uses), each
entry it added or changed (compared with the entries before it; an index it made anew:
every entry) whose stat git would trust is hashed as git hashes a blob; one whose
content is not its blob gets its stat cleared in the index (git then reads the file,
shows it modified and ``reset --hard`` rewrites it), and the result says so unless a
filter or end-of-line conversion explains the difference (asked of git, hardened: an
LFS file's blob is its pointer). What the time bound does not reach is cleared too,
unsaid: a cleared stat costs the user's next ``git status`` one read of the file.
Skip-worktree and assume-unchanged entries are :mod:`.gitflags`' part.
"""

from __future__ import annotations

import hashlib
import os
import stat
import struct
import time
from collections.abc import Mapping
from pathlib import Path

from . import githardened
from .gitflags import work_tree
from .gitindextree import MAX_INDEX, Stamp, hash_size, write_locked
from .runslater import Planted

Entries = Mapping[bytes, bytes]
"""An index's entries: path → the entry's fixed part (stat, mode, object id, flags)."""
HASH_SECONDS = 10.0
"""Time the changed entries of one command's indexes are hashed in, all together."""
MAX_SHOWN = 50
"""Entries named in one result at most (all are cleared)."""

WHY = ("git's index said this file was unchanged, with a blob id that is not its content: git status, "
       "git diff and git reset --hard would have left the file as it is")
CLEARED = "its stat in the index was cleared, so git now compares the content (git status shows it)"

_STAT = 40  # ctime, mtime, dev, ino, mode, uid, gid, size: ten 32-bit numbers


def read(index: Path) -> dict[bytes, bytes] | None:
    """The entries of ``index`` (None: missing, not a regular file, or not readable as an index)."""
    data = _index_bytes(index)
    if data is None:
        return None
    try:
        return {name: data[at:at + size] for name, at, size in _entries(data)}
    except (ValueError, IndexError, struct.error):
        return None


def entries(stamps: Mapping[Path, Stamp | None], known: Mapping[Path, Stamp | None] | None = None,
            read_before: Mapping[Path, Entries | None] | None = None) -> dict[Path, Entries | None]:
    """The entries of each index of ``stamps``, read again only where its stamp is not
    the one ``known`` had (``read_before`` holding what was read then)."""
    known, read_before = known or {}, read_before or {}
    return {index: read_before[index] if index in read_before and known.get(index) == stamp else read(index)
            for index, stamp in stamps.items()}


def repair(index: Path, before: Entries | None, gitdir: Path, deadline: float) -> list[Planted]:
    """After a command changed ``index`` (of ``gitdir``): the entries it added or changed
    whose stat git would trust but whose content is not their blob, cleared and said."""
    data = _index_bytes(index)
    if data is None or b"link" in _extension_names(data):
        return []  # a split index: left, as gitindextree leaves it (and says)
    tree = work_tree(gitdir)
    try:
        listed = _entries(data)
    except (ValueError, IndexError, struct.error):
        return []
    was = before or {}
    clear: list[tuple[bytes, int]] = []
    forged: dict[bytes, bytes] = {}
    for name, at, size in listed:
        fixed = data[at:at + size]
        if was.get(name) == fixed:
            continue
        found = _verdict(tree, name, fixed, deadline)
        if found != "right":
            clear.append((name, at))
            if found == "forged":
                forged[name] = fixed[_STAT:_STAT + _oid_size(fixed)].hex().encode()
    if not clear:
        return []
    problem = _write_cleared(index, data, [at for _, at in clear])
    said = _unexplained(tree, forged)
    undone = CLEARED if not problem else (
        f"clearing its stat FAILED ({problem}): touch the file (git then compares its content) before you "
        "trust git status or git reset here")
    out = [Planted(tree / os.fsdecode(name), WHY, undone=undone) for name in said[:MAX_SHOWN]]
    if len(said) > MAX_SHOWN:
        more = len(said) - MAX_SHOWN
        out.append(Planted(index, WHY, undone=f"and {more:,} more files like these: {undone}"))
    return out


def _verdict(tree: Path, name: bytes, fixed: bytes, deadline: float) -> str:
    """"right": git may trust the entry (the content is its blob; or git would not read
    it: a submodule, a flag :mod:`.gitflags` sees to, nothing there); "stale": its stat
    does not match the file (git reads it anyway, and clearing it keeps a later command
    from making the file match); "forged": the content is another blob; "unchecked":
    time ran out, or the file could not be read as git would."""
    (mtime, size, mode), flags = _fields(fixed)
    kind = mode >> 12
    if kind not in (0o10, 0o12) or flags & 0x8000 or (flags >> 12) & 3:  # a submodule, assume-valid, conflict
        return "right"
    if len(fixed) > _STAT + _oid_size(fixed) + 2 and fixed[-2] & 0x60:  # skip-worktree, intent-to-add
        return "right"
    found = _work_file(tree, name)
    if found is None:
        return "right"
    path, info = found
    if int(info.st_mtime) != mtime or info.st_size & 0xFFFFFFFF != size:
        # git would read this file itself today; but a stat no file here has is one a
        # later command can make the file match (a ctime second ahead, an old mtime, the
        # planted size: finding C9), index untouched then: cleared now, unsaid (it costs
        # git one read of the file)
        return "stale"
    oid = fixed[_STAT:_STAT + _oid_size(fixed)]
    digest = hashlib.sha1() if len(oid) == 20 else hashlib.sha256()
    if kind == 0o12:  # a symlink: its blob is where it points
        if not stat.S_ISLNK(info.st_mode):
            return "right"
        try:
            target = os.readlink(os.fsencode(path))
        except OSError:
            return "unchecked"
        digest.update(b"blob %d\0" % len(target) + target)
        return "right" if digest.digest() == oid else "forged"
    if not stat.S_ISREG(info.st_mode):
        return "right"
    if time.monotonic() > deadline or not _hash_file(path, info.st_size, digest, deadline):
        return "unchecked"
    return "right" if digest.digest() == oid else "forged"


def _work_file(tree: Path, name: bytes) -> tuple[Path, os.stat_result] | None:
    """The work-tree file an entry names and its ``lstat``; None where git would not
    read it either (a name git refuses, a path through a link, nothing there)."""
    rel = os.fsdecode(name)
    if rel.startswith("/") or any(part in ("", ".", "..") for part in rel.split("/")):
        return None
    path = tree / rel
    try:
        real = os.path.join(os.path.realpath(tree), os.path.dirname(rel)).rstrip("/")
        if os.path.realpath(path.parent) != real:
            return None
        return path, os.lstat(path)
    except OSError:
        return None


def _hash_file(path: Path, size: int, digest: hashlib._Hash, deadline: float) -> bool:
    """``digest`` fed the file as git hashes a blob; False: not read whole in time."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    except OSError:
        return False
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return False
        digest.update(b"blob %d\0" % size)
        read = 0
        while chunk := os.read(fd, 1 << 20):
            digest.update(chunk)
            read += len(chunk)
            if time.monotonic() > deadline:
                return False
        return read == size
    except OSError:
        return False
    finally:
        os.close(fd)


def _unexplained(tree: Path, forged: Mapping[bytes, bytes]) -> list[bytes]:
    """The forged-looking entries (path → the entry's object id, hex) no filter or
    end-of-line conversion explains: asked of git, hardened, in two calls whatever their
    number; when it cannot tell, each is said."""
    if not forged:
        return []
    names = list(forged)
    attrs = githardened.run(["check-attr", "-z", "--stdin", "filter"], cwd=tree,
                            stdin=b"\0".join(names) + b"\0", timeout=30)
    filtered: set[bytes] = set()
    if attrs is not None and attrs.returncode == 0:
        parts = attrs.stdout.split(b"\0")
        filtered = {parts[i] for i in range(0, len(parts) - 2, 3)
                    if parts[i + 2] not in (b"unspecified", b"unset")}
    plain = [n for n in names if n not in filtered and b"\n" not in n and _regular(tree / os.fsdecode(n))]
    blobs: list[bytes] = []
    if plain:  # each hashed with its own path's attributes (text, eol), as git add stores it
        hashed = githardened.run(["hash-object", "--stdin-paths"], cwd=tree, stdin=b"\n".join(plain) + b"\n",
                                 timeout=60)
        blobs = hashed.stdout.split() if hashed is not None and hashed.returncode == 0 else []
    converted: set[bytes] = set()
    if len(blobs) == len(plain):
        converted = {n for n, blob in zip(plain, blobs, strict=True) if blob == forged[n]}
    return [n for n in names if n not in filtered and n not in converted]


def _regular(path: Path) -> bool:
    """A regular file, not a link (git hash-object would read where one points)."""
    try:
        return stat.S_ISREG(os.lstat(path).st_mode)
    except OSError:
        return False


def _fields(fixed: bytes) -> tuple[tuple[int, int, int], int]:
    mtime, _, _, _, mode, _, _, size = struct.unpack(">IIIIIIII", fixed[8:_STAT])
    flags = struct.unpack(">H", fixed[_STAT + _oid_size(fixed):_STAT + _oid_size(fixed) + 2])[0]
    return (mtime, size, mode), flags


def _oid_size(fixed: bytes) -> int:
    """20 or 32: the fixed part is 62 or 74 bytes (64 or 76 with the extended flags)."""
    return 20 if len(fixed) in (62, 64) else 32


def _index_bytes(index: Path) -> bytes | None:
    try:
        fd = os.open(index, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    except OSError:
        return None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode) or info.st_size > MAX_INDEX:
            return None
        with os.fdopen(fd, "rb", closefd=False) as fh:
            return fh.read()
    except OSError:
        return None
    finally:
        os.close(fd)


def _entries(data: bytes) -> list[tuple[bytes, int, int]]:
    """Each entry's path, and where its fixed part starts and how long it is. ``ValueError``:
    not an index this reads."""
    if len(data) < 12 or data[:4] != b"DIRC":
        raise ValueError("not an index")
    version, count = struct.unpack(">II", data[4:12])
    if version not in (2, 3, 4):
        raise ValueError("an index version this does not read")
    oid = hash_size(data)
    out: list[tuple[bytes, int, int]] = []
    pos, previous = 12, b""
    for _ in range(count):
        flags_at = pos + _STAT + oid
        flags = struct.unpack(">H", data[flags_at:flags_at + 2])[0]
        size = _STAT + oid + 2 + (2 if version >= 3 and flags & 0x4000 else 0)
        at = pos + size
        if version == 4:  # the name: how much of the one before to drop, then the rest
            strip, at = _varint(data, at)
            end = data.index(b"\0", at)
            if strip > len(previous):
                raise ValueError("a name drops more than the one before it has")
            name = previous[:len(previous) - strip] + data[at:end]
            following = end + 1
        else:
            end = data.index(b"\0", at)
            name = data[at:end]
            following = pos + ((end - pos + 8) & ~7)
        out.append((name, pos, size))
        pos, previous = following, name
    return out


def _varint(data: bytes, at: int) -> tuple[int, int]:
    """Git's offset varint at ``at``: its value and where it ends."""
    byte = data[at]
    value, at = byte & 0x7F, at + 1
    while byte & 0x80:
        byte = data[at]
        value = ((value + 1) << 7) | (byte & 0x7F)
        at += 1
    return value, at


def _extension_names(data: bytes) -> list[bytes]:
    try:
        listed = _entries(data)
        size = hash_size(data)
    except (ValueError, IndexError, struct.error):
        return []
    if not listed:
        pos = 12
    else:
        _, at, fixed = listed[-1]
        version = struct.unpack(">I", data[4:8])[0]
        end = data.index(b"\0", at + fixed)
        pos = end + 1 if version == 4 else at + ((end - at + 8) & ~7)
    names = []
    while pos + 8 <= len(data) - size:
        names.append(data[pos:pos + 4])
        pos += 8 + struct.unpack(">I", data[pos + 4:pos + 8])[0]
    return names


def _write_cleared(index: Path, data: bytes, starts: list[int]) -> str:
    """``index`` written again with the ctime, mtime and size of the entries at ``starts``
    zeroed (git then reads those files); what stopped it ("" when done)."""
    out = bytearray(data)
    for at in starts:
        out[at:at + 16] = bytes(16)  # ctime and mtime, seconds and nanoseconds
        out[at + 36:at + 40] = bytes(4)  # size
    size = hash_size(data)
    if any(data[-size:]):  # (all zeros: index.skipHash, git does not check it)
        out[-size:] = hashlib.new("sha1" if size == 20 else "sha256", bytes(out[:-size])).digest()
    return write_locked(index, bytes(out))


__all__ = ["CLEARED", "WHY", "Entries", "entries", "read", "repair"]
