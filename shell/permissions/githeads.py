"""Which commits between HEAD before a command and after it the command made itself.

The net under hidden paths (:mod:`.gitnet`) says loudly a commit that deletes a hidden
tracked file or adds a hidden untracked one (the sandbox's empty stand-in taken for
the file). Comparing the index alone missed a commit built with ``git commit-tree``
and ``git update-ref`` (the index untouched), and judging HEAD's whole move took a
fast-forward to fetched commits (``git pull``, ``git merge --ff-only``) in which
upstream deleted such a file for one the command made: a false alarm.

So the commits HEAD gained are read (``git rev-list --timestamp``, one call) and those
committed since the command started are the ones judged, each against its first
parent, limited to the hidden paths (``git diff-tree --stdin``, one call). A commit
dated earlier was made elsewhere: a fetched one, or a branch checked out. git stamps a
commit with the clock when it is made; a command can backdate one
(``GIT_COMMITTER_DATE``), which makes its deletion look fetched: the index is still
put back where HEAD's tree keeps the file, and the work tree follows as for a checkout.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path

from . import githardened

TIMEOUT = 10.0
MOST = 64
"""Commits read back from the new HEAD: a command makes a few; more is a fetch."""
SLACK = 1
"""Seconds before the command's start a commit's date may be (git stamps whole seconds)."""


def made_here(repo: Path, old: bytes, new: bytes, since: int) -> list[bytes]:
    """The commits reachable from ``new`` and not from ``old`` (every one when ``old`` is
    empty: no commit before) committed at or after ``since`` (seconds), newest first."""
    spec = [new.decode()] + ([f"^{old.decode()}"] if old else [])
    done = githardened.run(["-C", str(repo), "rev-list", "--timestamp", f"--max-count={MOST}", *spec, "--"],
                           timeout=TIMEOUT)
    if done is None or done.returncode != 0:
        return []
    out = []
    for line in done.stdout.splitlines():
        stamp, _, commit = line.partition(b" ")
        if stamp.isdigit() and int(stamp) >= since - SLACK and commit:
            out.append(commit)
    return out


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


def in_tree(repo: Path, commit: bytes, rels: Sequence[bytes]) -> set[bytes]:
    """The files ``commit``'s tree holds at or under ``rels``."""
    done = githardened.run(["-C", str(repo), "ls-tree", "-r", "-z", "--name-only", commit.decode(), "--",
                            *(":(literal)" + os.fsdecode(r) for r in dict.fromkeys(rels))], timeout=TIMEOUT)
    if done is None or done.returncode != 0:
        return set()
    return {n for n in done.stdout.split(b"\0") if n}


__all__ = ["changes", "in_tree", "made_here"]
