"""What ``/rewind`` undoes besides files' contents: the folders a sandboxed command
renamed and the symlinks it made (tester finding K17).

After ``mv sub sub_old && ln -s ~/target sub`` a rewind that only put files back
left ``sub`` a symlink out of the workspace and the user's files under ``sub_old/``:
the tree was not the one the user had, and the next ``rm -rf sub/*`` or build acted
on the home folder. So a rewind of files first removes each symlink a command made
(only while it still leads where the command pointed it) and renames each folder back
(only while nothing stands at the old name and no symlink is in either path), newest
command first; then the files are planned again on the tree as it is now. What it
refuses is said with why, and left as it is.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from .core.textsafety import sanitize_line

if TYPE_CHECKING:
    from .sessions.checkpoints import ShellRun


@dataclass(frozen=True, slots=True)
class TreeStep:
    """One rename or symlink a rewind undoes (``why``: why it will not, empty when it will)."""

    kind: Literal["rename", "link"]
    path: Path
    """rename: where the folder is now; link: the symlink."""
    other: str
    """rename: the name it goes back to; link: where the command pointed it."""
    shown: str
    why: str = ""
    other_shown: str = ""

    def describe(self) -> str:
        """The step as the plan says it (Markdown)."""
        if self.kind == "link":
            what = f"remove the symlink `{self.shown}` a command made (to `{sanitize_line(self.other)}`)"
        else:
            what = f"rename `{self.shown}` back to `{self.other_shown}` (a command renamed it)"
        return f"{what}: **not done**, {self.why}" if self.why else what


def plan(commands: Sequence[ShellRun], root: Path) -> list[TreeStep]:
    """The renames and symlinks of ``commands`` to undo, newest first, each checked
    against the tree as it is now."""
    steps: list[TreeStep] = []
    freed: set[Path] = set()
    for run in sorted(commands, key=lambda r: r.seq, reverse=True):
        links = [t for t in run.tree if t[0] == "link"]
        entries = links + [t for t in reversed(run.tree) if t[0] == "rename"]
        for kind, path, other in entries:
            where = Path(path)
            if kind == "link":
                why = _link_refused(where, other, root)
                if not why:
                    freed.add(where)
                steps.append(TreeStep("link", where, other, _shown(where, root), why))
            else:
                why = _rename_refused(where, Path(other), root, freed)
                if not why:
                    freed.add(where)
                    freed.discard(Path(other))
                shown = _shown(where, root)
                steps.append(TreeStep("rename", where, other, shown, why, _shown(Path(other), root)))
    return steps


def describe(steps: Sequence[TreeStep]) -> list[str]:
    """The plan's lines for ``steps`` (none when there are none)."""
    if not steps:
        return []
    return ["- Renames and symlinks commands made, undone first (the files below are then looked at "
            "again on that tree):", *(f"  - {step.describe()}" for step in steps)]


def apply(steps: Sequence[TreeStep], root: Path) -> tuple[list[str], list[str]]:
    """Undo what ``steps`` will undo, checking each again just before: what was done,
    and what was not (with why)."""
    done: list[str] = []
    failed: list[str] = []
    for step in steps:
        if step.why:
            failed.append(f"`{step.shown}` ({step.why})")
            continue
        try:
            if step.kind == "link":
                why = _link_refused(step.path, step.other, root)
                if not why:
                    os.unlink(step.path)
                    done.append(f"removed the symlink `{step.shown}`")
            else:
                back = Path(step.other)
                why = _rename_refused(step.path, back, root, set())
                if not why:
                    os.rename(step.path, back)
                    done.append(f"renamed `{step.shown}` back to `{_shown(back, root)}`")
        except OSError as exc:
            why = exc.strerror or str(exc)
        if why:
            failed.append(f"`{step.shown}` ({why})")
    return done, failed


def _shown(path: Path, root: Path) -> str:
    try:
        return sanitize_line(path.relative_to(root).as_posix())
    except ValueError:
        return sanitize_line(str(path))


def _real_parent(path: Path, root: Path) -> bool:
    """Whether ``path``'s folder is where its name says, inside ``root`` (no symlink on the way)."""
    parent = os.path.realpath(path.parent)
    return (parent == str(root) or parent.startswith(str(root) + os.sep)) and parent == str(path.parent)


def _link_refused(path: Path, target: str, root: Path) -> str:
    if not _real_parent(path, root):
        return "a symlink or a folder outside the workspace is in its path now"
    try:
        now = os.readlink(path)
    except FileNotFoundError:
        return "it is gone already"
    except OSError:
        return "it is not a symlink now"
    if now != target:
        return f"it leads to `{sanitize_line(now)}` now, not where the command pointed it"
    return ""


def _rename_refused(path: Path, back: Path, root: Path, freed: set[Path]) -> str:
    if not (_real_parent(path, root) and _real_parent(back, root)):
        return "a symlink or a folder outside the workspace is in its path now"
    if os.path.islink(path) or not os.path.exists(path):
        return "it is not there now"
    if os.path.lexists(back) and back not in freed:
        return f"`{_shown(back, root)}` stands there now"
    return ""


__all__ = ["TreeStep", "apply", "describe", "plan"]
