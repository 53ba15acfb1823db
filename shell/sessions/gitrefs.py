"""What a rewind may write of the kept refs and reflogs, and how it writes it.

The refs, ``packed-refs`` and reflogs kept before a command (:mod:`.gitkeep`) were
written by whatever ran before: a sandboxed command may have left a ``packed-refs``
line naming ``../../.bashrc``, a ``HEAD`` holding ``ref: ../../../outside``, a
``refs/heads`` that is a symlink out of the workspace, or a reflog of anything.
``/rewind`` runs on the host, so it writes only what git itself would write:

- a ref whose name passes git's ``check-ref-format`` rules, under ``refs/`` (or
  ``HEAD``), holding an object name or ``ref: <such a name>``;
- a reflog at ``logs/HEAD`` or ``logs/<such a name>``, of lines in reflog form;
- never ``config``, hooks, ``info/attributes`` or anything else under ``.git``;
- through folders it made itself or found as real folders inside ``.git``: no
  symlink on the way is followed (:func:`write`).
"""

from __future__ import annotations

import os
import re
import secrets
import stat
from pathlib import Path

TREES = ("refs", "logs")
_BAD_CHARS = re.compile(r"[\x00-\x20\x7f~^:?*\[\\]")
_OBJECT = re.compile(r"(?:[0-9a-f]{40}|[0-9a-f]{64})")
_REFLOG = re.compile(rb"(?:[0-9a-f]{40} [0-9a-f]{40}|[0-9a-f]{64} [0-9a-f]{64}) [^\n]*")


def plain(rel: str) -> bool:
    """A path under .git a rewind may write: relative, no ``..``, under refs/ or logs/ (a
    ``packed-refs`` line a command wrote may name ``../../.bashrc``)."""
    parts = rel.split("/")
    return (rel == "HEAD" or parts[0] in TREES) and all(p not in ("", ".", "..") for p in parts) \
        and "\0" not in rel and "\\" not in rel


def refname_ok(name: str) -> bool:
    """``HEAD`` or a name under ``refs/`` git's ``check-ref-format`` accepts."""
    if name == "HEAD":
        return True
    parts = name.split("/")
    if len(parts) < 2 or parts[0] != "refs" or name.endswith(("/", ".")) or "@{" in name or ".." in name:
        return False
    return not _BAD_CHARS.search(name) and all(
        p and not p.startswith(".") and not p.endswith(".lock") for p in parts)


def value_ok(value: str) -> bool:
    """An object name, or ``ref: <a name refname_ok accepts, not HEAD>``."""
    if value.startswith("ref: "):
        target = value[5:]
        return target != "HEAD" and refname_ok(target)
    return bool(_OBJECT.fullmatch(value))


def reflog_ok(rel: str) -> bool:
    return rel == "logs/HEAD" or (rel.startswith("logs/refs/") and refname_ok(rel[5:]))


def reflog_lines(lines: list[bytes]) -> list[bytes]:
    """The lines in reflog form (``<old> <new> <who> <when>\\t<message>``)."""
    return [line for line in lines if _REFLOG.fullmatch(line)]


def write(gitdir: Path, rel: str, data: bytes) -> bool:
    """Write ``rel`` under ``gitdir``: never through a symlink a command left on the way
    (False: not written)."""
    if not plain(rel):
        return False
    folder = real_folder(gitdir, rel.split("/")[:-1])
    if folder is None:
        return False
    path = folder / rel.rsplit("/", 1)[-1]
    try:
        if not stat.S_ISREG(os.lstat(path).st_mode):
            return False  # a folder or a symlink where the ref goes: left as it is
    except FileNotFoundError:
        pass
    tmp = path.with_name(f".{path.name}.{secrets.token_hex(4)}.tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, 0o644)
    with os.fdopen(fd, "wb") as out:
        out.write(data)
    os.replace(tmp, path)
    return True


def folder_entries(folder: Path) -> list[os.DirEntry[str]]:
    """The entries of ``folder`` that are not symlinks (none when it cannot be read)."""
    try:
        return [e for e in os.scandir(folder) if not e.is_symlink()]
    except OSError:
        return []


def folder_names(folder: Path) -> set[str]:
    """The names in ``folder`` (none when it cannot be read)."""
    try:
        return {e.name for e in os.scandir(folder)}
    except OSError:
        return set()


def real_folder(gitdir: Path, parts: list[str]) -> Path | None:
    """``gitdir/parts…``, each part made or found as a real folder (None: a part is a
    symlink or a file, or ``gitdir`` itself is a symlink)."""
    if gitdir.is_symlink() or not gitdir.is_dir():
        return None
    folder = gitdir
    for part in parts:
        if part in ("", ".", ".."):
            return None
        folder = folder / part
        try:
            os.mkdir(folder, 0o755)
        except FileExistsError:
            pass
        if not stat.S_ISDIR(os.lstat(folder).st_mode):
            return None
    return folder


def read_regular(path: Path, limit: int) -> bytes | None:
    """The regular file at ``path`` (no symlink, no fifo), None when over ``limit`` bytes."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC | os.O_NONBLOCK)
    except OSError:
        return None
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return None
        chunks, size = [], 0
        while size <= limit and (chunk := os.read(fd, 1 << 16)):
            chunks.append(chunk)
            size += len(chunk)
        return b"".join(chunks) if size <= limit else None
    except OSError:
        return None
    finally:
        os.close(fd)
