"""What a sandboxed command planted that runs later as the user, and what was done
about it: moved out to the quarantine folder (a replaced symlink put back), and the
tool result's plain words with the command that puts each back.

The walls and the judging live in :mod:`.runslater`; the other after-command checks
(:mod:`.writewalls`, :mod:`.pathswaps`, :mod:`.gitrefs` ...) report through the same
:class:`Planted` and :func:`report`, so one place says it the same way for all.
"""

from __future__ import annotations

import os
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from . import crossmove, paths
from .laterseen import Seen
from .putback import keep_command


@dataclass(frozen=True, slots=True)
class Planted:
    """A runs-later path a command created or changed, and what was done about it."""

    path: Path
    why: str
    moved_to: Path | None = None
    """Where it was moved (None: kept, being harmless, or it could not be moved)."""
    restored: str = ""
    """A symlink the command replaced, put back (its target)."""
    error: str = ""
    undone: str = ""
    """What was put back as it was in place (an index flag cleared), said as is."""
    lacks: str = ""
    """What the quarantine's copy lacks (moved across file systems: :mod:`.crossmove`)."""


def restore_link(path: Path, was: Seen) -> Planted:
    """Put back a symlink the command removed or replaced (``was``): git, direnv or the
    editor would otherwise find whatever the command left there, or nothing."""
    try:
        os.symlink(was.link, path)
    except OSError as exc:
        return Planted(path, "a symlink that runs later was removed", error=str(exc.strerror or exc))
    return Planted(path, "a symlink that runs later was removed", restored=was.link)


def move_aside(path: Path, why: str, quarantine: Path, roots: Sequence[Path], was: Seen) -> Planted:
    """Move ``path`` (a link itself, never its target) under ``quarantine``, keeping
    where it was as its relative path; put a replaced symlink back."""
    rel = next((path.relative_to(r) for r in roots if paths.within(path, r)), Path(path.name))
    dest = quarantine / rel
    try:
        dest.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        if os.path.lexists(dest):
            dest = dest.with_name(f"{dest.name}.{time.time_ns()}")
        lacks = crossmove.move(path, dest)  # a rename; a copy kept as far as it can be across file systems
    except OSError as exc:
        return Planted(path, why, error=str(exc.strerror or exc))
    planted = Planted(path, why, dest, lacks=lacks)
    if was.kind == "link":
        restored = restore_link(path, was)
        planted = Planted(path, why, dest, restored.restored, restored.error)
    return planted


def move_out(path: Path, why: str, quarantine: Path, roots: Sequence[Path]) -> Planted:
    """Move ``path``, which a command created, under ``quarantine`` (see :func:`move_aside`)."""
    return move_aside(path, why, quarantine, roots, Seen("missing"))


def relative(path: Path, roots: Sequence[Path]) -> str:
    """``path`` relative to the workspace (the first root); absolute elsewhere."""
    if roots and paths.within(path, roots[0]):
        return path.relative_to(roots[0]).as_posix()
    return str(path)


def report(planted: Sequence[Planted], roots: Sequence[Path]) -> str:
    """What the tool result says: plainly, with how to put each back."""
    if not planted:
        return ""

    def shown(path: Path) -> str:
        return relative(path, roots)

    lines = ["[agent-shell: this command created or changed files that run later as you, outside the "
             "sandbox:"]
    for p in planted:
        if p.undone:
            lines.append(f"  {shown(p.path)}: {p.why}; {p.undone}")
        elif p.moved_to is not None:
            back = f"to keep it: /quarantine restore, or {keep_command(p.moved_to, p.path)}"
            relinked = f"; the link to {p.restored} it replaced was put back" if p.restored else ""
            relinked += f"; {p.lacks}" if p.lacks else ""
            lines.append(f"  {shown(p.path)}: {p.why}; moved out of the workspace ({back}){relinked}")
        elif p.restored:
            lines.append(f"  {shown(p.path)}: {p.why}; the link to {p.restored} was put back")
        else:
            lines.append(f"  {shown(p.path)}: {p.why}; it could NOT be moved ({p.error}): check it "
                         "before you use git, direnv or your editor here")
    lines.append("Files like these are not changed by commands in the sandbox; ask the user to make "
                 "such a change.]")
    return "\n".join(lines)


__all__ = ["Planted", "move_aside", "move_out", "relative", "report", "restore_link"]
