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

import json
import os
import re
import stat
from collections.abc import Sequence
from pathlib import Path

from shell.core.textsafety import path_text

PROC_NET_UNIX = "/proc/net/unix"
MAX_LINES = 50_000
"""Lines of the kernel's list read at most (a busy host has thousands; a command
must not wait for a pathological one)."""

SOCKET_FOLDERS = ("/run/screen", "/var/run/screen")
"""Folders of control pipes that are not always sockets (GNU screen can be built
with named pipes, which the kernel's socket list does not name)."""


def host_sockets(listing: str = PROC_NET_UNIX, roots: Sequence[Path] = ()) -> list[Path]:
    """Every path-named unix socket the kernel lists that still exists as a socket
    (abstract ones, ``@name``, are cut off by the sandbox's own network namespace). The
    kernel lists a name as it was bound: a server started in the workspace that bound
    ``run/db.sock`` is listed so, which is looked for in each of ``roots``."""
    found: dict[str, Path] = {}
    try:
        with open(listing, encoding="utf-8", errors="surrogateescape") as lines:
            next(lines, None)  # the header
            for count, line in enumerate(lines):
                if count >= MAX_LINES:
                    break
                fields = line.split(None, 7)
                if len(fields) < 8 or fields[7].startswith("@"):
                    continue
                name = fields[7].rstrip("\n")
                places = [name] if name.startswith("/") else [os.path.join(r, name) for r in roots]
                for path in places:
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


MAX_NAMED = 5
"""Sockets a result names at most."""

_REFUSED = re.compile(r"connection refused|ECONNREFUSED|Errno 111\b", re.IGNORECASE)


def blocked(hidden: Sequence[Path], roots: Sequence[Path]) -> list[Path]:
    """The sockets among the paths the sandbox covers that lie in the workspace (its
    ``roots``): a server the user runs there, outside the sandbox (tester finding K13)."""
    return sorted(p for p in hidden if _is_socket(str(p)) and any(r in p.parents for r in roots))


def blocked_note(sockets: Sequence[Path], output: str, roots: Sequence[Path]) -> list[str]:
    """What a command's result says when it may have failed on a workspace socket the
    sandbox covered: connecting is refused, which reads like a server that is down, so
    neither the model nor the user would know that it is the sandbox, nor that one line
    of config opens it. Said when the output names a covered socket or a refused
    connection; the sockets it names come first."""
    if not sockets:
        return []
    named = [p for p in sockets if p.name in output]
    if not named and not _REFUSED.search(output):
        return []
    shown = [_relative(p, roots) for p in [*named, *(p for p in sockets if p not in named)]][:MAX_NAMED]
    more = f" and {len(sockets) - len(shown)} more" if len(sockets) > len(shown) else ""
    listed = ", ".join(path_text(s) for s in shown)
    line = f"[sandbox] sockets = [{json.dumps(path_text(shown[0]))}]"
    many = "s" if len(sockets) > 1 else ""
    return [f"[agent-shell: the sandbox blocked the unix socket{many} {listed}{more} in the workspace: "
            "connecting is refused. A server you run outside the sandbox listens there (a dev database that "
            "trusts local connections can run commands as you). If this command needs it, ask the user: "
            f"they can open it with `{line}` in agent-shell's config.toml (`agent-shell config` shows "
            "where), then run the command again.]"]


def _relative(path: Path, roots: Sequence[Path]) -> str:
    """How ``[sandbox] sockets`` names it: relative to the workspace (the first root)."""
    if roots and roots[0] in path.parents:
        return path.relative_to(roots[0]).as_posix()
    return str(path)
