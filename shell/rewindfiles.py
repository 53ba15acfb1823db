"""What ``/rewind`` does to each file the agent changed after a message: put back what it
held, remove what it created, or leave it as it is when someone changed it since (a rewind
never destroys a change it did not make), and how that step is said.

Kept apart from the plan and the conversation (:mod:`.rewind`): this judges one file
against the session's checkpoints and the disk as it is now.
"""

from __future__ import annotations

import hashlib
import os
import stat
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from .core.textsafety import sanitize_line

if TYPE_CHECKING:
    from .sessions.checkpoints import Checkpoints, FileChange

Action = Literal["restore", "delete", "unchanged", "lost", "kept", "moved"]
MAX_COMPARE = 64 * 1024 * 1024
"""Files larger than this are not read to be compared (they count as changed since)."""


@dataclass(frozen=True, slots=True)
class FileStep:
    """What a rewind does to one file."""

    path: Path
    shown: str
    action: Action
    tool: str
    note: str = ""
    before: bytes | None = None
    mode: int | None = None
    size_now: int | None = None


def file_step(cp: Checkpoints, change: FileChange, root: Path) -> FileStep:
    path = Path(change.path)
    shown = sanitize_line(_relative(path, root))
    now, size_now, problem = _current(path)
    if problem:
        return FileStep(path, shown, "lost", change.tool, problem)
    if not change.kept:
        return FileStep(path, shown, "lost", change.tool, change.why or "its content was not kept")
    if not change.existed:
        if now is None and size_now is None:
            return FileStep(path, shown, "unchanged", change.tool)
        if _changed_since(cp, change, now):
            return _kept(path, shown, change, size_now)
        return FileStep(path, shown, "delete", change.tool, size_now=size_now)
    assert change.before is not None
    try:
        before = cp.blob(change.before)
    except (OSError, ValueError) as exc:
        why = str(exc) if isinstance(exc, ValueError) else "its kept copy is missing"
        return FileStep(path, shown, "lost", change.tool, why)
    if now == before and (change.mode is None or _mode(path) == change.mode):
        return FileStep(path, shown, "unchanged", change.tool)
    if _changed_since(cp, change, now):
        return _kept(path, shown, change, size_now)
    return FileStep(path, shown, "restore", change.tool, before=before, mode=change.mode, size_now=size_now)


def left_line(step: FileStep) -> str:
    if step.action == "moved":
        return f"  - `{step.shown}`: {step.note}; left where it is, so it is not lost"
    return (f"  - `{step.shown}` **changed since the agent wrote it** ({step.note}): left as it is, so those "
            "changes are not lost")


def moved_step(cp: Checkpoints, step: FileStep, firsts: dict[str, FileChange], root: Path) -> FileStep:
    """A file a command created that holds, as it left it, what a file it removed held
    (``mv sub sub_old``): the user's file under its new name. Removing it would lose it
    where the old name cannot take it back (``sub`` made a symlink), so it stays (K17)."""
    from .sessions.checkpoints import ABSENT

    if step.action != "delete":
        return step
    left = cp.left.get(str(step.path))
    origin = next((c for c in firsts.values() if c.existed and c.before is not None and c.before == left
                   and cp.left.get(c.path) == ABSENT), None)
    if origin is None:
        return step
    was = sanitize_line(_relative(Path(origin.path), root))
    return FileStep(step.path, step.shown, "moved", step.tool, f"a command moved `{was}` here (a rename)",
                    size_now=step.size_now)


def _kept(path: Path, shown: str, change: FileChange, size_now: int | None) -> FileStep:
    return FileStep(path, shown, "kept", change.tool, f"{size_text(size_now or 0)} now", size_now=size_now)


def _changed_since(cp: Checkpoints, change: FileChange, now: bytes | None) -> bool:
    """Whether the file holds something else than what the agent's tool (or its
    sandboxed command) last left in it: someone (the user) changed it since, and a
    rewind would destroy that."""
    from .sessions.checkpoints import ABSENT

    left = cp.left.get(change.path)
    if now is None or left is None:
        return False
    return left == ABSENT or hashlib.sha256(now).hexdigest() != left  # ABSENT: it was deleted, made again


def _current(path: Path) -> tuple[bytes | None, int | None, str]:
    """The file's content now (None and None: it does not exist), or why it cannot
    be touched (a directory or a symlink stands there now)."""
    try:
        info = os.stat(path, follow_symlinks=False)
    except FileNotFoundError:
        return None, None, ""
    except OSError as exc:
        return None, None, f"it cannot be read now ({exc.strerror or exc})"
    if stat.S_ISLNK(info.st_mode):
        return None, info.st_size, "a symlink stands there now; it was left alone"
    if stat.S_ISDIR(info.st_mode):
        return None, info.st_size, "a directory stands there now; it was left alone"
    if not stat.S_ISREG(info.st_mode):
        return None, info.st_size, "it is not a regular file now; it was left alone"
    if info.st_size > MAX_COMPARE:
        return b"", info.st_size, ""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
        with os.fdopen(fd, "rb") as fh:
            return fh.read(), info.st_size, ""
    except OSError as exc:
        return None, info.st_size, f"it cannot be read now ({exc.strerror or exc})"


def _mode(path: Path) -> int | None:
    try:
        return stat.S_IMODE(os.stat(path, follow_symlinks=False).st_mode)
    except OSError:
        return None


def _relative(path: Path, root: Path) -> str:
    try:
        return path.relative_to(root).as_posix()
    except ValueError:
        return str(path)


def describe_step(step: FileStep) -> str:
    by = f" ({step.tool})" if step.tool else ""
    if step.action == "delete":
        return f"remove `{step.shown}`: created after this message{by}"
    before = len(step.before or b"")
    now = "missing now" if step.size_now is None else size_text(step.size_now)
    return f"restore `{step.shown}`{by}: {now} → {size_text(before)}"


def size_text(n: int) -> str:
    if n < 1024:
        return f"{n} B"
    if n < 1024 * 1024:
        return f"{n / 1024:.1f} KB"
    return f"{n / (1024 * 1024):.1f} MB"
