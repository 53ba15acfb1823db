"""What the tools tell whoever keeps checkpoints: a file is about to change, a command ran.

The tools do not know sessions (they sit beside them, not above): the runtime
hands :func:`~shell.tools.builtin.builtin_tools` an object with these two methods
(:class:`~shell.sessions.checkpoints.CheckpointHook` in the shell), and the tools
call it. Both calls come from worker threads and must not raise: a checkpoint
that cannot be kept is recorded as such, and the change goes ahead.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Literal, Protocol


@dataclass(frozen=True, slots=True)
class CapturedFile:
    """One file a sandboxed command changed, created or deleted, as it was before."""

    path: Path
    """Absolute, resolved (inside the workspace)."""
    before: bytes | None
    """Its content before the command; None when it did not exist (it was created)."""
    mode: int | None = None
    """Its permission bits before (None when it did not exist)."""
    kept: bool = True
    """False: it changed, but its previous content was not kept (``why`` says why)."""
    why: str = ""
    after: bytes | None = None
    """What the command left in it (None: it deleted it, or it was too big to read)."""
    deleted: bool = False
    """The command removed it."""


@dataclass(frozen=True, slots=True)
class TreeChange:
    """A folder a sandboxed command renamed or a symlink it made: what ``/rewind``
    undoes besides files' contents (tester finding K17)."""

    kind: Literal["rename", "link"]
    path: Path
    """rename: the new name; link: the symlink (absolute, in the workspace)."""
    other: str
    """rename: the old name (absolute); link: where it leads, as it was made."""


class ChangeLog(Protocol):
    """Receives every change the built-in tools make to the workspace."""

    def before_write(self, path: Path, before: bytes | None, tool: str) -> None:
        """``path`` is about to be written by ``tool``; ``before`` is its content now
        (None: it does not exist yet)."""

    def after_write(self, path: Path, after: bytes | None) -> None:
        """``path`` was written; ``after`` is what the tool left there (None: unknown).
        A rewind compares it with the file then, so it never destroys a later change
        that someone else (the user) made."""

    def shell_ran(
        self, command: str, *, sandboxed: bool, files: Sequence[CapturedFile] | None, note: str = "",
        tree: Sequence[TreeChange] = (),
    ) -> Sequence[CapturedFile] | None:
        """``run_shell`` ran ``command``. ``files``: what it changed in the workspace,
        when that could be captured (sandboxed commands); None when it could not.
        ``tree``: the folders it renamed and symlinks it made. Returns the files whose
        old content could not be kept after all (``kept`` False, ``why``): the
        command's result says them."""
