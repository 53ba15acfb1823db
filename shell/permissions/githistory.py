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

Which commands count is an allow-list (:mod:`.gitquiet`, finding Q9): every git command
but those known to print no contents asks, and "holds" asks git's history as well as its
index, so a file once committed and then untracked still counts.

What counts as git, and where it runs, is read from the whole line (findings U1, U2, U7):
git's own programs under their dashed names (``/usr/lib/git-core/git-log``, every builtin
has one) are git; a git command after a ``cd``/``pushd`` or ``env -C`` elsewhere, or given
a ``GIT_*`` variable (``GIT_DIR=q/.git``), is judged in that place or as a reader; and a
line whose other commands name ``.git`` (``echo B > .git/refs/replace/H``, ``echo O >
.git/HEAD``) changes what git will resolve after the check has looked, so its git
commands are readers.
"""

from __future__ import annotations

import os
import re
from collections.abc import Sequence
from functools import lru_cache
from pathlib import Path

from .cmdword import Reading, read_part
from .envwords import read_env
from .gitdisguised import disguised_git
from .gitquiet import moves_refs, quiet
from .gitstaged import hardened_git, repository_of
from .shellsplit import split_command
from .shellwords import read_words

GIT_PROGRAMS = frozenset({"scalar"})
"""git's programs with no ``git-`` name, judged as a git subcommand nobody listed."""
_GIT_VARIABLE = re.compile(r"GIT_[A-Za-z0-9_]*=")
_PLAIN_VARIABLE = re.compile(
    r"GIT_((AUTHOR|COMMITTER)_(NAME|EMAIL|DATE)|TERMINAL_PROMPT|OPTIONAL_LOCKS|PROGRESS_DELAY|FLUSH|"
    r"MERGE_VERBOSITY|REFLOG_ACTION|ADVICE|EDITOR|SEQUENCE_EDITOR|PAGER|ASKPASS|SSH|SSH_COMMAND)=")
"""``GIT_*`` variables that change neither where git looks nor what it resolves (a
command one of them names is read by :mod:`.cmdword`); any other (``GIT_DIR``,
``GIT_INDEX_FILE``, ``GIT_ALTERNATE_OBJECT_DIRECTORIES``, ``GIT_NO_REPLACE_OBJECTS`` …)
makes the part's git a reader."""
_DOT_GIT = re.compile(r"(?:^|[/=])\.git(?:/|$)")
_MOVES_TO = frozenset({"cd", "pushd", "popd", "chdir"})
MAX_JUDGED = 64
"""Different git commands of one line judged one by one: each may start a hardened git (a
revision resolved, a tree compared), and a line of thousands (``git checkout -q main; `` 6,000
times, 132 KB) held the shell for 28 s before anything ran (finding U5). The same command
again is judged once; past this many different ones, the line asks."""


def history_reader(command: str, root: Path, *, moves: bool = False) -> str:
    """The first git command of ``command`` that may print or copy file contents from
    history (``git log -p``, ``git log -U1``, an alias: anything not :func:`.gitquiet.quiet`),
    or "". ``moves``: every denied path git holds exists now (the sandbox hides it), so a
    checkout, reset or merge to another tree lays out none of it (finding S2)."""
    split = split_command(command)
    parts = [(part.text, read_part(part.text)) for part in split.parts if part.text]
    for text, reading in parts:
        if reading.runtime or not reading.understood:
            return text[:80]  # `G=git; $G log -p`, `… | sh`: what runs is known only when it runs
        disguised = disguised_git(text, reading, root)  # `… | xargs git`, a copy of git (finding C16)
        if disguised:
            return disguised
    readings = [words for _, reading in parts for words in reading.commands if words]
    alone = len(readings) == 1  # a work-tree `git diff` trusts marks another command may drop
    gits: list[Placed] = []
    where: Path | None = root
    dot_git = any(_DOT_GIT.search(target) or "$" in target or "`" in target  # `> $d/HEAD`: known when it runs
                  for part in split.parts for target in part.writes)
    others = False
    for text, reading in parts:
        found, where, names_git, other = _gits_of(text, reading, where)
        gits += found
        dot_git, others = dot_git or names_git, others or other
    movers = [moves_refs(g, place or root) for g, place in gits]
    judged: set[tuple[tuple[str, ...], Path | None, bool]] = set()
    moving = sum(movers)
    for n, (words, place) in enumerate(gits):
        # `git branch -f main HEAD~1; git checkout main`: main names HEAD's tree only until the branch runs
        steady = moving - movers[n] == 0
        key = (tuple(words), place, steady)
        if key in judged:
            continue  # the same command in the same place: judged already
        if len(judged) >= MAX_JUDGED:
            return f"{len(gits)} git commands in one line (over {MAX_JUDGED} different ones are not checked)"
        judged.add(key)
        # `cp -r . q/; git -C q reset --hard`: q was a folder of this repository when the line was read
        if dot_git or place is None or not quiet(words, place, alone=alone, moves=moves, steady=steady,
                                                 home=root, elsewhere=not others):
            return " ".join(["git", *words[:7]])
    return ""


Placed = tuple[list[str], Path | None]
"""A git command's words after ``git`` and the folder it runs in (None: not known)."""


def _gits_of(text: str, reading: Reading, where: Path | None) -> tuple[list[Placed], Path | None, bool, bool]:
    """The git commands of one part, each with the folder it runs in (None: not known),
    the folder the line goes on in, whether another of its commands names ``.git``, and
    whether it runs any command but git and ``cd``."""
    words = read_words(text) or []
    variables = any(_GIT_VARIABLE.match(w.text) and not _PLAIN_VARIABLE.match(w.text)
                    for w in words)  # `GIT_DIR=q/.git git …`, `env GIT_…=`
    found: list[Placed] = []
    names_git = other = False
    if not any(c and _git_words(c[0].text, []) is not None for c in reading.commands):
        names_git = any(_DOT_GIT.search(w.text) for w in words)  # `d=.git` (a part of assignments only)
    here = where
    for command in reading.commands:
        if not command:
            continue
        head, rest = command[0].text, [w.text for w in command[1:]]
        if head in _MOVES_TO:
            args = [r for r in rest if not r.startswith("-")]
            static = head in ("cd", "pushd", "chdir") and len(args) == 1 and not args[0].startswith("~")
            where = here = (where / args[0]) if static and where is not None else None
            continue
        if head == "env" and read_env(rest).chdir:  # `-Ccopy`, `--ch copy`, `-S'-C copy …'` too (C12)
            here = None  # the git it runs is read next, without the folder
            continue
        sub = _git_words(head, rest)
        if sub is None:
            names_git = names_git or any(_DOT_GIT.search(r) for r in rest)
            other = True
            continue
        found.append((sub, None if variables else here))
    return found, where, names_git, other


def _git_words(head: str, rest: list[str]) -> list[str] | None:
    """``git``'s words after the command word: ``git log -p`` and ``git-log -p`` alike
    (None: not git)."""
    if head == "git":
        return rest
    if head.startswith("git-") and len(head) > 4:
        return [head[4:], *rest]
    if head in GIT_PROGRAMS:
        return [head, *rest]
    return None


def only_moves_hidden(command: str, root: Path, held: Sequence[Path]) -> bool:
    """Whether the only history readers of ``command`` lay out another tree (a branch
    switch, ``reset --hard``, ``merge``) while every one of the ``held`` denied paths exists
    now: the sandbox hides those (an empty read-only folder, ``/dev/null``), so git cannot
    write what the other tree holds there. One that exists only in history is not hidden,
    and ``git checkout HEAD~1; cat secrets/*`` printed it (finding S2)."""
    return all(os.path.lexists(p) for p in held) and not history_reader(command, root, moves=True)


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


def held_denied(denied: Sequence[Path]) -> list[Path]:
    """Those of ``denied`` whose content git holds: tracked in the index, or in any commit
    git's refs or reflogs reach though the index no longer tracks it (``git rm --cached``,
    then ignored: P1 #14). History is asked once per state of the index, refs and reflog."""
    out: list[Path] = []
    for path in denied:
        repo = repository_of(path)
        if repo is None:
            continue
        rel = str(path.relative_to(repo))
        index = _stamp(repo / ".git" / "index")
        if _tracks(repo, rel, index) or _in_history(repo, rel):
            out.append(path)
    return out


def committed_denied(denied: Sequence[Path]) -> list[Path]:
    """Those of ``denied`` that a commit git's refs or reflogs reach holds (no index asked:
    the second net runs this before every command, and the index changes with each)."""
    out: list[Path] = []
    for path in denied:
        repo = repository_of(path)
        if repo is not None and _in_history(repo, str(path.relative_to(repo))):
            out.append(path)
    return out


HISTORY_FILES = ("HEAD", "packed-refs", "logs/HEAD", "FETCH_HEAD", "ORIG_HEAD", "refs", "refs/heads",
                 "refs/tags", "refs/remotes", "logs/refs", "refs/stash", "logs/refs/stash")
"""What changes when a commit, branch, tag, fetch or stash adds history (a ref file is
replaced by rename, so its folder's time changes too)."""


def _stamp(path: Path) -> tuple[int, int, int]:
    try:
        info = os.stat(path)
    except OSError:
        return (0, 0, 0)
    return (info.st_mtime_ns, info.st_size, info.st_ino)


def _history_stamp(repo: Path) -> tuple[tuple[int, int, int], ...]:
    return tuple(_stamp(repo / ".git" / name) for name in HISTORY_FILES)


def _in_history(repo: Path, rel: str) -> bool:
    """Asked again whenever the history may have grown; every time where ``.git`` is a
    file (a linked worktree: its refs live elsewhere, so no stamp is sound)."""
    if not (repo / ".git").is_dir():
        return _history_holds(repo, rel)
    return _cached_history_holds(repo, rel, _history_stamp(repo))


@lru_cache(maxsize=128)
def _cached_history_holds(repo: Path, rel: str, _stamp: tuple[tuple[int, int, int], ...]) -> bool:
    return _history_holds(repo, rel)


def _history_holds(repo: Path, rel: str) -> bool:
    listed = hardened_git(repo, ["log", "--all", "--reflog", "--format=", "--name-only", "-z", "-1",
                                 "--", rel])
    return listed is None or bool(listed.strip(b"\0\n"))  # git failing: it may well hold it


__all__ = ["committed_denied", "held_denied", "history_reader", "only_moves_hidden", "tracked_denied"]
