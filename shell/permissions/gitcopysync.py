"""Tracked secret files shown as their staged copies, brought along when a command moved git
to another version (finding U9).

A tracked ``.env`` (hidden by its name, no deny rule) is not marked skip-worktree
(:mod:`.gitmarks`): the sandbox shows it as git's staged copy, which git sees unchanged, so
``git add .env notes.md`` works. But a sandboxed ``git checkout b2`` cannot write b2's
version over that read-only copy ("unable to unlink old '.env'"): HEAD and the index move to
b2, the file keeps main's version, and the user's next ``git commit -a`` reverts b2's change,
nothing said. So the index entries of these files are read before the command (one ``git
ls-files -s``, only in a repository that tracks one), and after it, where they changed, the
shell does what :mod:`.gitsync` does for a deny rule's hidden files, under the same rules:
brought along only when HEAD moved to a commit that existed before the command, from exactly
what HEAD's tree held to what the new HEAD's holds, where no write rule covers it; anything
else is left and said, with how to look. A ``git rm --cached .env`` (HEAD unmoved) is the
user's to make and is not touched.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from . import gitcopystat, githeads, gitsync
from .gitnet import head_commit
from .gitstaged import git_dir, index_stamp, repository_of, staged_entries

TIMEOUT = 10.0


@dataclass(frozen=True, slots=True)
class CopiesBefore:
    """One repository's tracked secret files as git had them before a command."""

    repo: Path
    rels: tuple[bytes, ...]
    staged: Mapping[bytes, bytes]
    """``name -> object`` of their index entries."""
    head: bytes
    tips: tuple[bytes, ...] | None
    stamp: tuple[int, int, int] | None


def before(copies: Mapping[Path, str]) -> list[CopiesBefore]:
    """The index entries of ``copies`` (absolute paths of tracked secret files → the staged
    copies shown in their place), per repository, once the index caches the copies' times
    (:mod:`.gitcopystat`: else ``git reset --hard`` rewrites them and stops at the bind)."""
    gitcopystat.restamp(copies)
    by_repo: dict[Path, list[bytes]] = {}
    for path in copies:
        repo = repository_of(path)
        if repo is not None and git_dir(repo) is not None:
            by_repo.setdefault(repo, []).append(os.fsencode(path.relative_to(repo).as_posix()))
    out = []
    for repo, rels in by_repo.items():
        staged = _staged(repo, rels)
        if staged:
            head = head_commit(repo)
            out.append(CopiesBefore(repo, tuple(rels), staged, head, githeads.tips(repo, head, git_dir(repo)),
                                    index_stamp(repo)))
    return out


def after(was: Sequence[CopiesBefore], may_write: Callable[[Path], bool]) -> list[str]:
    """Bring along what a move of HEAD staged anew; what the user must know."""
    out: list[str] = []
    for old in was:
        head = head_commit(old.repo)
        if head == old.head or index_stamp(old.repo) == old.stamp:
            continue  # HEAD unmoved (a `git rm --cached` is the user's) or the index untouched
        now = _staged(old.repo, old.rels)
        if now is None or now == old.staged:
            continue
        move = None
        if head and not githeads.made_here(old.repo, old.tips, head):  # a commit that existed before
            was_tree, now_tree = (githeads.in_tree(old.repo, old.head, old.rels),
                                  githeads.in_tree(old.repo, head, old.rels))
            if was_tree is not None and now_tree is not None:
                move = gitsync.Move(was_tree, now_tree, {})
        brought, left = gitsync.bring_along(old.repo, old.staged, now, move, may_write)
        if brought:
            out.append(f"tracked secret files git now stages another version of in {old.repo} "
                       f"({_shown(brought)}) could not be written by the command (the sandbox shows them "
                       "as their staged copies, read-only): agent-shell brought them to that version, as "
                       "the same command outside the sandbox would")
        if left:
            out.append(f"the command moved git to another version in {old.repo}, and tracked secret "
                       f"files ({_shown(left)}) were NOT written (the sandbox shows them read-only; "
                       "agent-shell brings one along only from exactly what HEAD held to a commit that "
                       "existed before the command: these hold your own edits, or the version is the "
                       "command's), so git status shows them as changed and `git commit -a` would commit "
                       "your version over that one: look at `git diff -- PATH`; `git checkout -- PATH` "
                       "takes git's version. Tell the user")
    return out


def _staged(repo: Path, rels: Sequence[bytes]) -> dict[bytes, bytes] | None:
    entries = staged_entries(repo, rels, TIMEOUT)
    return None if entries is None else {name: blob for name, (_, blob) in entries.items()}


def _shown(names: Sequence[bytes]) -> str:
    more = f" and {len(names) - 5} more" if len(names) > 5 else ""
    return ", ".join(os.fsdecode(n) for n in names[:5]) + more
