"""Which repositories inside the workspace a command line names: the nested ones whose
history :mod:`.historysecrets` searches when the command is read, not only when the walk
saw them.

The walk's nested repositories are searched at most :data:`.historysecrets.MAX_NESTED`
(16, each a thread of its own), and one the walk never reached (past its bounds, in a
folder it skips) not at all: with 20 project folders, ``git -C p19 log -p`` printed the key
``p19``'s history held, unasked and unredacted, as long as the first 16 held none. A command
reaches another repository through a path it spells (``git -C p19``, ``cd vendor/lib &&``,
``--git-dir=p19/.git``, ``GIT_DIR=p19/.git``, a glob ``p*``): each word of the line that
names a folder of the workspace inside a repository other than the workspace's own is such
a place, searched then (lazily, bounded). A place known only when the line runs (``git -C
$d``) is not named: :func:`.historysecrets.history_secret_question` asks then when the walk
saw more repositories than it searched.
"""

from __future__ import annotations

import glob
import itertools
import os
import re
from collections.abc import Collection
from pathlib import Path

from .gitstaged import repository_of

MAX_WORDS = 256
"""Words of one line looked at as paths."""
MAX_GLOB = 64
"""Folders one glob word stands for, looked at."""
MAX_NAMED = 16
"""Repositories one line names that are searched for it."""
_WORD = re.compile(r"[^\s=;&|()<>'\"`]+")
_GLOB = re.compile(r"[*?\[]")


def named_repositories(command: str, root: Path, searched: Collection[Path]) -> tuple[Path, ...]:
    """The work trees of the repositories under ``root`` (a real path) that the words of
    ``command`` name, other than ``root``'s own and those ``searched`` already."""
    own = repository_of(root / "_")
    out: list[Path] = []
    for word in itertools.islice(_WORD.finditer(command), MAX_WORDS):
        for folder in _folders(word.group(), root):
            repo = repository_of(folder / "_")
            if repo is None or repo == own or repo in searched or repo in out or root not in repo.parents:
                continue
            out.append(repo)
            if len(out) >= MAX_NAMED:
                return tuple(out)
    return tuple(out)


def _folders(word: str, root: Path) -> list[Path]:
    """The folders of the workspace ``word`` names (a path, relative to ``root`` or not; a glob)."""
    text = (word[2:] if word.startswith("-C") else word).rstrip("/")  # `env -Cp19 git …`
    if not text or text.startswith("-"):
        return []
    base = text if os.path.isabs(text) else os.path.join(root, text)
    found = list(itertools.islice(glob.iglob(base), MAX_GLOB)) if _GLOB.search(text) else [base]
    out = []
    for path in found:
        normal = Path(os.path.normpath(path))
        if normal != root and root not in normal.parents:
            continue
        if normal.name == ".git":
            normal = normal.parent
        if os.path.isdir(normal):  # a word too long for a name is no folder (no OSError)
            out.append(normal)
    return out


__all__ = ["MAX_NAMED", "named_repositories"]
