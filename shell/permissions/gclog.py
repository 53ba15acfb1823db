"""A ``gc.log`` a sandboxed command wrote in a git directory, removed after it.

Git writes ``gc.log`` when a detached ``git gc --auto`` printed errors, and from then
on every ``gc --auto`` of the user's own git prints that file raw (escape sequences
and all reach their terminal) and skips the collection for a day
(``gc.logExpiry``). A command can write anything there, so a planted log is a way
into the user's terminal, and a stalled gc for a day. It cannot be made read-only
before the command as ``info/`` is (a missing file cannot be bound over), and git's
honest gc needs to remove an old one. So after the command a ``gc.log`` whose ctime
(which a command cannot set back) is past the command's start is removed, and the
result says so with its first line, made safe. One the user had before is left.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Sequence
from pathlib import Path

from shell.core.textsafety import sanitize_line

from .laterplanted import Planted

NAME = "gc.log"
WHY = "a gc.log this command wrote"
MAX_SHOWN = 160


def remove_new(gitdirs: Sequence[Path], started_ns: int) -> list[Planted]:
    """Remove each ``gc.log`` in ``gitdirs`` created or changed since ``started_ns``."""
    out: list[Planted] = []
    for gitdir in dict.fromkeys(gitdirs):
        path = gitdir / NAME
        try:
            st = os.lstat(path)
        except OSError:
            continue
        if st.st_ctime_ns < started_ns or not (stat.S_ISREG(st.st_mode) or stat.S_ISLNK(st.st_mode)):
            continue
        first = _first_line(path) if stat.S_ISREG(st.st_mode) else ""
        try:
            os.unlink(path)
        except OSError as exc:
            out.append(Planted(path, WHY, error=str(exc.strerror or exc)))
            continue
        out.append(Planted(path, WHY, undone=first))
    return out


def _first_line(path: Path) -> str:
    try:
        with open(path, "rb") as fh:
            head = fh.read(4096).decode("utf-8", "replace")
    except OSError:
        return ""
    line = sanitize_line(next((s for s in head.splitlines() if s.strip()), "")).strip()
    return line if len(line) <= MAX_SHOWN else line[: MAX_SHOWN - 1] + "…"


def is_entry(planted: Planted) -> bool:
    return planted.why == WHY


def report(entries: Sequence[Planted], roots: Sequence[Path]) -> str:
    """What the result says of the logs removed (or that could not be)."""
    if not entries:
        return ""
    from . import paths

    def shown(p: Planted) -> str:
        return next((str(p.path.relative_to(r)) for r in roots if paths.within(p.path, r)), str(p.path))

    removed = [p for p in entries if not p.error]
    failed = [p for p in entries if p.error]
    parts = []
    if removed:
        said = "; ".join(f"{shown(p)}" + (f" (it began: {p.undone})" if p.undone else "") for p in removed)
        parts.append(f"[agent-shell: removed {said}. This command wrote git's gc.log, which the user's git "
                     "prints raw at every `git gc --auto` and which stops automatic gc for a day. If git gc "
                     "failed here, tell the user what it said.]")
    if failed:
        said = "; ".join(f"{shown(p)} ({p.error})" for p in failed)
        parts.append(f"[agent-shell: this command wrote git's gc.log and it could not be removed: {said}. "
                     "Tell the user to delete it before running git.]")
    return "\n".join(parts)


__all__ = ["is_entry", "remove_new", "report"]
