"""git commands that print what history holds, while a deny rule on reading names a
path git tracks (tester finding N2).

The sandbox hides what ``deny read_file(secrets/**)`` names, and a command line that
names such a path asks (``git show HEAD:secrets/plan.txt``). But ``.git`` holds every
committed version, and git's history readers print it without naming the path:
``git grep . HEAD``, ``git log -p``, ``git archive HEAD | tar -xO``, ``git show``,
``git diff HEAD~1``, ``git stash show -p``, a ``git clone`` or ``git worktree add`` the
command then reads. So while such a rule names a path git tracks, a command that runs
one of them asks, naming the rule. These are git's front doors only: a script can read
the object store itself (the question and the README say so); what this stops is the
routine command that would send the denied content to the provider unasked.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from functools import lru_cache
from pathlib import Path

from .cmdword import read_part
from .gitstaged import hardened_git, repository_of
from .shellsplit import split_command
from .shellwords import Word

READERS = frozenset({
    "grep", "archive", "cat-file", "bundle", "fast-export", "format-patch", "blame", "annotate", "difftool",
    "range-diff", "diff-tree", "diff-index", "clone", "worktree", "request-pull", "instaweb", "fsck",
    "unpack-objects", "verify-pack", "show-index",
})  # fmt: skip
"""Subcommands that print, or lay out for reading, file contents from history."""
LOGS = frozenset({"log", "whatchanged", "reflog", "shortlog"})
"""Subcommands that print contents only with a patch option (:data:`PATCH`)."""
PATCH = ("-p", "-u", "--patch", "--patch-with-stat", "--patch-with-raw", "--cc", "-c", "--full-diff",
         "--word-diff", "--color-words", "-S", "-G", "-L", "--pickaxe", "--diff-merges", "-m",
         "--remerge-diff")
NAMES_ONLY = frozenset({"--stat", "--shortstat", "--numstat", "--name-only", "--name-status", "--no-patch",
                        "-s", "--summary", "--dirstat", "--raw", "--oneline"})
"""``git show`` options that print names and counts, not contents (``--oneline`` with a
patch option still prints one: checked after)."""
GLOBAL_TAKES = frozenset({"-C", "-c", "--git-dir", "--work-tree", "--namespace", "--exec-path",
                          "--config-env", "--super-prefix"})


def history_reader(command: str, root: Path) -> str:
    """The first git command of ``command`` that reads file contents from history
    (``git log -p``), or ""."""
    for part in split_command(command).parts:
        if not part.text:
            continue
        for words in read_part(part.text).commands:
            if words and words[0].text == "git":
                found = _reads(words[1:], root)
                if found:
                    return " ".join(w.text for w in words[:8])
    return ""


def _reads(words: Sequence[Word], root: Path) -> bool:
    i = 0
    while i < len(words) and words[i].text.startswith("-"):
        text = words[i].text
        if text.startswith("--work-tree"):
            return True  # a checkout laid out elsewhere, then read
        i += 2 if text in GLOBAL_TAKES else 1
    if i >= len(words):
        return False
    sub, rest = words[i].text, [w.text for w in words[i + 1:]]
    if sub in READERS:
        return True
    if sub in LOGS or (sub == "stash" and rest[:1] == ["show"]):
        return any(r.startswith(PATCH) for r in rest)
    if sub == "show":
        patch = any(r.startswith(PATCH) for r in rest)
        return patch or not any(r in NAMES_ONLY for r in rest)
    if sub == "diff":
        if any(r in ("--cached", "--staged", "--merge-base", "--no-index") for r in rest):
            return True
        operands = [r for r in rest if not r.startswith("-")]
        if "--" in rest:
            operands = [r for r in rest[: rest.index("--")] if not r.startswith("-")]
        return any(not os.path.lexists(root / r) for r in operands)  # a revision, not a path
    return False


def tracked_denied(denied: Sequence[Path]) -> list[Path]:
    """Those of ``denied`` (paths deny rules on reading name) under which git tracks
    files: asked about once per state of the repository's index."""
    out: list[Path] = []
    for path in denied:
        repo = repository_of(path)
        if repo is None:
            continue
        try:
            info = os.stat(repo / ".git" / "index")
            stamp = (info.st_mtime_ns, info.st_size, info.st_ino)
        except OSError:
            stamp = (0, 0, 0)
        if _tracks(repo, str(path.relative_to(repo)), stamp):
            out.append(path)
    return out


@lru_cache(maxsize=128)
def _tracks(repo: Path, rel: str, _stamp: tuple[int, int, int]) -> bool:
    listed = hardened_git(repo, ["ls-files", "-z", "--", rel])
    return listed is None or bool(listed)  # git failing: it may well track it


__all__ = ["history_reader", "tracked_denied"]
