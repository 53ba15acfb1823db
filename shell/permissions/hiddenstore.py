"""git's history readers, while git's object store holds a hidden secret file (finding P6).

The sandbox hides the workspace's ``.env`` from commands, but git keeps what it once
saw of it: an untracked ``.env`` stashed with ``git stash -u``, or staged and unstaged,
is a blob in the object store, and ``git cat-file --batch-all-objects --batch``, ``git
fsck --unreachable`` then ``git cat-file -p``, ``git log --all -p`` or ``git stash show -p
--include-untracked`` print it. The values net (:mod:`.hiddenvalues`) redacts its values
where they are printed as they are; a pipe that reverses them, changes their case,
spaces or cuts them (``| rev``, ``| tr a-z A-Z``, ``| cut -c1-30``) is past it. So while
the object store holds the content of one of the hidden secret files (with values worth
hiding), a command that runs one of git's history readers (:mod:`.githistory`, the same
front doors a deny rule asks for) asks in every mode but bypass, whatever allow rules
say, naming the file; the values net stays the second net, also for an approved one.

"Holds" is checked exactly and cheaply: the blob id of the file's content (as it is,
and with CRLF line ends made LF, as ``core.autocrlf`` stores it) is looked up with one
``git cat-file --batch-check`` (hardened: :mod:`.githardened`). An older version of the
file, with values since changed, is not found; the net has only today's values either
way. A script that reads the object store itself is not caught (git's front doors only,
as for deny rules).
"""

from __future__ import annotations

import hashlib
import os
import stat
from collections.abc import Iterable
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING

from shell.core.textsafety import path_text

from . import githardened, paths
from .githistory import history_reader
from .gitstaged import repository_of
from .gitstorewide import store_wide_question
from .hiddenvalues import MAX_FILE_BYTES, file_values
from .historysecrets import REDACTED_SPELLINGS, history_secret_question
from .indexsecrets import staged_secret_question

if TYPE_CHECKING:
    from .sandbox import Sandbox

MAX_FILES = 32
"""Hidden files looked up in the object store for one command."""


def stored_secret_question(name: str, command: str, root: Path, sandbox: Sandbox | None) -> str:
    """The question for a call of the tool ``name`` running ``command`` while the object
    store holds one of the secret files the sandbox hides (its last search), or a secret
    file only the history holds (:mod:`.historysecrets`), or it reads objects no ref
    reaches (:mod:`.gitstorewide`), or ""."""
    searched = sandbox.secrets_searched() if sandbox is not None else None
    hidden = searched.paths if searched is not None else ()
    found = stored_hidden_file(command, root, hidden)
    if found is None:  # nested repositories' histories too (finding C3): the walk saw their .git
        seen = searched.runs_later if searched is not None else ()
        # then objects no ref reaches (finding C13): no file name tells whether they are secret
        return (history_secret_question(name, command, root, seen)
                or staged_secret_question(name, command, root) or store_wide_question(name, command, root))
    return reads_stored_secret(name, found[0], paths.relative(found[1], root) or str(found[1]))


def stored_hidden_file(command: str, root: Path, hidden: Iterable[Path]) -> tuple[str, Path] | None:
    """The history reader ``command`` runs and the first of the ``hidden`` secret files
    (with values worth hiding) whose content git's object store holds, or None."""
    reader = history_reader(command, root, moves=True)  # hidden files exist: the sandbox hides them
    if not reader:
        return None
    by_repo: dict[Path, list[Path]] = {}
    for path in list(hidden)[:MAX_FILES]:
        repo = repository_of(path)
        if repo is not None and file_values(path):
            by_repo.setdefault(repo, []).append(path)
    for repo, files in by_repo.items():
        found = _stored(repo, files)
        if found is not None:
            return reader, found
    return None


def reads_stored_secret(name: str, reader: str, shown: str) -> str:
    """The question for such a command."""
    return (f"{name} runs `{reader}`, which prints file contents from git's object store, and the store "
            f"holds the content of {path_text(shown)}, a secret file hidden from the model (once stashed or "
            f"staged): its values would be printed without the file being named. {REDACTED_SPELLINGS} "
            "Approving lets this one command run, and what it prints goes to the model's provider; allow "
            "rules do not cover it.")


def _stored(repo: Path, paths: list[Path]) -> Path | None:
    """The first of ``paths`` whose content is a blob in ``repo``'s object store."""
    algorithm = _object_format(repo)
    wanted: dict[str, Path] = {}
    for path in paths:
        data = _content(path)
        if data is None:
            continue
        for form in dict.fromkeys((data, data.replace(b"\r\n", b"\n"))):
            wanted.setdefault(_blob_id(form, algorithm), path)
    if not wanted:
        return None
    done = githardened.run(["-C", str(repo), "cat-file", "--batch-check"],
                           stdin="".join(f"{oid}\n" for oid in wanted).encode())
    if done is None or done.returncode != 0:
        return None
    for line in done.stdout.decode("ascii", "replace").splitlines():
        oid, _, kind = line.partition(" ")
        if kind.startswith("blob") and oid in wanted:
            return wanted[oid]
    return None


def _content(path: Path) -> bytes | None:
    """The file's bytes when it is a regular file of at most :data:`MAX_FILE_BYTES` (not a
    FIFO put in its place: opened without waiting, checked once open)."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError:
        return None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode) or info.st_size > MAX_FILE_BYTES:
            return None
        return os.read(fd, MAX_FILE_BYTES)
    except OSError:
        return None
    finally:
        os.close(fd)


def _blob_id(data: bytes, algorithm: str) -> str:
    header = b"blob %d\0" % len(data)
    return hashlib.new(algorithm, header + data).hexdigest()


@lru_cache(maxsize=64)
def _object_format(repo: Path) -> str:
    """``sha1`` or ``sha256``: what the repository names its objects by (fixed at ``git init``)."""
    done = githardened.run(["-C", str(repo), "rev-parse", "--show-object-format"])
    said = done.stdout.decode("ascii", "replace").strip() if done is not None and done.returncode == 0 else ""
    return "sha256" if said == "sha256" else "sha1"


__all__ = ["reads_stored_secret", "stored_hidden_file", "stored_secret_question"]
