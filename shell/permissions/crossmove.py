"""Moving what a command planted into the quarantine when the two lie on different
file systems (a workspace on a tmpfs or another disk).

``shutil.move`` is a rename on one file system, but a copy and then a delete across
two, and its copy refuses a named pipe, a socket or an unreadable file: a FIFO put
beside ``.vscode/tasks.json`` made the whole move fail, and the task stayed in the
workspace to run at the next folder open (finding M12); a huge sparse file would be
copied in full. So across file systems :func:`move` copies what it can keep (regular
files up to :data:`MAX_COPY` bytes in all, links as links, folders), leaves out the
rest, and removes the planted path whatever the copy managed: what runs later must
not stay. What was left out is said, so the user knows the quarantine's copy is partial.
"""

from __future__ import annotations

import errno
import os
import shutil
import stat
import sys
from pathlib import Path

MAX_COPY = 256 * 1024 * 1024
"""Bytes of file content kept in the quarantine across file systems, per moved path."""


def move(src: Path, dest: Path) -> str:
    """Move ``src`` to ``dest`` (which does not exist); "" when all of it was kept,
    else what the quarantine's copy lacks. Raises :class:`OSError` when ``src`` could
    not be removed (then it is still in place, and the caller says so)."""
    try:
        os.rename(src, dest)
        return ""
    except OSError as exc:
        if exc.errno != errno.EXDEV:
            raise
    left_out = _copy(src, dest)
    _remove(src)
    if not left_out:
        return ""
    shown = ", ".join(left_out[:5]) + (f" and {len(left_out) - 5:,} more" if len(left_out) > 5 else "")
    return f"removed, but the quarantine's copy lacks {shown}"


def _copy(src: Path, dest: Path) -> list[str]:
    """Copy ``src`` to ``dest`` as far as it can be kept; what was left out, and why."""
    left_out: list[str] = []
    budget = MAX_COPY
    stack = [(src, dest)]
    while stack:
        here, there = stack.pop()
        shown = here.relative_to(src.parent)
        try:
            info = os.lstat(here)
            if stat.S_ISDIR(info.st_mode):
                there.mkdir(mode=0o700)
                stack += [(here / name, there / name) for name in sorted(os.listdir(here), reverse=True)]
            elif stat.S_ISLNK(info.st_mode):
                os.symlink(os.readlink(here), there)
            elif not stat.S_ISREG(info.st_mode):
                left_out.append(f"{shown} (not a file: a pipe, socket or device)")
            elif info.st_size > budget:
                left_out.append(f"{shown} ({info.st_size:,} bytes: too big to keep)")
            else:
                shutil.copyfile(here, there, follow_symlinks=False)
                os.chmod(there, stat.S_IMODE(info.st_mode) & 0o700)
                budget -= info.st_size
        except OSError as exc:
            left_out.append(f"{shown} ({exc.strerror or exc})")
    return left_out


def _remove(path: Path) -> None:
    """Remove ``path`` (a folder with all in it); a folder the command made unreadable
    is opened first (it is the user's own file system, and the user's own process)."""
    if not os.path.isdir(path) or os.path.islink(path):
        os.unlink(path)
        return

    def opened(failed: str) -> None:
        os.chmod(os.path.dirname(failed), 0o700)
        if os.path.isdir(failed) and not os.path.islink(failed):
            os.chmod(failed, 0o700)
            shutil.rmtree(failed)
        else:
            os.unlink(failed)

    if sys.version_info >= (3, 12):
        shutil.rmtree(path, onexc=lambda _f, failed, _e: opened(failed))
    else:
        shutil.rmtree(path, onerror=lambda _f, failed, _e: opened(failed))
