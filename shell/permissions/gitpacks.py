"""Pack files a sandboxed command added or changed in a repository, checked against
what they say they hold.

A pack's ``.idx`` maps object ids to places in its ``.pack``, and git trusts it when
it reads: it looks in packs before loose objects, so a pack pair whose index names
the committed Makefile's id at the place of an evil blob makes the user's ``git
checkout -- Makefile`` write the evil one, as an overwritten loose object does
(:mod:`.gitobjects`). That pair may be new, or an existing pack and index rewritten
in place (same names, same inodes: tester finding X8). So every file of
``objects/pack`` is stamped (inode, size, mtime, ctime: one ``lstat`` each, a repository
has a few packs), and a pack whose ``.pack`` or ``.idx`` is new or changed is checked
with ``git index-pack --verify`` (what ``git verify-pack`` runs: it reads the pack,
hashes every object and compares with the index). git itself never rewrites a pack,
but it does touch one's times when it writes an object the pack already holds
("freshening", an honest ``git add`` of content seen before): when only the ``.pack``
changed and its bytes still hash to the checksum its unchanged index records, it is
the pack that index was written for, and that one read (no inflating: about a tenth
of the full check's time) is all it costs. A quiet command costs the ``lstat``\\s only.
git runs outside the sandbox, hardened (:mod:`.githardened`).

A new pack that fails is moved into the quarantine folder with its companions
(``.idx``, ``.rev``, ``.keep``, ``.bitmap``, ``.mtimes``). An existing one that fails
first gets its index rebuilt from its content (``git index-pack``, outside the
repository: an index that lied about an honest pack loses nothing); when its content
does not read as a pack either, it is moved out whole, the objects git can still read
from it are written back loose (``git unpack-objects`` names each by its hash), and
the result says which of the ids its index listed git now misses. One too big to check in time is said.

``.rev``, ``.bitmap`` and ``.mtimes`` map positions, reachability and ages, not ids to
content: a forged one can make a push or a repack fail, not make git show other
content. The multi-pack-index and the commit-graph do map ids: :mod:`.gitmaps`.
"""

from __future__ import annotations

import hashlib
import os
import stat
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import BinaryIO

from . import crossmove, githardened
from .runslater import Planted

Stamp = tuple[int, int, int, int]
"""A file's inode, size, mtime and ctime (ns)."""
MAX_PACK = 256 * 1024 * 1024
"""A new or changed pack larger than this is not checked (said instead): git gc's pack of a big repository."""
TIMEOUT = 30.0
COMPANIONS = (".pack", ".idx", ".rev", ".keep", ".bitmap", ".mtimes", ".promisor")
DERIVED = (".rev", ".bitmap")
"""Files git derives from an index's order: moved out with an index that is rebuilt."""

FORGED_WHY = ("a new git pack whose index does not match its content: git would show and check out "
              "other content in place of the committed one (git checkout, git restore, git reset --hard)")
CHANGED_WHY = ("a git pack the command rewrote in place (git never does) whose index does not match its "
               "content: git would show and check out other content in place of the committed one")
UNCHECKED_WHY = "a new or changed git pack that could not be checked (too big, too slow, or git missing)"


def stamps(objects: Path, *folders: str) -> dict[str, Stamp]:
    """Each file in ``objects``' ``folders`` (default ``pack``), by name relative to
    ``objects`` (``pack/pack-<id>.idx``); no git run, links not followed."""
    out: dict[str, Stamp] = {}
    for folder in folders or ("pack",):
        try:
            with os.scandir(objects / folder) as it:
                for entry in it:
                    try:
                        st = entry.stat(follow_symlinks=False)
                    except OSError:
                        continue
                    out[f"{folder}/{entry.name}"] = (st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns)
        except OSError:
            continue
    return out


def _verify(pack: Path) -> bool | None:
    """Whether git finds ``pack`` and its index agree (None: it could not tell)."""
    done = githardened.run(["index-pack", "--verify", str(pack)], cwd=pack.parent, timeout=TIMEOUT)
    if done is None:
        return None
    return done.returncode == 0


def touched(was: Mapping[str, Stamp], now: Mapping[str, Stamp]) -> list[str]:
    """The packs (``pack/pack-<id>``) whose ``.pack`` or ``.idx`` is new or changed."""
    out: list[str] = []
    for name in sorted(now):
        if not name.endswith(".idx"):
            continue
        base = name[: -len(".idx")]
        if any(was.get(base + ext) != now.get(base + ext) for ext in (".idx", ".pack")):
            out.append(base)
    return out


def check(objects: Path, was: Mapping[str, Stamp], now: Mapping[str, Stamp], folder: Path) -> list[Planted]:
    """Each new or changed pack in ``objects`` that does not match its index: a new
    one moved into ``folder``/git-packs, a changed one's index rebuilt (or, when that
    fails, the pack moved out too); one too big to check, said."""
    out: list[Planted] = []
    for base_name in touched(was, now):
        base = objects / base_name
        pack = base.with_name(base.name + ".pack")
        new = base_name + ".idx" not in was and base_name + ".pack" not in was
        try:
            size = os.lstat(pack).st_size
        except OSError:
            continue  # an index without its pack: git ignores it
        idx = base.name + ".idx"
        if size > MAX_PACK:
            said = f"kept ({size // (1024 * 1024)} MB): git verify-pack {idx} checks it"
            out.append(Planted(pack, UNCHECKED_WHY, undone=said))
            continue
        if not new and was.get(base_name + ".idx") == now.get(base_name + ".idx") and _hashes_as_indexed(
                pack, base.with_name(base.name + ".idx")):
            continue  # the pack's times touched (git's freshening), its bytes the ones its index was made for
        verified = _verify(pack)
        if verified is None:
            out.append(Planted(pack, UNCHECKED_WHY, undone=f"kept: git verify-pack {idx} checks it"))
            continue
        if verified:
            continue
        target = folder / "git-packs"
        if not new:
            rebuilt = _reindex(base, target)
            if rebuilt:
                out.append(Planted(pack, CHANGED_WHY, undone=rebuilt))
                continue
        moved, failed = _move_out(base, target, COMPANIONS)
        why = FORGED_WHY if new else CHANGED_WHY
        if failed:
            said = f"moving it out FAILED ({failed}): delete {base.name}.* before using git here"
        elif new:
            said = f"moved to {target} ({', '.join(moved)})"
        else:
            said = (f"its content does not read as a pack either: moved to {target} ({', '.join(moved)}); "
                    + _salvage(objects, target / pack.name))
        out.append(Planted(pack, why, undone=said))
    return out


def _hashes_as_indexed(pack: Path, idx: Path) -> bool:
    """Whether ``pack``'s bytes hash to the checksum its index was written for (the
    index's second-to-last hash, the pack's own trailer): then the pack is byte for
    byte the one the index describes, and an index that did not change since it was
    trusted still tells the truth. One read of the pack, no inflating: what an honest
    freshening costs, where ``git index-pack --verify`` costs many times more."""
    try:
        with _regular_file(idx) as fh:
            tail = _tail(fh, 64)
        with _regular_file(pack) as fh:
            size = os.fstat(fh.fileno()).st_size
            for length, algo in ((20, "sha1"), (32, "sha256")):
                if len(tail) < 2 * length or size < 12 + length:
                    continue
                recorded = tail[-2 * length: -length]
                fh.seek(size - length)
                if fh.read(length) != recorded:
                    continue
                digest = hashlib.new(algo)
                fh.seek(0)
                left = size - length
                while left > 0 and (chunk := fh.read(min(left, 1 << 20))):
                    digest.update(chunk)
                    left -= len(chunk)
                return left == 0 and digest.digest() == recorded
    except OSError:
        return False
    return False


def _tail(fh: BinaryIO, length: int) -> bytes:
    size = os.fstat(fh.fileno()).st_size
    fh.seek(max(size - length, 0))
    return fh.read(length)


@contextmanager
def _regular_file(path: Path) -> Iterator[BinaryIO]:
    """``path`` open for reading; OSError when it is not a regular file (a link or a
    FIFO a command left there is not followed or waited on)."""
    fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise OSError(f"{path.name} is not a regular file")
        with os.fdopen(fd, "rb", closefd=False) as fh:
            yield fh
    finally:
        os.close(fd)


def _move_out(base: Path, target: Path, exts: tuple[str, ...]) -> tuple[list[str], str]:
    """``base`` + each of ``exts`` that exists, moved into ``target``; what moved and
    why moving failed ("" when it did not)."""
    moved: list[str] = []
    try:
        target.mkdir(parents=True, exist_ok=True)
        for ext in exts:
            part = base.with_name(base.name + ext)
            if os.path.lexists(part):
                crossmove.move(part, target / part.name)  # across file systems too
                moved.append(ext)
    except OSError as exc:
        return moved, str(exc.strerror or exc)
    return moved, ""


def _reindex(base: Path, target: Path) -> str:
    """``base``.idx rebuilt from ``base``.pack by ``git index-pack`` run outside the
    repository (inside it, git would compare each object with the forged index's
    claims); the forged index and what derives from it moved into ``target``. What was
    done, or empty: the pack does not read as one (nothing moved then)."""
    pack, idx = base.with_name(base.name + ".pack"), base.with_name(base.name + ".idx")
    try:
        target.mkdir(parents=True, exist_ok=True)
    except OSError:
        return ""
    built = target / f"rebuilt-{base.name}.idx"
    done = githardened.run(["index-pack", "-o", str(built), str(pack)], cwd=target, timeout=TIMEOUT,
                           env={"GIT_CEILING_DIRECTORIES": str(target.parent)})
    if done is None or done.returncode != 0 or not built.is_file():
        _unlink(built)
        return ""
    moved, failed = _move_out(base, target, (".idx", *DERIVED))
    if failed:
        _unlink(built)
        return f"moving its index out FAILED ({failed}): delete {base.name}.* before using git here"
    try:
        crossmove.move(built, idx)
    except OSError as exc:
        return (f"its index moved to {target} but the rebuilt one could not be put in place "
                f"({exc.strerror or exc}): git now misses the objects of {pack.name}")
    return (f"its index ({', '.join(moved)}) moved to {target} and rebuilt from the pack's content "
            "(git index-pack): each id now names the content that hashes to it")


def _salvage(objects: Path, stored: Path) -> str:
    """The objects git can read from the moved-out pack ``stored``, written back loose by
    ``git unpack-objects``, which names each by the hash of its content (so none can
    come back under another's id); what was done, and which of the ids its index
    listed git now misses."""
    fetch = "git fetch from a remote that has them puts them back; git fsck names them"
    before = _loose_count(objects)
    try:
        with open(stored, "rb") as fh:
            data = fh.read(MAX_PACK + 1)
    except OSError:
        data = b""
    if data:
        githardened.run(["unpack-objects", "-q"], cwd=objects.parent, stdin=data, timeout=TIMEOUT)
    # it stops at the first thing that does not read (and fails on the trailer): what it wrote stays
    unpacked = _loose_count(objects) - before
    done = f"{max(unpacked, 0):,} objects it held were written back loose, each named by its content's hash"
    listed = _listed_ids(stored.with_name(stored.name[: -len(".pack")] + ".idx"))
    gone = _missing(objects, listed)
    if gone is None:
        return f"{done}; some may be missing now: {fetch}"
    if not gone:
        return f"{done}; all {len(listed):,} objects its index listed are here again"
    shown = ", ".join(oid[:12] for oid in gone[:3]) + (" …" if len(gone) > 3 else "")
    return (f"{done}; {len(gone):,} of the {len(listed):,} objects its index listed are missing now "
            f"({shown}): {fetch}")


def _listed_ids(idx: Path) -> list[str]:
    """The object ids a version-2 pack index lists (empty: not one)."""
    try:
        with _regular_file(idx) as fh:
            data = fh.read(MAX_PACK)
    except OSError:
        return []
    if len(data) < 8 + 1024 or data[:8] != b"\xfftOc\x00\x00\x00\x02":
        return []
    count = int.from_bytes(data[8 + 255 * 4: 8 + 1024], "big")
    width = 20 if len(data) - 1032 - 40 < count * 40 else 32  # sha-1, or sha-256 (its entries are longer)
    ids = data[1032: 1032 + count * width]
    return [ids[i: i + width].hex() for i in range(0, len(ids), width)] if len(ids) == count * width else []


def _missing(objects: Path, ids: list[str]) -> list[str] | None:
    """Those of ``ids`` git does not have now (None: it could not tell)."""
    if not ids:
        return None
    done = githardened.run(["cat-file", "--batch-check"], cwd=objects.parent,
                           stdin="".join(f"{oid}\n" for oid in ids).encode(), timeout=TIMEOUT)
    if done is None or done.returncode != 0:
        return None
    return [line.split()[0] for line in done.stdout.decode(errors="replace").splitlines()
            if line.endswith(" missing")]


def _loose_count(objects: Path) -> int:
    total = 0
    try:
        with os.scandir(objects) as it:
            for entry in it:
                if len(entry.name) == 2 and entry.is_dir(follow_symlinks=False):
                    total += len(os.listdir(entry.path))
    except OSError:
        pass
    return total


def _unlink(path: Path) -> None:
    try:
        os.unlink(path)
    except OSError:
        pass


__all__ = ["CHANGED_WHY", "FORGED_WHY", "UNCHECKED_WHY", "Stamp", "check", "stamps", "touched"]
