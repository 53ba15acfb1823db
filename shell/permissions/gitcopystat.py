"""Git's cached file times of tracked secret files shown as their staged copies, made the
copies' own before a command, so git in the sandbox sees them unchanged (finding Y8).

The sandbox binds git's staged copy (a file of ours) over a tracked secret file that holds
no values (:mod:`.gitstaged`). Its content is what the index holds, but its inode and
times are not what the index cached for the path, so to git it looks touched. ``git
status`` then hashes it and finds it clean, but ``git reset --hard``, ``git restore .``
and ``git checkout -f`` rewrite every entry that looks touched: they unlink the file,
which a bind refuses ("Device or resource busy"), and reset stops half-way, after
deleting other files, with HEAD and the index unmoved. So before the command the index
is told the copy's times: hardened ``git update-index --refresh`` runs with a work tree
of ours in which each such path is a hard link to its copy (the same inode and times the
bind shows) and nothing else (``--ignore-missing``: no other entry is touched). Git then
leaves the file alone unless the command really changes it, where it still stops at the
bind (:mod:`.gitstopped` says so) or, for a checkout, the file is brought along after
(:mod:`.gitcopysync`). The links are kept while the copies are (a link removed would
change the copy's ctime, which git compares). Outside the sandbox the user's git sees
other times than the real file's, hashes it once, and caches the real ones again.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import threading
from collections.abc import Mapping
from pathlib import Path

from . import githardened
from .gitstaged import git_dir, index_stamp, repository_of

TIMEOUT = 10.0

_lock = threading.Lock()
_done: dict[Path, tuple[tuple[int, int, int] | None, frozenset[tuple[str, str]]]] = {}
"""Per repository: its index as the last restamp left it, and for which copies. Unchanged
since (no git wrote it: the next command in a row), no git runs (the refresh lstat's
every entry: 130-190 ms in a 10,000-file repository on a busy machine)."""


def restamp(copies: Mapping[Path, str]) -> None:
    """For each repository holding some of ``copies`` (secret file → its staged copy), the
    index's cached times of those entries set to their copies' (any failure: left as
    they were; git then stops at the bind as before, and that is said)."""
    by_repo: dict[Path, list[tuple[str, str]]] = {}
    for path, copy in copies.items():
        repo = repository_of(path)
        if repo is not None:
            by_repo.setdefault(repo, []).append((path.relative_to(repo).as_posix(), copy))
    for repo, entries in by_repo.items():
        gitdir, wanted = git_dir(repo), frozenset(entries)
        with _lock:
            if gitdir is None or _done.get(repo) == (index_stamp(repo), wanted):
                continue
        tree = _linked_tree(repo, entries)
        if tree is not None:
            githardened.run([f"--git-dir={gitdir}", f"--work-tree={tree}", "update-index", "-q",
                             "--ignore-missing", "--refresh"], timeout=TIMEOUT)
            with _lock:
                if len(_done) >= 256:
                    _done.clear()
                _done[repo] = (index_stamp(repo), wanted)


def _linked_tree(repo: Path, entries: list[tuple[str, str]]) -> Path | None:
    """A work tree of ours beside the copies (private, hidden from commands) holding, at
    each entry's path, a hard link to its copy; None when none could be made."""
    key = hashlib.sha256(os.fsencode(repo)).hexdigest()[:16]
    made = 0
    tree = Path(entries[0][1]).parent / "trees" / key
    for rel, copy in entries:
        target = tree / rel
        with contextlib.suppress(OSError):
            if os.path.lexists(target) and os.path.samefile(target, copy):
                made += 1
                continue
            target.parent.mkdir(parents=True, exist_ok=True)
            if os.path.lexists(target):
                target.unlink()
            os.link(copy, target)
            made += 1
    return tree if made else None


__all__ = ["restamp"]
