"""What of the host every sandboxed command is kept from, whatever the workspace: the
password hashes and host keys, the sockets of servers outside the sandbox, the shell's own
config, data and temporary files; and the path arithmetic the sandbox hides them with.

Kept apart from how a command is wrapped (:mod:`.sandbox`), which adds the workspace's own
secrets, the rules' paths and the home directory's stores to this list.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Sequence
from pathlib import Path

from . import paths
from .hostsockets import SOCKET_FOLDERS

SYSTEM_SECRET_PATHS = (
    "/etc/shadow", "/etc/gshadow", "/etc/shadow-", "/etc/gshadow-", "/etc/security/opasswd",
    "/etc/ssh/ssh_host_rsa_key", "/etc/ssh/ssh_host_ecdsa_key", "/etc/ssh/ssh_host_ed25519_key",
    "/etc/ssh/ssh_host_dsa_key",
    "/run/docker.sock", "/var/run/docker.sock", "/run/containerd", "/run/podman", "/run/user",
    *SOCKET_FOLDERS,
)  # fmt: skip
"""Sockets that would let a command act outside the sandbox (the rest: :mod:`.hostsockets`),
and the password hashes and host keys a command run as root could read."""


def own_dirs() -> list[Path]:
    """The shell's own config, data, state and cache dirs (hidden from commands)."""
    import platformdirs

    from shell.core.dirs import config_dir, data_dir

    app = "agent-shell"
    return [
        config_dir(),
        data_dir(),
        Path(platformdirs.user_state_dir(app, appauthor=False)),
        Path(platformdirs.user_cache_dir(app, appauthor=False)),
    ]


OWN_TEMP = "agent-shell-"
"""How the shell's own temporary folders and files start (``--no-session`` checkpoints:
prompts and files as they were before edits; git's staged copies of secret files;
git configs shown without credentials; a launch's options)."""


PRIVATE_TEMP = (Path("/tmp"), Path("/var/tmp"))
"""Replaced by empty folders in the sandbox: what the host keeps there is not seen."""


def own_temp(binds: Sequence[Path]) -> list[Path]:
    """The shell's own entries in the temporary folder (of this process and any other),
    unless the sandbox's empty ``/tmp`` hides them already: when a writable root holds
    that folder (``cd /tmp && agent-shell``), and when ``TMPDIR`` is elsewhere (``~/tmp``,
    ``/scratch/$USER`` on shared hosts), where the read-only root showed every command
    the staged copies of secret files, scrubbed git configs and ``--no-session``
    checkpoints (finding Q15)."""
    tmp = Path(os.path.realpath(tempfile.gettempdir()))
    if under(tmp, PRIVATE_TEMP) and not under(tmp, binds):
        return []
    try:
        with os.scandir(tmp) as entries:
            return [Path(e.path) for e in entries if e.name.startswith(OWN_TEMP)]
    except OSError:
        return []


def outermost(found: list[Path]) -> list[Path]:
    """``found`` without what lies inside another of its paths: bubblewrap cannot mount
    over a file in a folder it already replaced (and need not)."""
    kept: list[Path] = []
    for path in sorted(dict.fromkeys(found), key=lambda p: len(p.parts)):
        if not any(paths.within(path, outer) for outer in kept):
            kept.append(path)
    return kept


def linked_into(path: Path, bases: Sequence[Path]) -> bool:
    """Whether ``path`` is a symlink (or lies behind one) that leads into ``bases``."""
    if not bases or not os.path.lexists(path):
        return False
    real = Path(os.path.realpath(path))
    return real != path and under(real, bases)


def under(path: Path, bases: Sequence[Path]) -> bool:
    return any(paths.within(path, base) for base in bases)
