"""git run in a way the word reading cannot see its subcommand (tester finding C16).

:func:`.githistory.history_reader` reads git's words from the command line. Three shapes
run git while those words say nothing, and ran unasked while the history held a
committed ``.env``:

- a feeder gives git its words when it runs: ``echo log -p | xargs git``,
  ``xargs -I{} git {}``, ``parallel git ::: log``;
- git under another name: ``cp /usr/bin/git /tmp/g && /tmp/g log -p``, a link, or a copy
  left in the workspace by an earlier command (the same file as ``which git``: same inode,
  or same size and content hash);
- an interpreter's code string naming git: ``python3 -c "os.system('git log -p')"``,
  ``perl -e``, ``node -e``, ``awk 'BEGIN{system("git …")}'``.

Each fails closed: the part counts as a history reader, so it asks only while the history
(or the object store) holds a secret file; honest commands in a clean repository stay
quiet. A script file that runs git (``python3 tool.py``) is not read: its text is not on
the command line.
"""

from __future__ import annotations

import hashlib
import os
import re
import shutil
from functools import lru_cache
from pathlib import Path

from .cmdword import Reading
from .shellwords import read_words
from .wrappers import WRAPPERS

FEEDERS = frozenset({"xargs", "parallel"})
"""Programs that give the command they run words only known when they run."""
_INTERPRETER = re.compile(
    r"(python[0-9.]*|pypy[0-9.]*|perl[0-9.]*|ruby[0-9.]*|node|nodejs|deno|bun|php[0-9.]*|lua[0-9.]*|"
    r"luajit|tclsh[0-9.]*|wish|Rscript|julia|[gm]?awk|busybox|osascript|guile|racket|sbcl|ghci|irb)")
_NAMES_GIT = re.compile(r"(?<![A-Za-z0-9_])git(?![A-Za-z0-9_])")
MAX_HASHED = 64 << 20
"""A file larger than this is not hashed to be compared with git's binary."""


def disguised_git(text: str, reading: Reading, where: Path | None) -> str:
    """Why the part ``text`` (read as ``reading``, run in ``where``) runs git where its
    words do not show the subcommand, or ""."""
    fed = False
    for command in reading.commands:
        if not command:
            continue
        head = command[0].text
        if head in FEEDERS:
            fed = True
            continue
        if head == "git" or head.startswith("git-"):
            if fed:
                return f"{text[:60]} (git given its words by xargs/parallel when it runs)"
            continue
        if _INTERPRETER.fullmatch(head) and any(_NAMES_GIT.search(w.text) for w in command[1:]):
            return f"{text[:60]} (an interpreter's code naming git)"
    words = [w.text for w in read_words(text) or []]
    for command in reading.commands:
        head = command[0].text if command else "git"
        if head in ("git", "scalar") or head.startswith("git-"):
            continue
        # `cp /usr/bin/git /tmp/g`: the copy runs later in the line, or in a later command
        args = [] if head in WRAPPERS else [w.text for w in command[1:] if "/" in w.text]
        heads = [w for w in words if w == head or w.endswith("/" + head)]
        found = shutil.which(head) if "/" not in head else None
        for name in [*args, *heads]:
            if "/" in name and is_git_binary(_resolve(name, where)):
                return f"{text[:60]} ({name} is git's program under another name)"
        if found is not None and is_git_binary(Path(found)):
            return f"{text[:60]} ({head} is git's program under another name)"
    return ""


def _resolve(word: str, where: Path | None) -> Path | None:
    path = Path(os.path.expanduser(word))
    if path.is_absolute():
        return path
    return where / path if where is not None else None


def is_git_binary(path: Path | None) -> bool:
    """Whether ``path`` is git's program: the same file as ``which git`` (or one of git's
    own programs), or a copy of it (same size, same SHA-256)."""
    if path is None:
        return False
    try:
        info = os.stat(path)
    except (OSError, ValueError):
        return False
    if not os.path.isfile(path):
        return False
    git = _git_identity()
    if git is None:
        return False
    ident, size, digest = git
    if (info.st_dev, info.st_ino) == ident:
        return True
    if info.st_size != size or size > MAX_HASHED:
        return False
    return _digest(str(path), info.st_mtime_ns, info.st_size, info.st_ino) == digest


@lru_cache(maxsize=1)
def _git_identity() -> tuple[tuple[int, int], int, str] | None:
    found = shutil.which("git")
    if found is None:
        return None
    try:
        info = os.stat(found)
    except OSError:
        return None
    digest = _digest(found, info.st_mtime_ns, info.st_size, info.st_ino)
    return (info.st_dev, info.st_ino), info.st_size, digest


@lru_cache(maxsize=64)
def _digest(path: str, _mtime: int, _size: int, _ino: int) -> str:
    hashed = hashlib.sha256()
    try:
        with open(path, "rb") as f:
            for chunk in iter(lambda: f.read(1 << 20), b""):
                hashed.update(chunk)
    except OSError:
        return ""
    return hashed.hexdigest()


__all__ = ["FEEDERS", "disguised_git", "is_git_binary"]
