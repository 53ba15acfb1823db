"""Git refs a sandboxed command must not leave behind (replace refs), and those it
moved that the user should hear about (the stash, other branches, tags).

A sandboxed command may write ``refs/`` and ``packed-refs`` (``git commit``, a new
branch, ``git stash`` must work), and ``refs/replace/`` lies in there. A replace ref
makes git show and check out another object in place of one everywhere: after
``git replace <Makefile's blob> <evil blob>`` the user's own "throw away the agent's
changes" (``git checkout -- Makefile``, ``git restore``, ``git reset --hard``) writes
the evil Makefile, ``git show`` and ``git log -p`` present it as what the user
committed, and ``git status`` stays clean (tester finding K15). So replace refs run
later, like hooks: the refs of every guarded git directory are read before a command
(loose files and ``packed-refs``, no git run), and after it each replace ref it added
or changed is put back as it was (removed, or set to its old object), and the result
says so with the ``git replace`` line that redoes it (the objects stay).

The other refs a command changed, besides the branch checked out (which ``git commit``
moves, and ``git status`` and ``git log`` show), are said in the result
(:func:`changed`, :func:`report`): a command that swapped the user's stash entry for its
own (``git stash`` then ``git stash drop stash@{1}``) left ``git stash list`` looking the
same, and the user's ``git stash pop`` brought back its code; another branch, a tag or a
remote-tracking branch moved (``git rebase origin/main`` without a fetch takes what it
points at) is as quiet. Nothing is undone there: a new branch, a stash of the command's
own work, are what it was asked for; the note lets the user look.

A reftable repository (``git init --ref-format=reftable``) has its refs read and put
back through git (:mod:`.gitreftable`). An object file overwritten in place is
:mod:`.gitobjects`' part.
"""

from __future__ import annotations

import heapq
import os
import stat
import tempfile
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from . import gitreftable
from .runslater import Planted

MAX_REFS = 20_000
"""Loose ref files read in one git directory at most (packed refs are one file), besides
``refs/replace/``, which is always read whole: a replace ref after 20,000 padding tags
must not go unseen (tester finding L8)."""
MAX_PACKED = 8 * 1024 * 1024
"""Bytes of ``packed-refs`` parsed line by line at most; the rest is still read, in
chunks, for its ``refs/replace/`` lines (a substring search in C: a replace ref after
150,000 padding tags, 9 MB, was kept when the rest was not read at all)."""
CHUNK = 4 * 1024 * 1024
REPLACE = "refs/replace/"

REPLACE_WHY = ("a git replace ref: git would show and check out another object in place of this one "
               "(git checkout, git restore, git reset --hard would write it)")


@dataclass(frozen=True, slots=True)
class Refs:
    """The refs of one git directory at one moment: name → object id (or ``ref: …``
    for a symbolic ref), a loose file overriding ``packed-refs`` as in git."""

    loose: Mapping[str, str]
    packed: Mapping[str, str]
    complete: bool = True
    heads: frozenset[str] = frozenset()
    """The branches checked out (any guarded git directory's ``HEAD``, a rebase's
    ``head-name``) when it was read: moving those is what a commit does."""

    def value(self, name: str) -> str | None:
        return self.loose.get(name, self.packed.get(name))

    def names(self) -> set[str]:
        return {*self.loose, *self.packed}


Snapshot = Mapping[Path, Refs]


def _read_text(path: Path, limit: int = 4096) -> str | None:
    try:
        with open(path, "rb") as fh:
            return fh.read(limit).decode("utf-8", "replace")
    except OSError:
        return None


class RefCache:
    """What the ref files of each git directory held when last read, each with the
    (inode, size, mtime, ctime) it had then: a file whose stat is the same is not
    opened again. Reading 10,000 loose refs twice per command (before and after it)
    cost ~0.6 s of wall time each at load 9 (open, read, close per file); one
    ``lstat`` each is what is left. Not the mtime alone: a sandboxed command can set
    that back (``touch -d``) after rewriting a ref in place; the ctime only the clock
    sets. A file changed less than :data:`RACY_NS` before it was read is read again
    next time (a coarse ctime could hide a second write in the same tick).
    One per sandbox; the sandbox runs one check at a time, so it takes no lock."""

    def __init__(self) -> None:
        self.files: dict[str, dict[str, tuple[tuple[int, int, int, int], str]]] = {}

    def known(self, gitdir: str) -> dict[str, tuple[tuple[int, int, int, int], str]]:
        return self.files.get(gitdir, {})


RACY_NS = 100_000_000
"""A ref file changed this soon before it was read is not trusted from the cache later."""


def _key(info: os.stat_result) -> tuple[int, int, int, int]:
    return info.st_ino, info.st_size, info.st_mtime_ns, info.st_ctime_ns


def _loose(gitdir: Path, cache: RefCache | None = None) -> tuple[dict[str, str], bool]:
    """The loose ref files under ``refs/`` (plain strings: a repository may hold thousands)."""
    out: dict[str, str] = {}
    base = str(gitdir)
    skip = len(base) + 1
    known = cache.known(base) if cache is not None else {}
    kept: dict[str, tuple[tuple[int, int, int, int], str]] = {}
    settled = time.time_ns() - RACY_NS
    replace = os.path.join(base, "refs", "replace")
    stack = [os.path.join(base, "refs")]
    whole = True
    while stack:
        here = stack.pop()
        if not whole and not (here + os.sep).startswith(replace + os.sep):
            continue  # past the cap only refs/replace/ is read (it is walked whole)
        try:
            with os.scandir(here) as it:
                entries = list(it)
        except OSError:
            continue
        for entry in entries:
            name = entry.path[skip:].replace(os.sep, "/")
            if len(out) >= MAX_REFS and not (name + "/").startswith(REPLACE):
                whole = False
                continue
            try:
                if entry.is_dir(follow_symlinks=False):
                    stack.append(entry.path)
                elif entry.is_symlink():
                    out[name] = "link: " + os.readlink(entry.path)
                elif entry.is_file(follow_symlinks=False):
                    key = _key(entry.stat(follow_symlinks=False))
                    was = known.get(entry.path)
                    if was is not None and was[0] == key:
                        out[name] = was[1]
                    else:
                        with open(entry.path, "rb") as fh:
                            out[name] = fh.read(4096).decode("utf-8", "replace").strip()
                        if key[3] >= settled:
                            continue
                    kept[entry.path] = (key, out[name])
            except OSError:
                continue
    if cache is not None:
        cache.files[base] = kept
    return out, whole


def _parse_packed(data: bytes, out: dict[str, str]) -> None:
    for line in data.decode("utf-8", "replace").splitlines():
        if not line or line[0] in "#^":
            continue
        oid, _, name = line.partition(" ")
        if name:
            out[name.strip()] = oid.strip()


def _replace_lines(data: bytes) -> bytes:
    """The lines of ``data`` (whole lines) that name a replace ref, found without a
    Python loop over the others."""
    found: list[bytes] = []
    at = data.find(REPLACE.encode())
    while at >= 0:
        start = data.rfind(b"\n", 0, at) + 1
        end = data.find(b"\n", at)
        end = len(data) if end < 0 else end
        found.append(data[start:end])
        at = data.find(REPLACE.encode(), end)
    return b"\n".join(found)


def _packed(gitdir: Path) -> tuple[dict[str, str], bool]:
    """``packed-refs``: its first :data:`MAX_PACKED` bytes parsed, and every replace ref
    in the rest (complete: nothing was left out)."""
    out: dict[str, str] = {}
    opened = False
    try:
        with open(gitdir / "packed-refs", "rb") as fh:
            opened = True
            data = fh.read(MAX_PACKED)
            cut = data.rfind(b"\n") + 1 if len(data) == MAX_PACKED else len(data)
            _parse_packed(data[:cut], out)
            carry, whole = data[cut:], True
            while True:
                chunk = fh.read(CHUNK)
                data = carry + chunk
                if chunk:
                    whole = False
                    cut = data.rfind(b"\n") + 1
                    data, carry = data[:cut], data[cut:]
                elif carry:
                    whole = False
                _parse_packed(_replace_lines(data), out)
                if not chunk:
                    return out, whole
    except OSError:
        return out, not opened  # missing: no packed refs; unreadable half way: not all read


def read(gitdir: Path, cache: RefCache | None = None) -> Refs:
    """The refs of ``gitdir`` as they are now (``cache``: what did not change is not read again)."""
    if gitreftable.uses_reftable(gitdir):
        refs = gitreftable.read(gitdir)
        return Refs(refs or {}, {}, refs is not None)
    loose, whole = _loose(gitdir, cache)
    packed, all_packed = _packed(gitdir)
    return Refs(loose, packed, whole and all_packed)


def checked_out(gitdirs: Sequence[Path]) -> frozenset[str]:
    """The branches the git directories have checked out (or are rebasing)."""
    out: set[str] = set()
    for gitdir in gitdirs:
        for name in ("HEAD", "rebase-merge/head-name", "rebase-apply/head-name"):
            text = (_read_text(gitdir / name) or "").strip()
            out.add(text.removeprefix("ref:").strip())
        if gitreftable.uses_reftable(gitdir):
            out.add(gitreftable.head(gitdir))
    return frozenset(n for n in out if n.startswith("refs/"))


def snapshot(gitdirs: Sequence[Path], cache: RefCache | None = None) -> dict[Path, Refs]:
    """The refs of each git directory that keeps some (``refs/`` or ``packed-refs``)."""
    heads = checked_out(gitdirs)
    out: dict[Path, Refs] = {}
    for g in dict.fromkeys(gitdirs):
        if os.path.isdir(g / "refs") or os.path.isfile(g / "packed-refs") or gitreftable.uses_reftable(g):
            refs = read(g, cache)
            out[g] = Refs(refs.loose, refs.packed, refs.complete, heads)
    return out


def _write_loose(path: Path, value: str) -> None:
    if os.path.isdir(path) and not os.path.islink(path):
        raise OSError(f"{path.name} is now a folder")
    path.parent.mkdir(parents=True, exist_ok=True)
    if os.path.lexists(path):
        os.unlink(path)
    if value.startswith("link: "):
        os.symlink(value.removeprefix("link: "), path)
        return
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".agent-shell-ref-")
    with os.fdopen(fd, "w", encoding="utf-8") as fh:
        fh.write(value + "\n")
    os.chmod(tmp, 0o644)
    os.replace(tmp, path)


def _drop_packed(gitdir: Path, names: set[str]) -> None:
    """``packed-refs`` without the lines of ``names`` (and their peeled ``^`` lines)."""
    path = gitdir / "packed-refs"
    with open(path, "rb") as fh:
        lines = fh.read().splitlines(keepends=True)
    kept: list[bytes] = []
    dropping = False
    for line in lines:
        if line.startswith(b"^"):
            if not dropping:
                kept.append(line)
            continue
        _, _, name = line.partition(b" ")
        dropping = not line.startswith(b"#") and name.strip().decode("utf-8", "replace") in names
        if not dropping:
            kept.append(line)
    fd, tmp = tempfile.mkstemp(dir=gitdir, prefix=".agent-shell-packed-")
    with os.fdopen(fd, "wb") as fh:
        fh.writelines(kept)
    os.chmod(tmp, stat.S_IMODE(os.stat(path).st_mode))
    os.replace(tmp, path)


def put_back(gitdir: Path, name: str, was: Refs, now: Refs) -> None:
    """Make ``name`` read as it did in ``was``: gone, or its old value (a loose file,
    which git reads before ``packed-refs``)."""
    old = was.value(name)
    if gitreftable.uses_reftable(gitdir):
        gitreftable.put_back(gitdir, name, old)
        return
    loose = gitdir / name
    if old is not None:
        _write_loose(loose, old)
        return
    if name in now.packed:
        _drop_packed(gitdir, {name})
    if os.path.lexists(loose):
        if os.path.isdir(loose) and not os.path.islink(loose):
            raise OSError(f"{name} is now a folder")
        os.unlink(loose)


def reread(before: Snapshot, cache: RefCache | None = None) -> dict[Path, Refs]:
    """The refs of ``before``'s git directories as they are now (read once after a
    command for both :func:`undo_replace` and :func:`changed`)."""
    return {g: read(g, cache) for g in before}


def undo_replace(before: Snapshot, after: Snapshot | None = None) -> list[Planted]:
    """Each replace ref a command added or changed in a git directory of ``before``,
    put back as it was, said with how to redo it (``after``: as they are now)."""
    out: list[Planted] = []
    after = reread(before) if after is None else after
    for gitdir, was in before.items():
        now = after.get(gitdir) or read(gitdir)
        if not now.complete and gitreftable.uses_reftable(gitdir):
            out.append(Planted(gitdir / "reftable", REPLACE_WHY, undone=(
                "git could not list this repository's refs after the command, so a replace ref it "
                "added cannot be ruled out: run git replace -l here, and git replace -d each you did "
                "not make")))
            continue
        if now.loose == was.loose and now.packed == was.packed:
            continue  # the usual case, compared in C: 10,000 refs by name took 0.3 s at load 9
        for name in sorted(n for n in now.names() if n.startswith(REPLACE)):
            value = now.value(name)
            if value == was.value(name):
                continue
            replaced = name[len(REPLACE):]
            redo = f"git replace -f {replaced} {value}" if value and " " not in value else "git replace"
            try:
                put_back(gitdir, name, was, now)
            except OSError as exc:
                out.append(Planted(gitdir / name, REPLACE_WHY,
                                   undone=f"removing it FAILED ({exc.strerror or exc}): run "
                                          f"git replace -d {replaced} before you use git here"))
                continue
            old = was.value(name)
            back = "removed" if old is None else f"set back to {old}"
            out.append(Planted(gitdir / name, REPLACE_WHY, undone=f"{back} (to redo it: {redo})"))
    return out


CHANGED_WHY = "a git ref the command changed"
MAX_NOTED = 20
"""Refs named in one note at most (a fetch of tags may move hundreds)."""


def _kind(name: str) -> str:
    for prefix, kind in (("refs/heads/", "branch"), ("refs/tags/", "tag"),
                         ("refs/remotes/", "remote-tracking branch"), ("refs/notes/", "notes")):
        if name.startswith(prefix):
            return f"{kind} {name[len(prefix):]}"
    return "the stash (stash@{0})" if name == "refs/stash" else name


def _short(value: str) -> str:
    return value[:12] if " " not in value and len(value) >= 40 else value[:80]


@dataclass(frozen=True, slots=True)
class MoreChanged(Planted):
    """The refs of one git directory a command changed past those :func:`changed` names."""

    count: int = 0


def changed(before: Snapshot, gitdirs: Sequence[Path], after: Snapshot | None = None) -> list[Planted]:
    """The refs of ``before``'s git directories a command added, moved or deleted,
    besides the branches checked out before or after it (``gitdirs``' HEADs) and
    replace refs it added or changed (:func:`undo_replace` puts those back), each said
    as a line: the first :data:`MAX_NOTED` by name, the rest counted (a fetch of
    150,000 tags made as many lines, to show 20). A replace ref it removed is always
    named, first (nothing puts it back)."""
    out: list[Planted] = []
    heads = checked_out(gitdirs)
    after = reread(before) if after is None else after
    for gitdir, was in before.items():
        now = after.get(gitdir) or read(gitdir)
        if now.loose == was.loose and now.packed == was.packed:
            continue
        if not now.complete and not gitreftable.uses_reftable(gitdir):
            out.append(Planted(gitdir / "refs", CHANGED_WHY, undone=(
                f"more refs than agent-shell reads ({MAX_REFS:,} loose, {MAX_PACKED // (1024 * 1024)} MiB "
                "of packed-refs): those past that are not compared, so a moved one may not be named here "
                "(replace refs are all read); git for-each-ref lists them")))
        removed, moved = _differing(was, now, was.heads | heads)
        named = heapq.nsmallest(MAX_NOTED, moved)
        out += [_said(gitdir, name, was.value(name), now.value(name)) for name in sorted(removed) + named]
        if len(moved) > len(named):
            out.append(MoreChanged(gitdir / "refs", CHANGED_WHY, undone="git for-each-ref lists them",
                                   count=len(moved) - len(named)))
    return out


def _differing(was: Refs, now: Refs, skip: frozenset[str]) -> tuple[list[str], list[str]]:
    """The replace refs ``now`` lost, and the other refs that differ (not in ``skip``),
    each name once, unsorted (sorting 150,000 to name 20 was most of the time)."""
    removed: list[str] = []
    moved: list[str] = []
    for source, other in ((now, was), (was, now)):
        theirs_loose, theirs_packed = other.loose, other.packed
        for table, shadow in ((source.loose, None), (source.packed, source.loose)):
            for name, mine in table.items():
                if shadow is not None and name in shadow:
                    continue  # a loose ref overrides its packed line
                theirs = theirs_loose.get(name, theirs_packed.get(name))
                if mine == theirs or (source is was and theirs is not None) or name in skip:
                    continue  # the same, seen from ``now``'s side already, or not said here
                if name.startswith(REPLACE):
                    if source is was:
                        removed.append(name)
                    continue
                moved.append(name)
    return removed, moved


def _said(gitdir: Path, name: str, old: str | None, new: str | None) -> Planted:
    if old is None:
        line = f"new, at {_short(new or '')}"
    elif new is None:
        line = f"deleted (it was at {_short(old)}: git update-ref {name} {old} puts it back)"
    else:
        look = "git stash show -p" if name == "refs/stash" else f"git log -p {name}"
        line = (f"moved from {_short(old)} to {_short(new)} ({look} shows it; "
                f"git update-ref {name} {old} puts it back)")
    return Planted(gitdir / name, CHANGED_WHY, undone=f"{_kind(name)}: {line}")


def is_changed_entry(planted: Planted) -> bool:
    """Whether an entry of the check after a command is a ref :func:`changed` names."""
    return planted.why == CHANGED_WHY


def report(entries: Sequence[Planted]) -> str:
    """What the result says about the refs a command changed (empty: none): every
    replace ref it removed, then at most :data:`MAX_NOTED` others, then how many more."""
    if not entries:
        return ""
    more = sum(p.count for p in entries if isinstance(p, MoreChanged))
    named = [p for p in entries if not isinstance(p, MoreChanged)]
    first = [p for p in named if p.undone.startswith(REPLACE)]  # removed replace refs: never cut
    rest = [p for p in named if not p.undone.startswith(REPLACE)]
    lines = ["[agent-shell: this command changed git refs besides the branch checked out "
             "(git status does not show these):"]
    lines += [f"  {p.undone}" for p in first + rest[:MAX_NOTED]]
    more += max(len(rest) - MAX_NOTED, 0)
    if more:
        lines.append(f"  and {more:,} more (git for-each-ref lists them)")
    lines.append("Tell the user, so they can look before they use them (git stash pop, git rebase, "
                 "git switch).]")
    return "\n".join(lines)


__all__ = ["CHANGED_WHY", "REPLACE_WHY", "MoreChanged", "RefCache", "Refs", "Snapshot", "changed",
           "checked_out", "is_changed_entry", "put_back", "read", "report", "reread", "snapshot",
           "undo_replace"]
