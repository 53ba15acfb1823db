"""Shared config files a sandboxed command changed to name code a linter runs: put back.

``pyproject.toml``, ``package.json``, ``.eslintrc.json`` and the rest of
:data:`.codekeys.NAMES` stay writable for commands (``uv add``, ``npm pkg set``, a
formatter), unlike the runs-later files the guard binds read-only (:mod:`.runslater`).
But the keys of them that name code (pylint's ``init-hook``, mypy's ``plugins``,
ESLint's ``plugins`` and ``parser`` …: :mod:`.codekeys`) run as the user at the next
lint, an editor's lint-on-save included, outside the sandbox, and a file edit of them
asks (:mod:`.configtables`). So before a command each such file of the workspace (the
roots' own names, missing ones too, and those the secret walk listed deeper) is kept as
it was, bytes and keys; after it, one whose keys differ is set back as it was, the
command's version moved to the quarantine (:mod:`.quarantine`: ``/quarantine`` lists it)
and the result says so; a new one that names code is moved there whole, as a new
``.pylintrc`` is. A command's edit that leaves those keys alone stays; one that changes
them and something else too (``uv add`` in the same run) keeps the something else where
only the keys can be set back exactly (:mod:`.configmerge`), and where they cannot, the
result names the edits that were set back with them and how to see them.

A file kept through a symlink (``pyproject.toml -> ../shared/pyproject.toml``) is put back
where the link leads when that is in the workspace (elsewhere is read-only to commands);
a link the command made or repointed is moved out and the old one, or the old file, put
back. Nothing is written through a folder that is a symlink now.
"""

from __future__ import annotations

import glob
import os
import shlex
import stat
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from . import paths
from .codekeys import (
    NAMES,
    REQUIREMENTS_FOLDER,
    REQUIREMENTS_GLOBS,
    SPELLED,
    CodeKeys,
    code_keys,
    config_text,
    keyed_name,
    reads,
    why,
)
from .configmerge import merged, other_edits
from .configtables import MAX_BYTES
from .hookscripts import hooked_keys
from .laterplanted import Planted, move_aside
from .laterseen import Seen
from .lockkeys import NAMES as LOCK_NAMES

if TYPE_CHECKING:
    from .secretfiles import SecretFileIndex

MAX_FILES = 512
"""Config files kept before a command (a monorepo's package.json files; more are not)."""
LOCK_MAX_BYTES = 16 << 20
"""A lock file is read up to this (a big project's package-lock.json is several MB, and it
changes at every install: past the cap each change would only be said)."""
MAX_TOTAL = 32 << 20
"""Bytes kept in all: a file past this is not kept, and a change of its keys is only said."""
ROOT_NAMES = tuple(sorted({*NAMES, *SPELLED}))
"""Looked up right in each root, also when missing (a command may create one)."""
_CREATE = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC
SLACK_NS = 1_000_000_000
"""As :data:`.runslater.SLACK_NS`: a file older than the command by more was not its."""


@dataclass(frozen=True, slots=True)
class Kept:
    """One config file as it was: its marks, and its bytes (None: not a regular file, or
    not kept: ``whole`` says which)."""

    mark: tuple[int, ...] = ()
    """Kind, identity, size and times of the entry and of where a link leads (() missing)."""
    data: bytes | None = None
    whole: bool = True
    """False: a regular file too big to keep (what it names cannot be told)."""
    link: str | None = None
    """Where the entry pointed, when a symlink."""
    mode: int = 0o644
    ctime: int = 0

    def keys(self, name: str, hooked: frozenset[str] = frozenset()) -> CodeKeys | None:
        """Its code-naming keys (parsed only for a file whose marks moved: see :func:`put_back_configs`)."""
        if not self.whole:
            return None
        return {} if self.data is None else code_keys(name, config_text(self.data), hooked)


Configs = Mapping[Path, Kept]
_last: dict[Path, Kept] = {}
"""Each file as last read: one whose marks did not move is not read again (its ctime
moves with any write, and nothing sets it back)."""


def config_files(index: SecretFileIndex, roots: Sequence[Path]) -> list[Path]:
    """The config files to keep: each root's own names, then those the last walk listed."""
    found = [root / name for root in roots for name in ROOT_NAMES]
    listed = index.files_where([*ROOT_NAMES, *REQUIREMENTS_GLOBS], MAX_FILES, links=True)  # links too
    found += [p for p in listed if reads(keyed_name(p))]  # not a Makefile.in
    for root in roots:  # pip-tools' requirements/*.txt at each root (every .txt of a tree: too many)
        pattern = os.path.join(glob.escape(str(root / REQUIREMENTS_FOLDER)), "*.txt")
        found += [Path(p) for p in sorted(glob.glob(pattern))[:64]]
    return list(dict.fromkeys(found))


def snapshot_configs(files: Iterable[Path]) -> dict[Path, Kept]:
    """Each of ``files`` as it is now (bounded: see :data:`MAX_TOTAL`)."""
    out: dict[Path, Kept] = {}
    total = 0
    for path in files:
        kept = read(path, keep=total < MAX_TOTAL)
        total += len(kept.data or b"")
        out[path] = kept
    if len(_last) > 4 * MAX_FILES:
        _last.clear()
    _last.update(out)
    return out


def read(path: Path, keep: bool = True) -> Kept:
    """``path`` as it is: a regular file (or a link to one) up to :data:`MAX_BYTES` (a lock
    file :data:`LOCK_MAX_BYTES`) is
    read; anything else is marked only."""
    try:
        info = os.lstat(path)
    except OSError:
        return Kept()
    link = None
    mark: tuple[int, ...] = (stat.S_IFMT(info.st_mode), info.st_dev, info.st_ino, info.st_size,
                             info.st_mtime_ns, info.st_ctime_ns)
    real = info
    if stat.S_ISLNK(info.st_mode):
        try:
            link = os.readlink(path)
            real = os.stat(path)
            mark += (real.st_dev, real.st_ino, real.st_size, real.st_mtime_ns, real.st_ctime_ns)
        except OSError:
            return Kept(mark, link=link, ctime=info.st_ctime_ns)
    known = _last.get(path)
    if known is not None and known.mark == mark and (known.whole or not keep):
        return known
    if not stat.S_ISREG(real.st_mode):
        return Kept(mark, link=link, ctime=info.st_ctime_ns)  # a FIFO would hang the read
    mode = real.st_mode & 0o7777
    most = LOCK_MAX_BYTES if path.name.casefold() in LOCK_NAMES else MAX_BYTES
    if real.st_size > most or not keep:
        return Kept(mark, None, False, link, mode, info.st_ctime_ns)
    try:
        with open(path, "rb") as f:
            data = f.read(most + 1)
    except OSError:
        return Kept(mark, None, False, link, mode, info.st_ctime_ns)
    return Kept(mark, data, len(data) <= most, link, mode, info.st_ctime_ns)


def put_back_configs(before: Configs, files: Iterable[Path], quarantine: Path, roots: Sequence[Path],
                     started_ns: int) -> list[Planted]:
    """Compare ``files`` (and those of ``before``) now with before the command (started
    at ``started_ns``): put back what changed the keys that name code (see the module)."""
    out: list[Planted] = []
    for path in dict.fromkeys([*before, *files]):
        was = before.get(path)
        now = read(path)
        if not now.mark or (was is not None and now.mark == was.mark):
            continue  # gone (nothing runs from it), or untouched
        if was is None:
            if now.ctime < started_ns - SLACK_NS:
                continue  # there before, where the walk before the command had not reached
            was = Kept()
        hooked = hooked_keys(path)
        keys = now.keys(keyed_name(path), hooked)
        if keys is not None and keys == (was.keys(keyed_name(path), hooked) if was.mark else {}):
            continue  # an ordinary edit: a version, a dependency, a rule
        out.append(_undo(path, was, now, quarantine, roots, hooked))
    return out


def _undo(path: Path, was: Kept, now: Kept, quarantine: Path, roots: Sequence[Path],
          hooked: frozenset[str] = frozenset()) -> Planted:
    reason = f"{'changed' if was.mark else 'new'}: {why(keyed_name(path))}"
    if not was.mark:
        return move_aside(path, reason, quarantine, roots, Seen("missing"))
    if was.data is None and was.whole:  # not a file before (a folder, a FIFO): nothing to put back
        return move_aside(path, reason, quarantine, roots, Seen("missing"))
    if was.data is None or not was.whole:
        return Planted(path, reason, error="it was too big to keep a copy of before the command, so it was "
                                          "left as the command wrote it")
    target = path
    if was.link is not None and now.link == was.link:  # written through the link: put back where it leads
        target = Path(os.path.realpath(path))
        if not any(paths.within(target, r) for r in roots):
            return Planted(path, reason, error=f"it leads out of the workspace ({target})")
    if os.path.realpath(target.parent) != str(target.parent):
        return Planted(path, reason, error=f"{target.parent} is a symlink now, not the folder it was")
    was_text, now_text = _text(was.data), _text(now.data)
    keep = None
    if was_text is not None and now_text is not None and was.link == now.link:  # edited, not swapped
        keep = merged(keyed_name(path), was_text, now_text, hooked)
    moved = move_aside(target, reason, quarantine, roots, Seen("missing"))
    if moved.moved_to is None:
        return moved
    try:
        if target == path and was.link is not None:
            os.symlink(was.link, path)
            keep = None
        else:
            fd = os.open(target, _CREATE, was.mode)
            with os.fdopen(fd, "wb") as f:
                f.write(was.data if keep is None else keep.encode("utf-8"))
    except OSError as exc:
        return Planted(target, reason, moved.moved_to, undone=(
            f"moved to {moved.moved_to}, and putting the old one back FAILED ({exc.strerror or exc}): "
            "/quarantine restore puts the command's version back"))
    diff = f"diff -u {shlex.quote(str(target))} {shlex.quote(str(moved.moved_to))}"
    if keep is not None:
        return Planted(target, reason, moved.moved_to, undone=(
            f"only those keys were set back as they were, the command's other edits of it kept; its whole "
            f"version is kept at {moved.moved_to} ({diff} shows what was set back)"))
    name = keyed_name(path)
    lost = other_edits(name, was_text or "", now_text or "", hooked) if was_text is not None else []
    if lost:
        told = (f"the command's other edits of it ({', '.join(lost)}) were set back too and are only in "
                f"its version, kept at {moved.moved_to}: {diff} shows them; make them yourself if you want")
    else:
        told = (f"the command's version is kept at {moved.moved_to} (compare the two: {diff}, and make the "
                "change yourself if you want it)")
    return Planted(target, reason, moved.moved_to, undone=f"set back as it was; {told}")


def _text(data: bytes | None) -> str | None:
    """A config's bytes as text; None when not UTF-8 (not merged: its bytes are set back)."""
    if data is None:
        return None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return None


__all__ = ["Configs", "Kept", "ROOT_NAMES", "config_files", "put_back_configs", "read", "snapshot_configs"]
