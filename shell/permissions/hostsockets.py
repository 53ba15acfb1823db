"""The host's unix sockets, which a sandboxed command must not reach.

``--unshare-all`` cuts the network and abstract sockets, but a socket with a path
is a door out of the sandbox to whatever listens on it: a GNU screen session
(``screen -X stuff`` types a command into it, run as the user), the system D-Bus,
libvirt and LXD (root to their groups), colima's docker socket, 1Password's or
Bitwarden's ssh agent in the home directory. No list of such tools keeps up, so
the kernel's own list is read: ``/proc/net/unix`` names every socket bound with a
path in this network namespace, which is the one the user's agents and servers
run in. Each is covered with an empty file in the sandbox (connect() is refused).

Sockets inside the workspace are covered too: one that exists before the command
is a server the user runs outside the sandbox (a dev PostgreSQL with its socket in
``./run``, MySQL's ``tmp/mysql.sock``), which trusts local connections and runs
``COPY … TO PROGRAM`` on the host (tester finding K13). A database a test suite
starts inside the command binds its socket later, in the sandbox's own network
namespace, and is not affected; a socket the user wants reachable is named in the
config (``[sandbox] sockets``). Sockets in the private ``/tmp`` and ``/var/tmp`` are
replaced by empty ones already. The cost does not grow with the workspace: the
kernel's list is read, no folder is walked.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

PROC_NET_UNIX = "/proc/net/unix"
MAX_LINES = 50_000
"""Lines of the kernel's list read at most (a busy host has thousands; a command
must not wait for a pathological one)."""

SOCKET_FOLDERS = ("/run/screen", "/var/run/screen")
"""Folders of control pipes that are not always sockets (GNU screen can be built
with named pipes, which the kernel's socket list does not name)."""


def host_sockets(listing: str = PROC_NET_UNIX) -> list[Path]:
    """Every path-named unix socket the kernel lists that still exists as a socket
    (abstract ones, ``@name``, are cut off by the sandbox's own network namespace)."""
    found: dict[str, Path] = {}
    try:
        with open(listing, encoding="utf-8", errors="surrogateescape") as lines:
            next(lines, None)  # the header
            for count, line in enumerate(lines):
                if count >= MAX_LINES:
                    break
                fields = line.split(None, 7)
                if len(fields) < 8 or not fields[7].startswith("/"):
                    continue
                path = fields[7].rstrip("\n")
                if path not in found and _is_socket(path):
                    found[path] = Path(path)
    except OSError:
        return []
    return list(found.values())


def _is_socket(path: str) -> bool:
    try:
        return stat.S_ISSOCK(os.lstat(path).st_mode)
    except (OSError, ValueError):
        return False
