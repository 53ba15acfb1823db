"""Files opened, written and removed on a resolved path without following a symlink.

The paths come resolved (no symlink left in them) from the workspace check, but a
path can change between that check and the use: a directory swapped for a
symlink to ``/etc``. So every open walks the path one component at a time from
``/`` with ``O_NOFOLLOW`` (:func:`open_resolved`): a symlink that appeared since
is refused, never followed. Writes go through a temporary file created in the
parent directory's file descriptor and renamed there; a new file gets the mode
the umask gives (``0666 & ~umask``), an existing one keeps its own. Kept apart from
what the file tools say (:mod:`.files` reads, :mod:`.file_edits` changes) because
rewind and search open files the same way.
"""

from __future__ import annotations

import contextlib
import errno
import os
import secrets
import stat
from pathlib import Path
from typing import BinaryIO

READ_FLAGS = os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC  # NONBLOCK: a FIFO must not hang the open


class FileToolError(Exception):
    """A file tool could not do what was asked; the message says how to recover."""


class PathChanged(FileToolError):
    """A symlink appeared in a path between the workspace check and its use."""


def open_resolved(path: Path, flags: int = READ_FLAGS, mode: int = 0o666, *, shown: str = "") -> int:
    """Open the resolved, absolute ``path`` without following any symlink in it.

    Walks from ``/`` one component at a time (``openat`` with ``O_NOFOLLOW``);
    since ``path`` had no symlink when it was checked, one found now was swapped
    in meanwhile and the open is refused with :class:`PathChanged`."""
    parts = path.parts
    if path.is_absolute() and len(parts) == 1:  # "/" itself (a workspace at the root): no link in it
        return os.open(parts[0], flags | os.O_CLOEXEC, mode)
    if not path.is_absolute() or len(parts) < 2:
        raise FileToolError(f"{shown or path} is not a file path.")
    fd = os.open(parts[0], os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    last = False
    try:
        for part in parts[1:-1]:
            step = os.open(part, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC, dir_fd=fd)
            os.close(fd)
            fd = step
        last = True
        return os.open(parts[-1], flags | os.O_NOFOLLOW | os.O_CLOEXEC, mode, dir_fd=fd)
    except OSError as exc:
        if exc.errno == errno.ENOTDIR and last:
            raise  # the file itself is not a directory: the caller says so
        if exc.errno in (errno.ELOOP, errno.ENOTDIR, errno.EMLINK):
            raise PathChanged(
                f"{shown or path} changed while it was being opened (a symlink appeared in its path); "
                "it was not opened. Check the path with list_dir and try again."
            ) from None
        if exc.errno == errno.ENOENT:
            raise FileToolError(
                f"No such file: {shown or path}. Use list_dir or glob to find the right path."
            ) from None
        raise
    finally:
        os.close(fd)


def open_parent(path: Path, shown: str = "") -> int:
    """The directory holding ``path``, opened as :func:`open_resolved` opens files."""
    return open_resolved(path.parent, os.O_RDONLY | os.O_DIRECTORY, shown=shown)


def open_regular(path: Path, shown: str) -> BinaryIO:
    """A regular file, opened without following a swapped symlink (see the module docstring)."""
    fd = open_resolved(path, shown=shown)
    info = os.fstat(fd)
    if stat.S_ISDIR(info.st_mode):
        os.close(fd)
        raise FileToolError(f"{shown} is a directory; use list_dir to see what is in it.")
    if not stat.S_ISREG(info.st_mode):
        os.close(fd)
        raise FileToolError(f"{shown} is not a regular file (a pipe, socket or device); it cannot be read.")
    return os.fdopen(fd, "rb")


def read_back(path: Path) -> bytes | None:
    """What a tool just wrote at the resolved ``path`` (None: it is not a regular file
    now, or it cannot be read), without following a symlink."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError:
        return None
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return None
        with os.fdopen(os.dup(fd), "rb") as fh:
            return fh.read()
    except OSError:
        return None
    finally:
        os.close(fd)


def restore_file(path: Path, data: bytes, mode: int | None, shown: str = "") -> None:
    """Put ``data`` back at the resolved ``path`` (a rewind): missing parent
    directories are made and every component is opened without following a
    symlink, so a link planted since cannot redirect the write outside; written
    through a temporary file and renamed, with ``mode`` when given."""
    make_parents(path, shown)
    write_atomically(path, data, shown, mode=mode)


def remove_file(path: Path, shown: str = "") -> bool:
    """Delete the file (or symlink) at the resolved ``path``, through its parent's
    descriptor (a rewind of a file the agent created). False: it was not there."""
    try:
        parent = open_parent(path, shown)
    except FileToolError:
        return False
    try:
        info = os.stat(path.name, dir_fd=parent, follow_symlinks=False)
        if stat.S_ISDIR(info.st_mode):
            raise FileToolError(f"{shown or path} is a directory now; it was left as it is.")
        os.unlink(path.name, dir_fd=parent)
        return True
    except FileNotFoundError:
        return False
    finally:
        os.close(parent)


def make_parents(path: Path, shown: str = "") -> None:
    """Create the missing directories above the resolved ``path``, one component
    at a time from ``/`` without following symlinks (:class:`PathChanged` if one is
    in the way)."""
    parts = path.parts[:-1]
    fd = os.open(parts[0], os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    try:
        for part in parts[1:]:
            flags = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
            try:
                step = os.open(part, flags, dir_fd=fd)
            except FileNotFoundError:
                with contextlib.suppress(FileExistsError):
                    os.mkdir(part, 0o777, dir_fd=fd)
                try:
                    step = os.open(part, flags, dir_fd=fd)
                except OSError:
                    raise PathChanged(f"{shown or path}: a directory in its path could not be made") from None
            except OSError as exc:
                if exc.errno in (errno.ELOOP, errno.ENOTDIR):
                    raise PathChanged(
                        f"{shown or path} changed (a symlink or a file is in its path); it was not written."
                    ) from None
                raise
            os.close(fd)
            fd = step
    finally:
        os.close(fd)


def write_atomically(path: Path, content: str | bytes, shown: str = "", *, mode: int | None = None) -> None:
    """Write through a temporary file and rename, both inside the parent directory's
    file descriptor, so a crash never leaves half a file and a swapped symlink is
    replaced, never written through. A new file gets ``0666 & ~umask`` (the kernel
    applies the umask), an existing one keeps its mode (``mode`` overrides both)."""
    parent = open_parent(path, shown)
    try:
        if mode is None:
            try:
                mode = stat.S_IMODE(os.stat(path.name, dir_fd=parent, follow_symlinks=False).st_mode)
            except FileNotFoundError:
                mode = None
        tmp = f".{path.name}.{secrets.token_hex(4)}.tmp"
        flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC
        fd = os.open(tmp, flags, 0o666, dir_fd=parent)
        try:
            with os.fdopen(fd, "wb") as fh:
                if mode is not None:
                    os.fchmod(fh.fileno(), mode)
                fh.write(content.encode("utf-8") if isinstance(content, str) else content)
            os.replace(tmp, path.name, src_dir_fd=parent, dst_dir_fd=parent)
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(tmp, dir_fd=parent)
            raise
    finally:
        os.close(parent)
