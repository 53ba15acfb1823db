"""Hidden files git does not track, excluded for the git a sandboxed command runs.

The sandbox binds an empty file over a secret file (``.env``) and over a file a deny
rule on reading names. Where git does not track it, git in the sandbox sees a new,
empty, untracked file, and ``git add -A && git commit`` commits it empty (finding P15):
on the host the user's real key then reads as a change to a tracked file, one
``git commit -a`` away from being published. So each repository's ``info/exclude`` is
shown to the command as the user's own lines plus one anchored line per such file:
git in there leaves them untracked, however it is started (a script, ``make``, an npm
script). The user's file is not changed; the copy lives in a private folder of ours.

A repository without one (``init.templateDir`` pointing at a hooks-only template, as
git-secrets' README sets up; JGit and go-git clones) gets an empty ``info/exclude``
made for the command's length, as ``git init`` would make it, to bind the copy over
(:mod:`.gitnet` holds it before the command and releases it after; removed when still
empty).
A ``!.env`` line in ``.gitignore`` beats every exclude: :mod:`.gitnet` takes such a
file out of the index after the command. A name holding a newline cannot be written
as a pattern and is left as before.
"""

from __future__ import annotations

import atexit
import contextlib
import hashlib
import os
import shutil
import stat
import tempfile
import threading
from collections.abc import Iterable
from pathlib import Path

from . import githardened
from .gitstaged import git_dir, index_stamp, repository_of

TIMEOUT = 3.0
HEADER = b"\n# agent-shell: files the sandbox hides from this command, left untracked\n"
SPECIAL = frozenset(b"\\*?[]!# ")

_lock = threading.Lock()
_folder: list[str] = []
_made: dict[Path, tuple[Path, bool, int]] = {}
"""``info/exclude`` made for commands: its work tree, whether ``info/`` was made too, and
how many commands hold it."""
_known: dict[tuple[Path, tuple[str, ...]], tuple[tuple[int, int, int] | None, list[str]]] = {}
"""What git did not track of these paths when the index was in that state."""


def exclude_binds(hidden_files: Iterable[Path]) -> list[tuple[str, Path]]:
    """``(our copy, the repository's info/exclude)`` for each repository holding one of
    ``hidden_files`` (absolute paths bound empty) that git does not track."""
    by_repo: dict[Path, list[str]] = {}
    for path in hidden_files:
        repo = repository_of(path)
        if repo is not None:
            by_repo.setdefault(repo, []).append(path.relative_to(repo).as_posix())
    out: list[tuple[str, Path]] = []
    for repo, rels in sorted(by_repo.items()):
        target = _exclude_file(repo)
        if target is None:
            continue
        untracked = _untracked(repo, rels)
        if not untracked:
            continue
        try:
            with open(target, "rb") as handle:
                own = handle.read(1 << 20)
        except OSError:
            continue
        lines = b"".join(b"/" + _escaped(os.fsencode(r)) + b"\n" for r in untracked if "\n" not in r)
        if lines:
            out.append((_copy(own + HEADER + lines), target))
    return out


def _exclude_file(repo: Path, missing: bool = False) -> Path | None:
    """``info/exclude`` in the git directory git shares among ``repo``'s worktrees,
    when it is a plain file (``missing``: when there is none)."""
    gitdir = git_dir(repo)
    if gitdir is None:
        return None
    pointer = gitdir / "commondir"
    try:
        common = pointer.read_text(errors="replace").strip() if pointer.is_file() else ""
    except OSError:
        return None
    target = Path(os.path.normpath((gitdir / common if common else gitdir) / "info" / "exclude"))
    try:
        info = os.lstat(target)
    except FileNotFoundError:
        return target if missing else None
    except OSError:
        return None
    return target if stat.S_ISREG(info.st_mode) and not missing else None


def hold_exclude(repo: Path) -> Path | None:
    """Before a command: an empty ``info/exclude`` made in ``repo``'s git directory when it
    has none (and ``info/`` when missing), to bind the view over; None when it has one or
    none can be made. Counted: commands running at once share it, and :func:`release`
    removes it after the last."""
    with _lock:
        for made, held in _made.items():
            if held[0] == repo:
                _made[made] = (repo, held[1], held[2] + 1)
                return made
    target = _exclude_file(repo, missing=True)
    if target is None:
        return None
    folder = target.parent
    try:
        if not stat.S_ISDIR(os.lstat(folder.parent).st_mode):
            return None
        made_folder = not os.path.lexists(folder)
        if made_folder:
            os.mkdir(folder, 0o755)
        elif not stat.S_ISDIR(os.lstat(folder).st_mode):
            return None
        os.close(os.open(target, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o644))
    except OSError:
        return None
    with _lock:
        _made[target] = (repo, made_folder, 1)
    return target


def release(target: Path) -> None:
    """After a command: the ``info/exclude`` :func:`hold_exclude` made removed (and the
    ``info/`` made with it) once no command uses it, when still empty: the user's
    repository is left as it was."""
    with _lock:
        held = _made.get(target)
        if held is None:
            return
        if held[2] > 1:
            _made[target] = (held[0], held[1], held[2] - 1)
            return
        del _made[target]
    with contextlib.suppress(OSError):
        if os.lstat(target).st_size == 0:
            os.unlink(target)
            if held[1]:
                os.rmdir(target.parent)


def _untracked(repo: Path, rels: list[str]) -> list[str]:
    """Those of ``rels`` git does not track (nothing at or under them in the index),
    asked again only when the index changed."""
    key, stamp = (repo, tuple(rels)), index_stamp(repo)
    with _lock:
        known = _known.get(key)
    if known is not None and known[0] == stamp:
        return known[1]
    found = _listed(repo, rels)
    if found is not None:
        with _lock:
            if len(_known) >= 256:
                _known.clear()
            _known[key] = (stamp, found)
    return found or []


def _listed(repo: Path, rels: list[str]) -> list[str] | None:
    done = githardened.run(["-C", str(repo), "ls-files", "-z", "--", *(":(literal)" + r for r in rels)],
                           timeout=TIMEOUT)
    if done is None or done.returncode != 0:
        return None
    tracked = [os.fsdecode(n) for n in done.stdout.split(b"\0") if n]
    return [r for r in dict.fromkeys(rels) if not any(t == r or t.startswith(r + "/") for t in tracked)]


def _escaped(name: bytes) -> bytes:
    """``name`` as a gitignore pattern matching only itself."""
    return b"".join(b"\\" + bytes([c]) if c in SPECIAL else bytes([c]) for c in name)


def _copy(content: bytes) -> str:
    """A read-only file of ours holding ``content`` (one per content, gone at exit)."""
    with _lock:
        if not _folder or not os.path.isdir(_folder[0]):
            _folder[:] = [tempfile.mkdtemp(prefix="agent-shell-exclude-")]
            atexit.register(shutil.rmtree, _folder[0], True)
        folder = _folder[0]
    path = os.path.join(folder, hashlib.sha256(content).hexdigest()[:32])
    if not os.path.isfile(path):
        fd, scratch = tempfile.mkstemp(dir=folder)
        with os.fdopen(fd, "wb") as out:
            out.write(content)
        os.chmod(scratch, 0o444)
        os.replace(scratch, path)
    return path


__all__ = ["exclude_binds", "hold_exclude", "release"]
