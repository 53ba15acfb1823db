"""Index flags that hide a command's changes from the user's review.

README's answer to "the model writes code you run later" is review: ``git status``
and ``git diff``. A sandboxed command may write git's index (``git add`` and
``git commit`` must work), so it could also mark a tracked file it edited
``--skip-worktree`` or ``--assume-unchanged``: git then shows it unchanged, and the
user's ``make test`` runs the edit. So the flags of the workspace's repository are
read before a command (once per change of the index) and after it (only when the
index changed); what a command set is cleared again, and the result says so.

git runs here on the host, hardened as for :mod:`.gitstaged`.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from .gitstaged import _git
from .runslater import Planted

MAX_SHOWN = 200
"""Flagged paths cleared (and named) after one command."""


@dataclass(frozen=True, slots=True)
class Flags:
    """The index's hiding flags at one moment, and which index they came from."""

    stamp: tuple[int, int, int, int] | None
    hidden: frozenset[str]


def _stamp(repo: Path) -> tuple[int, int, int, int] | None:
    try:
        info = os.stat(repo / ".git" / "index")
    except OSError:
        return None
    return (info.st_ino, info.st_size, info.st_mtime_ns, info.st_ctime_ns)


def flags(repo: Path, known: Flags | None = None) -> Flags:
    """The paths of ``repo``'s index marked skip-worktree or assume-unchanged (``known``
    again when the index did not change since it was read)."""
    stamp = _stamp(repo)
    if known is not None and known.stamp == stamp:
        return known
    if stamp is None or not (repo / ".git").is_dir():
        return Flags(stamp, frozenset())
    out = _git(repo, ["ls-files", "-v", "-z"])
    hidden: set[str] = set()
    for entry in (out or b"").split(b"\0"):
        if len(entry) > 2 and (entry[:1] == b"S" or entry[:1].islower()):
            hidden.add(os.fsdecode(entry[2:]))
    return Flags(stamp, frozenset(hidden))


HIDDEN_WHY = "marked skip-worktree or assume-unchanged, which hides its changes from git status and git diff"


def unhide(repo: Path, before: Flags) -> list[Planted]:
    """The paths a command newly hid in ``repo``'s index, their flags cleared."""
    now = flags(repo, before)
    new = sorted(now.hidden - before.hidden)[:MAX_SHOWN]
    if not new:
        return []
    done = [_git(repo, ["update-index", flag, "--", *new]) for flag in ("--no-skip-worktree",
                                                                       "--no-assume-unchanged")]  # one each
    undone = ("the flag was cleared, so git status shows it again" if None not in done else
              "clearing the flag FAILED: run git update-index --no-skip-worktree --no-assume-unchanged on it")
    return [Planted(repo / path, HIDDEN_WHY, undone=undone) for path in new]


__all__ = ["Flags", "flags", "unhide"]
