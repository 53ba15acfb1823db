"""Whether a live git other than a command's may own a repository's ``index.lock``.

A sandboxed command's leftover ``.git/index.lock`` keeps agent-shell's skip-worktree
marks set (finding Q22); at exit such a lock was removed when it was unchanged since
the command ended. But a lock that appeared during the command may be the user's own
git's: ``git commit -a`` in another terminal holds it while the editor is open, with
no file descriptor on it, and removing it made that commit fail with a stale index
(tester finding S21). Nothing on the lock says which process made it.

So a lock is taken for the command's only when no live process (this one aside) is a
git whose working directory is in the repository or its git directory, names either
in its environment (``GIT_DIR``, ``GIT_INDEX_FILE``), or holds the lock open: the
command's own processes ended with its sandbox (its pid namespace). A git another user
runs, or one we cannot read in ``/proc``, is not seen: then the lock is removed as
before.
"""

from __future__ import annotations

import contextlib
import os
from pathlib import Path

PROC = Path("/proc")


def holders(repo: Path, gitdir: Path, lock: Path) -> list[int]:
    """The pids of live processes that may own ``lock`` (see the module's docstring)."""
    bases = [os.path.realpath(repo), os.path.realpath(gitdir)]
    target = os.path.realpath(lock)
    out = []
    with contextlib.suppress(OSError):
        for entry in os.scandir(PROC):
            if entry.name.isdigit() and int(entry.name) != os.getpid() and _holds(entry.path, bases, target):
                out.append(int(entry.name))
    return out


def _holds(proc: str, bases: list[str], lock: str) -> bool:
    try:
        with open(os.path.join(proc, "comm"), "rb") as handle:
            name = handle.read().strip()
    except OSError:
        return False
    if name == b"git" or name.startswith(b"git-"):
        try:
            cwd = os.readlink(os.path.join(proc, "cwd"))
        except OSError:
            cwd = ""
        if cwd and any(cwd == b or cwd.startswith(b.rstrip("/") + "/") for b in bases):
            return True
        with contextlib.suppress(OSError), open(os.path.join(proc, "environ"), "rb") as handle:
            env = handle.read(1 << 20)
            if any(os.fsencode(b) in env for b in bases):
                return True
    with contextlib.suppress(OSError):
        for fd in os.scandir(os.path.join(proc, "fd")):
            with contextlib.suppress(OSError):
                if os.readlink(fd.path) == lock:
                    return True
    return False


__all__ = ["holders"]
