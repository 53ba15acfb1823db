"""The tools' side of the checkpoints: :class:`CheckpointHook` passes each change on.

It is what the runtime hands the tools (a ``shell.tools.changes.ChangeLog``). The
session it keeps for changes (``target``), and a tool must never fail because a
checkpoint could not be kept: every call here catches what goes wrong, logs it,
and lets the change go ahead. What was not kept is said back instead (the files
a command changed whose old content did not fit, the checkpoints' problems), so
the command's result tells the user and the model at once (finding X7).
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .checkpoints import Checkpoints

log = logging.getLogger("agent_shell.checkpoints")


class CheckpointHook:
    """What the runtime gives the tools (a ``shell.tools.changes.ChangeLog``): it
    passes each change on to the current session's :class:`Checkpoints`, which
    changes with the session (``target``), and never raises into a tool."""

    def __init__(self) -> None:
        self.target: Checkpoints | None = None
        self._told: tuple[int, int] = (0, 0)
        """``(id of the target, how many of its problems were said)``."""

    def before_write(self, path: Path, before: bytes | None, tool: str) -> None:
        target = self.target
        if target is None:
            return
        try:
            target.before_write(path, before, tool)
        except Exception:
            log.exception("checkpoint before %s of %s failed", tool, path)

    def after_write(self, path: Path, after: bytes | None) -> None:
        target = self.target
        if target is None:
            return
        try:
            target.after_write(path, after)
        except Exception:
            log.exception("checkpoint after a write of %s failed", path)

    def git_before(self, root: Path) -> dict[str, bytes] | None:
        target = self.target
        try:
            return target.git_before(root) if target is not None else None
        except Exception:
            log.exception("the repository's history could not be kept")
            return None

    def git_after(self, root: Path, before: dict[str, bytes]) -> str:
        target = self.target
        try:
            return target.git_after(root, before) if target is not None else ""
        except Exception:
            log.exception("the repository's history could not be compared")
            return ""

    def shell_ran(
        self, command: str, *, sandboxed: bool, files: Sequence[Any] | None, note: str = "",
        tree: Sequence[Any] = (),
    ) -> list[Any]:
        """Record the command; the files whose old content could not be kept (each a
        ``CapturedFile`` with ``kept`` False and ``why``), for its result to say."""
        target = self.target
        if target is None:
            return []
        try:
            return target.shell_ran(command, sandboxed=sandboxed, files=files, note=note, tree=tree)
        except Exception:
            log.exception("checkpoint of a command failed")
            return []

    def take_problems(self) -> list[str]:
        """The checkpoints' problems not said yet (a damaged log read at start, records
        that could not be written): a command's result says them, as nothing else shows
        them and each one is a change ``/rewind`` may not undo."""
        target = self.target
        if target is None:
            return []
        ident, said = self._told
        if ident != id(target):
            said = 0
        new = target.problems[said:]
        self._told = (id(target), len(target.problems))
        return list(new)
