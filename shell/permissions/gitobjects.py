"""Git's loose object files a sandboxed command overwrote: what the user's own
``git checkout -- f`` or ``git reset --hard`` would then write.

A sandboxed command may write ``.git/objects`` (``git commit``, ``git stash`` must
work), and a loose object file is named after its content's hash but git does not
check that when it reads one. ``chmod u+w .git/objects/eb/3dfa…`` and writing
``blob N\\0<evil Makefile>`` compressed into it (or renaming such a file over it)
makes ``git show HEAD:Makefile`` and every "throw away the agent's changes" write the
evil Makefile, with ``git status`` clean; only ``git fsck`` tells (tester finding K15,
second half). bwrap cannot make the existing files read-only without a bind each
(thousands), and their folders must take new objects, so the files are compared
instead: before a command each loose object's inode, size, mtime and ctime (one
``lstat`` each: about 10,000 in a few tens of milliseconds), after it those that
changed, and new ones, are hashed as git would; one whose content does not match its
name is moved into the quarantine folder, and the right content is written back when
the work tree or the index still has it (a file whose blob hash is the name). If
nothing has it, git now says the object is missing instead of writing the command's
content, and the result says so, with what names it (the index, HEAD's tree). Objects
have no size cap (an honest ``git add`` of a 300 MB file writes one that big: finding
X14 took it for forged and broke HEAD); the hashing after one command has a time bound
instead (a 1 MB file can inflate to 1 GB), and what it did not reach is left in place
and said, but an existing object file the command made another file or size: git never
does that. ``objects/info/alternates`` (other folders git
reads objects from, before its own loose ones) is put back as it was.

New or changed pack files (whose index could lie about what they hold) are
:mod:`.gitpacks`' part; the multi-pack-index and commit-graph :mod:`.gitmaps`'.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import stat
import time
import zlib
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import BinaryIO, Literal

from . import crossmove, gitindexstat, gitindextree, gitlfsobjects, gitmaps, gitpacks, gitshallow, quarantine
from .gitstaged import hardened_git, staged_rows
from .runslater import Planted

Stamp = tuple[int, int, int, int]
"""A loose object file's inode, size, mtime and ctime (ns)."""
MAX_OBJECTS = 200_000
"""Loose object files looked at in one objects folder at most."""
MAX_CHECKED = 2_000
"""New object files hashed after one command at most (changed ones: all)."""
CHECK_SECONDS = 10.0
"""Time the loose objects one command wrote or changed are hashed in, all together. An
object has no size cap (an honest ``git add`` of a 300 MB file writes a 300 MB loose
object, finding X14); a zip bomb (1 GB of zeros is 1 MB on disk) is what this bounds."""
Verdict = Literal["right", "forged", "unverified"]
"""What hashing a loose object file found: its content is its name, is not, or the time
ran out first."""
ALTERNATES = ("info/alternates", "info/http-alternates")

FORGED_WHY = ("a git object file whose content is not what its name says: git would show and check "
              "out this content in place of the committed one (git checkout, git restore, git reset --hard)")
UNCHECKED_WHY = "new git object files the command wrote, more than agent-shell checks after one command"
UNVERIFIED_WHY = ("git object files the command wrote or changed that agent-shell could not hash within "
                  f"{CHECK_SECONDS:g} s after it (large, or many)")
ALTERNATES_WHY = "git's list of other folders it reads objects from (one could hold forged objects)"


@dataclass(frozen=True, slots=True)
class Objects:
    """One objects folder at one moment: loose object name (``ab/cdef…``) → stamp,
    and the alternates files' bytes (None: missing)."""

    loose: Mapping[str, Stamp]
    alternates: Mapping[str, bytes | None]
    complete: bool = True
    packs: Mapping[str, gitpacks.Stamp] = field(default_factory=dict)
    """The files of its pack and commit-graph folders, stamped (new or changed packs are
    checked: :mod:`.gitpacks`; multi-pack-index and commit-graph: :mod:`.gitmaps`)."""
    indexes: Mapping[Path, gitindextree.Stamp | None] = field(default_factory=dict)
    """The indexes beside it (its git directory's and its linked worktrees'), stamped:
    one changed loses its tree cache (:mod:`.gitindextree`)."""
    entries: Mapping[Path, gitindexstat.Entries | None] = field(default_factory=dict)
    """Those indexes' entries: one a command changed whose stat git would trust but whose
    content is not its blob is cleared (:mod:`.gitindexstat`)."""
    shallow: bytes | None = None
    """Its git directory's shallow list (None: none), read again before each command:
    one a command made cut history is put back (:mod:`.gitshallow`)."""
    lfs: Mapping[str, gitlfsobjects.Stamp] = field(default_factory=dict)
    """Its git directory's Git LFS object files, stamped: one a command changed or added
    that is not its sha256 is taken out (:mod:`.gitlfsobjects`)."""


Snapshot = Mapping[Path, Objects]


def objects_dirs(gitdirs: Sequence[Path]) -> list[Path]:
    """Each distinct objects folder the git directories use (a worktree's is its
    common directory's)."""
    out: dict[str, Path] = {}
    for gitdir in gitdirs:
        path = gitdir / "objects"
        if os.path.isdir(path) and not os.path.islink(path):
            out.setdefault(os.path.realpath(path), path)
    return list(out.values())


def _fanout(name: str) -> bool:
    return len(name) == 2 and all(c in "0123456789abcdef" for c in name)


def _loose(objects: Path) -> tuple[dict[str, Stamp], bool]:
    out: dict[str, Stamp] = {}
    try:
        with os.scandir(objects) as it:
            folders = [e for e in it if _fanout(e.name) and e.is_dir(follow_symlinks=False)]
    except OSError:
        return out, True
    for folder in folders:
        try:
            with os.scandir(folder.path) as it:
                for entry in it:
                    if len(out) >= MAX_OBJECTS:
                        return out, False
                    try:
                        st = entry.stat(follow_symlinks=False)
                    except OSError:
                        continue
                    stamp = (st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns)
                    out[f"{folder.name}/{entry.name}"] = stamp
        except OSError:
            continue
    return out, True


def _read_small(path: Path) -> bytes | None:
    try:
        with open(path, "rb") as fh:
            return fh.read(64 * 1024)
    except OSError:
        return None


def read(objects: Path) -> Objects:
    """``objects`` as it is now (no git run)."""
    loose, whole = _loose(objects)
    indexes = gitindextree.indexes(objects.parent)
    return Objects(loose, {name: _read_small(objects / name) for name in ALTERNATES}, whole,
                   gitpacks.stamps(objects, *gitmaps.FOLDERS), indexes, gitindexstat.entries(indexes),
                   gitshallow.read(objects.parent), gitlfsobjects.stamps(objects.parent))


def snapshot(gitdirs: Sequence[Path], seen: Snapshot | None = None) -> dict[Path, Objects]:
    """Each objects folder of ``gitdirs``, before a command: as ``seen`` after the last
    one (one scan per command, not two: what the user's git added since is new to the
    check after this one, hashed and found right), else read now."""
    seen = seen or {}
    out = {objects: seen.get(objects) or read(objects) for objects in objects_dirs(gitdirs)}
    return {objects: _indexes_now(replace(was, shallow=gitshallow.read(objects.parent)), objects.parent)
            for objects, was in out.items()}


def _indexes_now(was: Objects, gitdir: Path) -> Objects:
    """``was`` with the indexes the user's own git changed since read again: what the
    command then changes is its own."""
    indexes = gitindextree.indexes(gitdir)
    if indexes == was.indexes:
        return was
    return replace(was, indexes=indexes, entries=gitindexstat.entries(indexes, was.indexes, was.entries))


def _oid(name: str) -> str | None:
    """The object id a loose file name stands for (``ab/cdef…``: sha-1 or sha-256)."""
    folder, _, rest = name.partition("/")
    oid = folder + rest
    if len(oid) in (40, 64) and all(c in "0123456789abcdef" for c in oid):
        return oid
    return None


def matches(path: Path, oid: str) -> bool:
    """Whether the loose object file at ``path`` holds what ``oid`` names (inflated and
    hashed as git does; not a regular file, unreadable or corrupt: no)."""
    return verdict(path, oid, None) == "right"


def verdict(path: Path, oid: str, deadline: float | None) -> Verdict:
    """Whether the loose object file at ``path`` holds what ``oid`` names, inflated and
    hashed as git does, however large (not a regular file, unreadable or corrupt:
    forged); "unverified" when ``time.monotonic()`` passes ``deadline`` first."""
    digest = _hasher(oid)
    inflate = zlib.decompressobj()
    try:
        with _regular_file(path) as fh:
            if fh is None:
                return "forged"
            while chunk := fh.read(1 << 16):
                data = inflate.decompress(chunk, 1 << 22)
                while True:
                    if deadline is not None and time.monotonic() > deadline:
                        return "unverified"
                    digest.update(data)
                    if not inflate.unconsumed_tail:
                        break
                    data = inflate.decompress(inflate.unconsumed_tail, 1 << 22)
            digest.update(inflate.flush())
    except (OSError, zlib.error):
        return "forged"
    return "right" if inflate.eof and digest.hexdigest() == oid else "forged"


def _hasher(oid: str) -> hashlib._Hash:
    """The hash git names ``oid`` with: sha-1 for 40 hex digits, sha-256 for 64."""
    return hashlib.sha1() if len(oid) == 40 else hashlib.sha256()


@contextmanager
def _regular_file(path: Path) -> Iterator[BinaryIO | None]:
    """``path`` open for reading if it is a regular file, else None. The check reads
    what a command wrote, so it never follows a link the command left there and never
    blocks on a FIFO named like an object (both would turn the check against itself)."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    except OSError:
        yield None
        return
    try:
        if not _regular(fd):
            yield None
            return
        with os.fdopen(fd, "rb", closefd=False) as fh:
            yield fh
    finally:
        os.close(fd)


def _regular(fd: int) -> bool:
    try:
        return stat.S_ISREG(os.fstat(fd).st_mode)
    except OSError:
        return False


def _worktree(objects: Path) -> Path | None:
    """The work tree of a plain ``.git`` folder (where the right content may still be)."""
    gitdir = objects.parent
    return gitdir.parent if gitdir.name == ".git" else None


def _write_object(path: Path, kind: bytes, content: bytes) -> None:
    data = zlib.compress(kind + b" " + str(len(content)).encode() + b"\0" + content)
    tmp = path.with_name(f".agent-shell-{path.name}")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o444)
    try:
        with os.fdopen(fd, "wb", closefd=False) as fh:
            fh.write(data)
    finally:
        os.close(fd)
    os.replace(tmp, path)


def _recover(objects: Path, name: str, oid: str) -> str:
    """Put the right content of ``oid`` back from the work tree (a tracked file whose
    blob hash is ``oid``) or find it in a pack; what was done, or empty: nothing has it."""
    repo = _worktree(objects)
    if repo is None:
        return ""
    if hardened_git(repo, ["cat-file", "-e", oid]) is not None:
        return "git still has the right content in a pack"
    listed = hardened_git(repo, ["ls-files", "--stage", "-z"]) or b""
    for entry in listed.split(b"\0"):
        meta, _, file = entry.partition(b"\t")
        fields = meta.split()
        if len(fields) != 3 or fields[1] != oid.encode() or fields[0] not in (b"100644", b"100755"):
            continue
        path = repo / os.fsdecode(file)
        content = _read_regular(path)
        if content is None:
            continue
        digest = _hasher(oid)
        digest.update(b"blob " + str(len(content)).encode() + b"\0" + content)
        if digest.hexdigest() == oid:
            try:
                _write_object(objects / name, b"blob", content)
            except OSError:
                return ""
            return f"the right content was written back from {os.fsdecode(file)}"
    return ""


def _read_regular(path: Path, limit: int = 64 * 1024 * 1024) -> bytes | None:
    """A work tree file's content, up to ``limit`` bytes (larger: None, not a blob to
    write back)."""
    try:
        with _regular_file(path) as fh:
            if fh is None:
                return None
            data = fh.read(limit + 1)
    except OSError:
        return None
    return data if len(data) <= limit else None


def _quarantine(path: Path, folder: Path, name: str) -> Path:
    target = folder / "git-objects" / name.replace("/", "")
    target.parent.mkdir(parents=True, exist_ok=True)
    crossmove.move(path, target)  # a rename, or a copy and a delete across file systems
    return target


INDEX_WHY = ("git's index, changed by this command: its cache of folder trees, which a commit writes as it "
             "is, could not be taken out")
LINKED_WHY = ("a link inside git's objects folder: git would read objects from where it points (unchecked) "
              "and its gc would delete or rewrite what is there, outside this repository")


def _links(objects: Path) -> list[Path]:
    """Links in ``objects``, ``objects/pack``, ``objects/info`` and the chains' folders
    there (tester findings Z2, Z3, Z11): a fan-out folder ``76 -> ../../build/o``
    planted content under a committed id past every check (git does not hash a loose
    object it reads, and the scan does not follow links), and a fan-out folder linked
    to another repository's let the user's next ``git gc`` here delete its objects.
    Git itself never makes a link there. A link to a file inside a fan-out folder is a
    forged object already (:func:`verdict`)."""
    found: list[Path] = []
    for place in (objects, objects / "pack", objects / "info", objects / "info" / "commit-graphs",
                  objects / "pack" / "multi-pack-index.d"):  # (a graph linked into the workspace: Z11)
        try:
            with os.scandir(place) as entries:
                found += [Path(e.path) for e in entries if e.is_symlink()]
        except OSError:
            continue
    return found


def _links_out(linked: list[Path]) -> list[Planted]:
    """Each link removed (the link, not what it points to: its target is said)."""
    out: list[Planted] = []
    for path in linked:
        try:
            target = os.readlink(path)
            os.unlink(path)
        except OSError as exc:
            out.append(Planted(path, LINKED_WHY, error=f"it could not be removed ({exc.strerror or exc}): "
                                                       "remove it before you use git here"))
            continue
        chain = path.parent / "commit-graph-chain"
        dropped = ""
        if path.parent.name == "commit-graphs" and chain.is_file() and not chain.is_symlink():
            with contextlib.suppress(OSError):  # it names the graph gone: git warned at every command
                chain.unlink()
                dropped = "; the commit-graph chain naming it was removed too (a cache git writes again)"
        out.append(Planted(path, LINKED_WHY, undone=f"the link (to {target!r}) was removed; nothing where it "
                                                    f"points was read or changed{dropped}"))
    return out


def _put_back_alternates(objects: Path, was: Objects) -> list[Planted]:
    out: list[Planted] = []
    for name in ALTERNATES:
        path = objects / name
        old, new = was.alternates.get(name), _read_small(path)
        if old == new:
            continue
        try:
            if os.path.isdir(path) and not os.path.islink(path):
                raise OSError(f"{name} is now a folder")
            if os.path.lexists(path):
                os.unlink(path)
            if old is not None:
                with open(path, "xb") as fh:
                    fh.write(old)
            done = "removed" if old is None else "set back as it was"
        except OSError as exc:
            done = f"putting it back FAILED ({exc}): check it before you use git here"
        shown = (new or b"")[:200].decode("utf-8", "replace")
        out.append(Planted(path, ALTERNATES_WHY, undone=f"{done} (the command wrote {shown!r})"))
    return out


def check(before: Snapshot, folder: Path | None = None,
          seconds: float = CHECK_SECONDS) -> tuple[list[Planted], dict[Path, Objects]]:
    """After a command: each loose object file of ``before``'s objects folders that it
    changed or added and whose content is not what its name says, moved into
    ``folder`` (default: a new quarantine folder) and put right where possible; the
    alternates files put back as they were. Also the folders as they are now, for
    the next command's :func:`snapshot` (what was put right left out: new to it).
    Hashing stops after ``seconds`` in all: what it did not reach is left and said."""
    out: list[Planted] = []
    seen: dict[Path, Objects] = {}
    budget = MAX_CHECKED
    deadline = time.monotonic() + seconds
    for objects, was in before.items():
        out += _links_out(_links(objects))  # first: nothing below reads through one
        out += _put_back_alternates(objects, was)
        out += gitshallow.check(objects.parent, was.shallow)
        now, whole = _loose(objects)
        packs = gitpacks.stamps(objects, *gitmaps.FOLDERS)
        if packs != was.packs:
            folder = folder or quarantine.new_folder()
            touched = gitpacks.touched(was.packs, packs)
            out += gitpacks.check(objects, was.packs, packs, folder)
            out += gitmaps.check(objects, was.packs, packs, folder, packs_changed=bool(touched))
            packs = gitpacks.stamps(objects, *gitmaps.FOLDERS)  # what was put right is the next one's start
        lfs = gitlfsobjects.stamps(objects.parent)
        if lfs != was.lfs:
            folder = folder or quarantine.new_folder()
            out += gitlfsobjects.check(objects.parent, was.lfs, lfs, folder, deadline)
            lfs = gitlfsobjects.stamps(objects.parent)  # what was taken out is the next one's start
        changed_indexes = [i for i, st in gitindextree.indexes(objects.parent).items()
                           if st is not None and st != was.indexes.get(i)]
        for index, problem in gitindextree.drop_changed(dict(was.indexes), objects.parent):
            out.append(Planted(index, INDEX_WHY, error=f"{problem}; before you commit here: git read-tree "
                                                       "HEAD (and stage again what you had staged)"))
        index_deadline = time.monotonic() + gitindexstat.HASH_SECONDS
        for index in changed_indexes:
            out += gitindexstat.repair(index, was.entries.get(index), index.parent, index_deadline)
        indexes = gitindextree.indexes(objects.parent)
        seen[objects] = Objects(now, {name: _read_small(objects / name) for name in ALTERNATES}, whole, packs,
                                indexes, gitindexstat.entries(indexes, was.indexes, was.entries),
                                gitshallow.read(objects.parent), lfs)
        changed = [n for n, stamp in now.items() if n in was.loose and was.loose[n] != stamp]
        new = [n for n in now if n not in was.loose and _oid(n)]
        unchecked = len(new) - max(budget, 0)
        new = new[:max(budget, 0)]
        budget -= len(new)
        if unchecked > 0:
            out.append(Planted(objects, UNCHECKED_WHY, undone=(
                f"{unchecked:,} of them were not checked (one command's are hashed up to "
                f"{MAX_CHECKED:,}): "
                "git fsck names any whose content is not its name; run it before you check out, restore "
                "or push here")))
        left: list[str] = []
        for name in changed + new:  # changed first: an existing name rewritten is what git would check out
            oid = _oid(name)
            if oid is None:
                continue  # git's own temporary files (tmp_obj_…) are not objects
            old, stamp = was.loose.get(name), now.get(name)
            found = verdict(objects / name, oid, deadline)
            if found == "right" or (found == "unverified" and not _rewritten(old, stamp)):
                if found == "unverified":
                    left.append(name)
                continue
            now.pop(name, None)
            folder = folder or quarantine.new_folder()
            out.append(_moved_out(objects, name, oid, old is not None, found, folder))
        if left:
            out.append(_unverified(objects, left))
    return out, seen


def _rewritten(old: Stamp | None, now: Stamp | None) -> bool:
    """Whether an object file that existed before the command is now another file or
    another size: git never rewrites one it has (writing it again only touches its
    time), so one not verified in time is taken out rather than left."""
    return old is not None and (now is None or old[:2] != now[:2])


def _moved_out(objects: Path, name: str, oid: str, existed: bool, found: Verdict, folder: Path) -> Planted:
    """A loose object file found forged (or rewritten and not verified in time) moved
    into ``folder``, the right content put back where the work tree or a pack has it."""
    path = objects / name
    why = FORGED_WHY if found == "forged" else (
        "a git object file the command rewrote (git never rewrites one it has) that agent-shell could not "
        f"hash within {CHECK_SECONDS:g} s: it may not hold what its name says")
    try:
        stored = _quarantine(path, folder, name)
    except OSError as exc:
        return Planted(path, why, undone=f"moving it out FAILED ({exc.strerror or exc}): "
                       f"delete it before you use git here (git fsck names it)")
    fixed = _recover(objects, name, oid)
    if not fixed:
        named = _named_by(objects, oid)
        if not existed and not named:
            fixed = "git's index and HEAD's tree do not name it"
        else:
            fixed = (f"nothing here has the right content{named}: git now says object {oid[:12]} is missing "
                     "instead of writing the command's; git fetch from a remote that has it puts it back")
    return Planted(path, why, undone=f"{'changed' if existed else 'new'}; moved to {stored}; {fixed}")


def _named_by(objects: Path, oid: str) -> str:
    """Where git's index or HEAD's tree names ``oid`` (" (the index names it as F)"), or
    empty: neither does (a forged object nothing refers to yet). Not every commit is
    looked at: those two are what a checkout, restore or commit would use."""
    repo = _worktree(objects)
    where = repo if repo is not None else objects.parent
    wanted = oid.encode()
    if repo is not None:
        for _, blob, file in staged_rows(hardened_git(repo, ["ls-files", "--stage", "-z"]) or b""):
            if blob == wanted:
                return f" (git's index names it as {os.fsdecode(file)})"
    listed = hardened_git(where, ["ls-tree", "-r", "-t", "-z", "--full-tree", "HEAD"]) or b""
    for entry in listed.split(b"\0"):
        meta, _, file = entry.partition(b"\t")
        if wanted in meta.split():
            return f" (HEAD's tree names it as {os.fsdecode(file)})"
    commit = hardened_git(where, ["rev-parse", "-q", "--verify", "HEAD"]) or b""
    return " (HEAD names it)" if commit.strip() == wanted else ""


def _unverified(objects: Path, names: Sequence[str]) -> Planted:
    """The object files the time ran out on, left in place (most are an honest ``git
    add`` of large files; a forged one is what git fsck finds)."""
    shown = ", ".join(n.replace("/", "")[:12] for n in names[:3]) + (
        f" and {len(names) - 3:,} more" if len(names) > 3 else "")
    return Planted(objects, UNVERIFIED_WHY, undone=(
        f"left in place, not checked: {len(names):,} ({shown}); `git fsck` names any whose content is not "
        "its name: run it before you check out, restore or push here"))


__all__ = ["ALTERNATES_WHY", "FORGED_WHY", "UNCHECKED_WHY", "UNVERIFIED_WHY", "Objects", "Snapshot",
           "Verdict", "check", "matches", "objects_dirs", "read", "snapshot", "verdict"]
