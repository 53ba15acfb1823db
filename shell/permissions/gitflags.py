"""Index flags that hide a command's changes from the user's review.

README's answer to "the model writes code you run later" is review: ``git status``
and ``git diff``. A sandboxed command may write git's index (``git add`` and
``git commit`` must work), so it could also mark a tracked file it edited
``--skip-worktree`` or ``--assume-unchanged``: git then shows it unchanged, and the
user's ``make test`` runs the edit. So the flags of the workspace's repository are
read before a command (once per change of the index) and after it (only when the
index changed), in every repository inside the workspace (nested ones, submodules'
``.git/modules/*``, worktrees' ``.git/worktrees/*``, not only the root's ``.git``);
what a command set is cleared again, and the result says so.

git runs here on the host, hardened as for :mod:`.gitstaged`.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from . import gitmarkrecords
from .gitstaged import _git
from .runslater import Planted

MAX_SHOWN = 200
"""Flagged paths cleared (and named) after one command."""


@dataclass(frozen=True, slots=True)
class RepoFlags:
    """One index's hiding flags at one moment, and which index file they came from."""

    stamp: tuple[int, int, int, int] | None
    hidden: frozenset[str]


Flags = Mapping[Path, RepoFlags]
"""Per git directory (the workspace's ``.git``, a nested repository's, a submodule's
``.git/modules/NAME``, a worktree's ``.git/worktrees/NAME``): its index's flags."""


def _stamp(gitdir: Path) -> tuple[int, int, int, int] | None:
    try:
        info = os.stat(gitdir / "index")
    except OSError:
        return None
    return (info.st_ino, info.st_size, info.st_mtime_ns, info.st_ctime_ns)


def _read(gitdir: Path, known: RepoFlags | None) -> RepoFlags:
    stamp = _stamp(gitdir)
    if known is not None and known.stamp == stamp:
        return known
    if stamp is None:
        return RepoFlags(None, frozenset())
    out = _git(gitdir, ["--git-dir", str(gitdir), "ls-files", "-v", "-z"])  # no work tree needed
    hidden: set[str] = set()
    for entry in (out or b"").split(b"\0"):
        if len(entry) > 2 and (entry[:1] == b"S" or entry[:1].islower()):
            hidden.add(os.fsdecode(entry[2:]))
    return RepoFlags(stamp, frozenset(hidden))


def flags(gitdirs: Sequence[Path], known: Flags | None = None) -> dict[Path, RepoFlags]:
    """The paths each git directory's index marks skip-worktree or assume-unchanged
    (read again only for an index that changed since ``known``). ``gitdirs``: every
    git directory the sandbox guards (:attr:`.runslater.Guard.gitdirs`), so nested
    repositories, submodules and worktrees inside the workspace are read too, not
    only the root's ``.git``."""
    known = known or {}
    return {g: _read(g, known.get(g)) for g in dict.fromkeys(gitdirs)}


CLEARED = "the flag was cleared, so git status shows it again"
NOT_CLEARED = "clearing the flag FAILED: run git update-index --no-skip-worktree --no-assume-unchanged on it"
HIDDEN_WHY = "marked skip-worktree or assume-unchanged, which hides its changes from git status and git diff"


def work_tree(gitdir: Path) -> Path:
    """Where the files of ``gitdir``'s index live, to name them: beside a ``.git``
    folder, where a worktree's ``gitdir`` file points, or a submodule's
    ``core.worktree``; the git directory itself when none can be told."""
    if gitdir.name == ".git":
        return gitdir.parent
    try:
        with open(gitdir / "gitdir", encoding="utf-8", errors="replace") as fh:
            pointer = fh.read(4096).strip()
        if pointer:  # relative to the worktree's admin folder (git worktree add --relative-paths)
            return Path(os.path.normpath(gitdir / pointer)).parent
    except OSError:
        pass
    top = _git(gitdir, ["rev-parse", "--show-toplevel"])
    text = os.fsdecode(top or b"").strip()
    return Path(text) if text else gitdir


def unhide(before: Flags) -> list[Planted]:
    """The paths a command newly hid in the indexes of ``before`` (those that existed
    before it ran), their flags cleared. A repository the command made itself is not
    looked at: its flags hide nothing the user had."""
    out: list[Planted] = []
    for gitdir, was in before.items():
        if was.stamp is None or len(out) >= MAX_SHOWN:
            continue
        now = _read(gitdir, was)
        new = sorted(now.hidden - was.hidden)[: MAX_SHOWN - len(out)]
        tree = work_tree(gitdir)
        if new:  # not the marks another agent-shell's command running now holds (.gitmarkrecords)
            held = gitmarkrecords.held_elsewhere(tree, [os.fsencode(n) for n in new], None)
            new = [n for n in new if os.fsencode(n) not in held]
        if not new:
            continue
        done = [_git(gitdir, ["--git-dir", str(gitdir), "update-index", flag, "--", *new])
                for flag in ("--no-skip-worktree", "--no-assume-unchanged")]  # fmt: skip
        undone = CLEARED if None not in done else NOT_CLEARED
        out += [Planted(tree / path, HIDDEN_WHY, undone=undone) for path in new]
    return out


__all__ = ["Flags", "RepoFlags", "flags", "unhide", "work_tree"]
