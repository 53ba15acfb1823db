"""Paths a sandboxed command could not open anyway, which need no mount to hide them.

Every path the sandbox hides costs bubblewrap a mount, and each mount costs it a read of
the whole mount table (``/proc/self/mountinfo``), so a command's set-up grows with the
square of the mounts (``benchmarks/sandbox_setup.py``: ~1.5 ms a mount on a quiet machine
with few mounts of its own, several times that on one with hundreds). Some of what the
sandbox hides is closed to the user already: ``/etc/shadow`` and the host's ssh keys
(``root:shadow 0640``, ``root 0600``), a container engine's socket whose group the user is
not in. The command runs as the user, with no capabilities and no way to gain any
(bubblewrap sets ``no_new_privs``: a setuid ``unix_chkpwd`` runs unprivileged), and the
file system outside the workspace is read-only (no ``chmod``): what the kernel refuses the
user now it refuses the command, so the mount adds nothing.

Only a path the user may neither read, write nor enter counts (a folder one may enter but
not list still opens a file whose name one knows), never one inside what commands may
write (a file the user owns there could be made readable), and never for root, whom
``os.access`` answers yes. Asked before each command: a path opened to the user since is
hidden again at the next one.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path

from . import paths


def closed_to_commands(path: Path, writable: Sequence[Path]) -> bool:
    """Whether a command could neither read, write nor enter ``path`` (a real path),
    outside ``writable`` (the workspace and the folders commands may write)."""
    if any(paths.within(path, base) for base in writable):
        return False
    return not any(os.access(path, mode) for mode in (os.R_OK, os.W_OK, os.X_OK))


__all__ = ["closed_to_commands"]
