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

import os
from collections.abc import Sequence
from pathlib import Path

from . import githardened

TIMEOUT = 10.0
MOST = 512
"""Commits read back from the new HEAD (newest first)."""


def tips(repo: Path, head: bytes) -> tuple[bytes, ...] | None:
    """The commits the refs of ``repo`` and ``head`` point at (tags peeled), None: git
    could not say (every commit HEAD gains is then taken for the command's)."""
    done = githardened.run(["-C", str(repo), "for-each-ref",
                            "--format=%(objecttype) %(objectname) %(*objecttype) %(*objectname)"],
                           timeout=TIMEOUT)
    if done is None or done.returncode != 0:
        return None
    out = [head] if head else []
    for line in done.stdout.splitlines():
        fields = line.split()
        out += [fields[i + 1] for i in (0, 2) if fields[i:i + 1] == [b"commit"] and len(fields) > i + 1]
    return tuple(dict.fromkeys(out))


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
