"""Which commits between HEAD before a command and after it the command made itself.

The net under hidden paths (:mod:`.gitnet`) says loudly a commit that deletes a hidden
tracked file or adds a hidden untracked one (the sandbox's empty stand-in taken for
the file). Comparing the index alone missed a commit built with ``git commit-tree``
and ``git update-ref`` (the index untouched), and judging HEAD's whole move took a
fast-forward to commits made elsewhere (``git merge --ff-only up``, a branch the user
fetched) in which upstream deleted such a file for one the command made: a false alarm.

So the object names every ref pointed at before the command are taken (:func:`tips`,
one ``git for-each-ref``), and after it the commits HEAD reaches that none of them
did are the command's (``git rev-list``, one call), each judged against its first
parent, limited to the hidden paths (``git diff-tree --stdin``, one call). Not the
commits' dates: a command sets those at will (``GIT_COMMITTER_DATE=2001…``), and a
back-dated commit that deleted the hidden file passed for a fetched one (tester
finding S18). A commit fetched during the command counts as made by it: it may be one
the command made in another repository.
"""

from __future__ import annotations

import contextlib
import os
import threading
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from . import githardened, gitparked

TIMEOUT = 10.0
MOST = 512
"""Commits read back from the new HEAD (newest first)."""
RACY_NS = 100_000_000
"""A ref folder changed this soon before it was read is not trusted from the cache later."""
_lock = threading.Lock()
_known: dict[Path, tuple[tuple[Any, ...], tuple[bytes, ...]]] = {}


def tips(repo: Path, head: bytes, gitdir: Path | None = None) -> tuple[bytes, ...] | None:
    """The commits the refs of ``repo`` and ``head`` point at (tags peeled), and every entry of
    the stash list (``stash@{1}`` and below are in the stash's reflog only: a commit parked there
    is one a later ``git stash apply`` writes out, :mod:`.gitparked`); None: git
    could not say (every commit HEAD gains is then taken for the command's). Asked again
    only when a ref file changed (:func:`_refs_key`): this runs before every command in a
    repository holding a hidden file."""
    key = _refs_key(gitdir, head) if gitdir is not None else None
    with _lock:
        known = _known.get(repo)
    if key is not None and known is not None and known[0] == key:
        return known[1]
    done = githardened.run(["-C", str(repo), "for-each-ref",
                            "--format=%(refname) %(objecttype) %(objectname) %(*objecttype) %(*objectname)"],
                           timeout=TIMEOUT)
    if done is None or done.returncode != 0:
        return None
    out = [head] if head else []
    for line in done.stdout.splitlines():
        fields = line.split()[1:]
        out += [fields[i + 1] for i in (0, 2) if fields[i:i + 1] == [b"commit"] and len(fields) > i + 1]
        if line.startswith(b"refs/stash "):  # every entry of the stash list, not only its top
            stashed = gitparked.tops(repo, gitdir)
            if stashed is None:
                return None
            out += stashed
    found = tuple(dict.fromkeys(out))
    if key is not None and max((k[2] for k in key[1:]), default=0) < time.time_ns() - RACY_NS:
        with _lock:
            if len(_known) >= 64:
                _known.clear()
            _known[repo] = (key, found)
    return found


def _refs_key(gitdir: Path, head: bytes) -> tuple[Any, ...] | None:
    """HEAD and the (inode, mtime, ctime) of ``packed-refs``, of every folder under
    ``refs/`` and of the stash's reflog (its list: ``git stash drop stash@{1}`` rewrites
    only that): git writes a ref through a lock file renamed in place, which changes its
    folder's; the ctime no command can set back (None: a reftable, or unreadable)."""
    common = gitdir
    with contextlib.suppress(OSError):
        pointer = gitdir / "commondir"
        if pointer.is_file():
            common = gitdir / pointer.read_text().strip()
    if (common / "reftable").exists():
        return None
    key: list[Any] = [head]
    try:
        stash_log = common / "logs" / "refs" / "stash"
        for path in [common / "packed-refs", stash_log, *(Path(d) for d, _, _ in os.walk(common / "refs"))]:
            try:
                info = os.lstat(path)
            except FileNotFoundError:
                key.append((str(path), 0, 0, 0))
                continue
            key.append((str(path), info.st_ino, info.st_ctime_ns, info.st_mtime_ns))
    except OSError:
        return None
    return tuple(key)


def made_here(repo: Path, before: tuple[bytes, ...] | None, new: bytes) -> list[bytes]:
    """The commits reachable from ``new`` and from none of ``before`` (:func:`tips` taken
    before the command), newest first; ``[new]`` when git cannot tell (failing closed:
    the move is then no checkout of a commit that existed before)."""
    if before is None:
        return [new]
    done = githardened.run(["-C", str(repo), "rev-list", f"--max-count={MOST}", "--stdin", "--"],
                           stdin=new + b"\n" + b"".join(b"^" + t + b"\n" for t in before), timeout=TIMEOUT)
    if done is None or done.returncode != 0:
        return [new]
    return [c for c in done.stdout.split() if c]


def changes(repo: Path, commits: Sequence[bytes], rels: Sequence[bytes]) -> list[tuple[bytes, bytes, bytes]]:
    """``(commit, status, name)`` of what each of ``commits`` changed at or under ``rels``
    against its first parent (``D`` deleted, ``A`` added, ``M`` …)."""
    if not commits:
        return []
    specs = [":(literal)" + os.fsdecode(r) for r in dict.fromkeys(rels)]
    done = githardened.run(["-C", str(repo), "diff-tree", "--stdin", "-r", "-z", "--no-renames",
                            "--name-status", "-m", "--first-parent", "--root", "--", *specs],
                           stdin=b"".join(c + b"\n" for c in commits), timeout=TIMEOUT)
    if done is None or done.returncode != 0:
        return []
    wanted, out, current = set(commits), [], b""
    tokens = iter(done.stdout.split(b"\0"))
    for token in tokens:
        if token.strip() in wanted:
            current = token.strip()
        elif token and current:
            name = next(tokens, b"")
            if name:
                out.append((current, token[:1], name))
    return out


def in_tree(repo: Path, commit: bytes, rels: Sequence[bytes]) -> dict[bytes, bytes] | None:
    """``name -> object`` of the files ``commit``'s tree holds at or under ``rels`` (None:
    git could not say)."""
    if not commit:
        return {}
    done = githardened.run(["-C", str(repo), "ls-tree", "-r", "-z", commit.decode(), "--",
                            *(":(literal)" + os.fsdecode(r) for r in dict.fromkeys(rels))], timeout=TIMEOUT)
    if done is None or done.returncode != 0:
        return None
    out: dict[bytes, bytes] = {}
    for entry in done.stdout.split(b"\0"):
        meta, _, name = entry.partition(b"\t")
        fields = meta.split()
        if name and len(fields) == 3:
            out[name] = fields[2]
    return out


__all__ = ["changes", "in_tree", "made_here", "tips"]
