"""Which git command lines cannot print or copy file contents from git's history: an
allow-list (finding Q9, after findings10 P1).

A list of git's readers (``log -p``, ``grep``, ``archive`` …) kept missing spellings:
``log -U1``, ``--unified``, ``--binary``, ``whatchanged``, ``checkout-index --prefix``,
an alias (``-c alias.v=show``) and any subcommand a user's config names. So the
question is turned round: a git command is quiet only when its subcommand and every one
of its options are known not to print or lay out contents (``git status``, ``git log
--oneline``, ``git diff --stat``, ``git add -A && git commit``); anything else is treated
as a reader by :mod:`.githistory`, which asks while a deny rule names content git holds.
"""

from __future__ import annotations

import os
import re
from collections.abc import Sequence
from pathlib import Path

from . import githardened

GLOBAL_FREE = frozenset({"--no-pager", "-P", "--paginate", "-p", "--bare", "--no-replace-objects",
                         "--literal-pathspecs", "--glob-pathspecs", "--noglob-pathspecs",
                         "--icase-pathspecs", "--no-optional-locks", "--no-advice"})
"""Global options that change nothing about what a subcommand prints."""
SAFE_CONFIG = re.compile(r"(user|color|advice|init|commit\.gpgsign|core\.quotepath|gc|pull\.rebase)\b",
                         re.IGNORECASE)
"""``-c`` keys that start no program and print nothing (``alias.*``, ``core.pager`` do)."""
NAMES = ("--stat", "--shortstat", "--numstat", "--name-only", "--name-status", "--summary",
         "--dirstat", "--raw", "--no-patch", "-s", "--compact-summary")
"""Diff-output options that print names and counts, not contents."""
LOG_OPTIONS = (*NAMES, "--oneline", "--graph", "--decorate", "--no-decorate", "--all", "--branches",
               "--tags", "--remotes", "--max-count", "-n", "--skip", "--since", "--until", "--after",
               "--before", "--author", "--committer", "--grep", "--all-match", "--invert-grep",
               "-i", "--regexp-ignore-case", "-E", "-F", "--extended-regexp", "--fixed-strings",
               "--reverse", "--first-parent", "--no-merges", "--merges", "--abbrev", "--no-abbrev",
               "--abbrev-commit", "--no-abbrev-commit", "--date", "--relative-date", "--color",
               "--no-color", "--pretty", "--format", "--follow", "--topo-order", "--date-order",
               "--author-date-order", "--left-right", "--boundary", "--no-walk", "--simplify-by-decoration",
               "--cherry-pick", "--cherry-mark", "--cherry", "--ancestry-path", "--full-history",
               "--parents", "--children", "--walk-reflogs", "-g", "--reflog", "--no-notes", "-q", "--quiet",
               "--exit-code", "--no-ext-diff", "--no-textconv", "--no-color-moved", "--show-signature",
               "--ignore-missing", "--not", "--", "-z", "--null")
"""Options of ``log``/``show``/``reflog``/``shortlog``/``stash list`` that print no patch
(``-<n>`` too). Format placeholders print commit data, not file contents, but ``%N`` prints
notes, and a note can be any blob (``git notes add -C <blob>``): see :func:`_format_ok`."""
PLAIN = frozenset({"add", "commit", "branch", "remote", "rev-parse", "init", "config", "fetch", "pull",
                   "push", "mv", "rm", "merge-base", "name-rev", "describe", "ls-remote", "version",
                   "help", "gc", "prune", "count-objects", "check-ignore", "check-attr", "show-ref",
                   "symbolic-ref", "var", "rev-list", "cherry", "merge", "revert", "clean", "ls-files",
                   "update-index", "write-tree", "shortlog"})
"""Subcommands that print or copy no file contents whatever their options, except the ones
:data:`NEVER` lists (``--format`` with ``%(raw)`` on refs, ``-p``, ``--edit`` …)."""
NEVER = ("-p", "--patch", "-i", "--interactive", "--format", "--exec", "--upload-pack", "--receive-pack",
         "--output", "--exec-path", "--template", "--separate-git-dir", "--notes", "--show-notes")
"""Options that print contents (``-p``), run a program the model names (``--exec``,
``--upload-pack``), or copy the store elsewhere; a :data:`PLAIN` command with one asks."""
LOCAL = re.compile(r"(/|\./|\.\./|~|file:|\.$|\.\.$)")
"""A remote given as a path: ``git push ../copy`` lays the history out where no rule hides it."""


def quiet(words: Sequence[str], root: Path) -> bool:
    """Whether ``git <words>`` cannot print or copy file contents from history."""
    i, repo = 0, root
    while i < len(words) and words[i].startswith("-"):
        opt = words[i]
        if opt == "-C" and i + 1 < len(words):
            repo = root / words[i + 1]
            i += 2
        elif opt == "-c" and i + 1 < len(words) and SAFE_CONFIG.match(words[i + 1]):
            i += 2
        elif opt in GLOBAL_FREE:
            i += 1
        else:
            return False  # --work-tree, --git-dir, --exec-path, -c alias.x=… and anything unknown
    if i >= len(words):
        return True
    return _quiet_sub(words[i], list(words[i + 1:]), repo)


def _quiet_sub(sub: str, rest: list[str], repo: Path) -> bool:
    options = [r for r in rest if r.startswith("-")]
    if sub == "status":
        return not any(o in ("-v", "-vv", "--verbose") or re.fullmatch(r"-[a-z]*v[a-z]*", o) for o in options)
    if sub in ("log", "reflog") or (sub == "stash" and rest[:1] == ["list"]):
        return _log_ok(options)
    if sub == "show":
        return _log_ok(options) and any(o.startswith(NAMES) for o in options) and _commits(rest, repo)
    if sub == "diff":
        return _diff_ok(rest, repo)
    if sub == "stash":
        pushes = not rest or rest[0].startswith("-")  # `git stash -u` is `git stash push -u`
        return (pushes or rest[0] in ("push", "save", "drop", "clear")) and not _has(options, NEVER)
    if sub in ("checkout", "switch"):
        return _switch_ok(rest)
    if sub == "restore":
        return not _has(options, ("-s", "--source", "-p", "--patch"))
    if sub == "reset":
        return not _has(options, ("-p", "--patch"))
    if sub == "tag":
        return not _has(options, ("--format", "-F", "--file"))
    if sub in ("fetch", "pull", "push"):
        operands = [r for r in rest if not r.startswith("-")]
        return not _has(options, ("--exec", "--upload-pack", "--receive-pack")) and not any(
            LOCAL.match(o) for o in operands)
    if sub in PLAIN:
        return not _has(options, NEVER)
    return False  # whatchanged, checkout-index, read-tree, an alias, a user's own subcommand …


def _has(options: Sequence[str], names: Sequence[str]) -> bool:
    """Whether one of ``options`` is one of ``names`` (``--name=value`` counted; ``-pv`` too)."""
    for opt in options:
        head = opt.split("=", 1)[0]
        if head in names:
            return True
        if not opt.startswith("--") and any(f"-{c}" in names for c in opt[1:]):
            return True
    return False


def _log_ok(options: Sequence[str]) -> bool:
    for opt in options:
        head = opt.split("=", 1)[0]
        if re.fullmatch(r"-\d+|-n\d+", opt):
            continue
        if head not in LOG_OPTIONS and not (head.startswith(("--stat-", "--date=")) or head in ("-q",)):
            return False
        if head in ("--format", "--pretty") and not _format_ok(opt.partition("=")[2]):
            return False
    return True


def _format_ok(spec: str) -> bool:
    """A format that prints no notes (``%N``, ``%(notes)`` can print any blob)."""
    return "%N" not in spec and "notes" not in spec.lower()


def _diff_ok(rest: list[str], repo: Path) -> bool:
    """``git diff --stat`` anything; otherwise only the work tree against the index (the
    sandbox hides denied files from it: :mod:`.gitmarks`), not a revision or another file."""
    options = [r for r in rest if r.startswith("-")]
    if any(o.split("=", 1)[0] in NAMES for o in options) and not _has(options, ("--output", "--no-index")):
        return not _has(options, ("-p", "--patch", "-u")) or _has(options, ("--no-patch",))
    if _has(options, ("--cached", "--staged", "--merge-base", "--no-index", "--output")):
        return False
    operands = [r for r in rest if not r.startswith("-")]
    if "--" in rest:
        operands = [r for r in rest[: rest.index("--")] if not r.startswith("-")]
    return all(os.path.lexists(repo / r) for r in operands)  # each a path, none a revision


def _switch_ok(rest: list[str]) -> bool:
    """``git switch``/``checkout`` of a branch (``-b new start`` too), not of files from a
    revision (``checkout HEAD~1 -- .``) nor a patch (``-p``)."""
    options = [r for r in rest if r.startswith("-")]
    if "--" in rest or _has(options, ("-p", "--patch", "--pathspec-from-file")):
        return False
    creates = _has(options, ("-b", "-B", "-c", "-C", "--orphan", "--create"))
    operands = [r for r in rest if not r.startswith("-")]
    return len(operands) <= (2 if creates else 1)


def _commits(rest: list[str], repo: Path) -> bool:
    """Whether every revision ``git show`` is given names a commit: a tag or an id can name
    a blob, which ``git show --stat`` prints whole. Asked of git (hardened), one call."""
    revs = [r for r in (rest[: rest.index("--")] if "--" in rest else rest) if not r.startswith("-")]
    ends = [e for r in revs for e in re.split(r"\.\.\.?", r) if e]
    if not ends:
        return True
    if any("\n" in e for e in ends):
        return False
    done = githardened.run(["-C", str(repo), "cat-file", "--batch-check"],
                           stdin="".join(f"{e}^{{commit}}\n" for e in ends).encode())
    if done is None or done.returncode != 0:
        return False
    lines = done.stdout.decode("utf-8", "replace").splitlines()
    return len(lines) == len(ends) and all(line.split(" ")[1:2] == ["commit"] for line in lines)


__all__ = ["quiet"]
