"""Which git command lines cannot print or copy file contents from git's history: an
allow-list (finding Q9, after findings10 P1).

A list of git's readers (``log -p``, ``grep``, ``archive`` …) kept missing spellings:
``log -U1``, ``--unified``, ``--binary``, ``whatchanged``, ``checkout-index --prefix``,
an alias (``-c alias.v=show``) and any subcommand a user's config names. So the
question is turned round: a git command is quiet only when its subcommand and every one
of its options are known not to print or lay out contents (``git status``, ``git log
--oneline``, ``git diff --stat``, ``git add -A && git commit``); anything else is treated
as a reader by :mod:`.githistory`, which asks while a deny rule names content git holds.

"Whatever its options" was the next hole (findings S1, S6, S8: ``commit -v``, ``diff
--stat -U0``, ``update-index --no-skip-worktree``, ``config --blob``): every subcommand
is now read against the options it may have (:mod:`.gitallowed`, parsed by
:mod:`.gitoptions`, an unknown one asks), and a command that lays out another tree
(``checkout HEAD~1``, ``reset --hard <rev>``, ``merge``, ``pull``) is not quiet: the
sandbox hides what existed when the command started, not what git writes there after
(finding S2).

Two views had to be made one (findings U1, U7): a command run in another repository
(``git -C q checkout x``, after ``git push q``) is judged as a reader, since the sandbox
hides the workspace's denied paths, not that repository's; and a revision is resolved as
the sandbox's git resolves it, replace refs honoured (``--no-replace-objects`` asks).
"""

from __future__ import annotations

import os
import re
from collections.abc import Sequence
from pathlib import Path

from . import gitallowed, githardened
from .gitoptions import operands
from .gitremotes import remote_local, urls_local
from .gitstaged import repository_of

GLOBAL_FREE = frozenset({"--no-pager", "-P", "--paginate", "-p", "--bare", "--literal-pathspecs",
                         "--glob-pathspecs", "--noglob-pathspecs",
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
INERT = frozenset({"rev-parse", "merge-base", "name-rev", "describe", "ls-remote", "version", "help",
                   "gc", "prune", "count-objects", "check-ignore", "check-attr", "show-ref", "var", "cherry",
                   "ls-files", "write-tree", "shortlog"})
"""Subcommands with no option that prints or lays out a file's contents (they print ids,
names, refs and counts), except the ones :data:`NEVER` lists (``--format`` with ``%(raw)``
…). Those that write the index, move HEAD or read a blob are not here: ``update-index``
(it clears the marks that keep ``git diff`` blind to hidden files, and ``--cacheinfo``
stages any blob: findings S1, S2), ``config`` (``--blob``), ``merge``/``revert``/``pull``
(they lay out another tree) each have their own judgement below."""
NEVER = ("-p", "--patch", "-i", "--interactive", "--format", "--exec", "--upload-pack", "--receive-pack",
         "--output", "--exec-path", "--template", "--separate-git-dir", "--notes", "--show-notes",
         "--objects", "--objects-edge", "--objects-edge-aggressive", "--missing", "--pretty")
"""Options that print contents or blob ids (``-p``, ``rev-list --objects``), run a program the
model names (``--exec``, ``--upload-pack``), or copy the store elsewhere; an :data:`INERT`
command with one asks."""
LOCAL = re.compile(r"(/|\./|\.\./|~|file:|\.$|\.\.$)")
"""A remote given as a path: ``git push ../copy`` lays the history out where no rule hides it."""


def quiet(words: Sequence[str], root: Path, *, alone: bool = True, moves: bool = False,
          steady: bool = True, home: Path | None = None, elsewhere: bool = True) -> bool:
    """Whether ``git <words>`` cannot print or copy file contents from history. ``alone``:
    it is the only command of its line (a work-tree ``git diff`` is quiet only then).
    ``moves``: the caller knows every denied path git holds exists now, so the sandbox hides
    it from whatever tree a checkout, reset or merge lays out (else such a move asks).
    ``steady``: no other git command of the line moves a ref (:func:`moves_refs`), so a
    revision names the tree it names now (``git branch -f main HEAD~1; git checkout main``).
    ``home``: the workspace (default ``root``, where the command runs): a command whose
    repository is not ``home``'s is not quiet, nor, unless ``elsewhere`` (no other command
    of the line could have made a repository there), one run in another of its folders."""
    found = _subcommand(words, root)
    if found is None:
        return False  # --work-tree, --git-dir, --exec-path, -c alias.x=… and anything unknown
    i, repo = found
    if not _same_repository(repo, home or root, elsewhere):
        return False  # the sandbox hides the workspace's denied paths, not another repository's
    if i >= len(words):
        return True
    return _quiet_sub(words[i], list(words[i + 1:]), repo, alone, moves, steady)


MOVERS = frozenset({"fetch", "pull", "push", "reset", "merge", "revert", "stash", "remote"})
"""Quiet subcommands that may move a ref, so that a later command's revision names another
tree (``git push origin HEAD~1:x`` moves ``origin/x``); ``branch``, ``tag``, ``checkout`` and
``switch`` only when they force or rename (:data:`FORCED`): made anew, a name names nothing
yet, and a later checkout of it asks."""
FORCED = {"branch": ("-f", "--force", "-m", "-M", "--move", "-c", "-C", "--copy"), "tag": ("-f", "--force"),
          "checkout": ("-B",), "switch": ("-C", "--force-create")}


def moves_refs(words: Sequence[str], root: Path) -> bool:
    """Whether ``git <words>`` may move a ref (a global option not known: yes)."""
    found = _subcommand(words, root)
    if found is None:
        return True
    sub, rest = (words[found[0]], words[found[0] + 1:]) if found[0] < len(words) else ("", [])
    if sub in FORCED:
        return _has([r for r in rest if r.startswith("-")], FORCED[sub])
    return sub in MOVERS


def _same_repository(where: Path, home: Path, elsewhere: bool) -> bool:
    """Whether ``where`` (a folder that exists now) is ``home``, or (``elsewhere``) in
    ``home``'s git repository."""
    try:
        if not where.is_dir():
            return False
        if os.path.realpath(where) == os.path.realpath(home):
            return True
    except (OSError, ValueError):
        return False
    if not elsewhere:
        return False
    mine, theirs = repository_of(home / ".git"), repository_of(where / ".git")
    return mine is not None and theirs is not None and os.path.realpath(mine) == os.path.realpath(theirs)


def _subcommand(words: Sequence[str], root: Path) -> tuple[int, Path] | None:
    """Where the subcommand is in ``words`` and the repository ``-C`` names; None for a
    global option that is not known to change nothing."""
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
            return None
    return i, repo


def _quiet_sub(sub: str, rest: list[str], repo: Path, alone: bool, moves: bool, steady: bool) -> bool:
    if sub == "status":  # `-uno` is `--untracked-files=no`, not a cluster of -u, -n, -o
        rest = ["-u" if re.fullmatch(r"-u(no|normal|all)", r) else r for r in rest]
    options = [r for r in rest if r.startswith("-")]
    if sub in ("log", "reflog") or (sub == "stash" and rest[:1] == ["list"]):
        return _log_ok(options)
    if sub == "rev-list":
        return _log_ok([o for o in options if o != "--count"])
    if sub == "show":
        return _log_ok(options) and any(o.startswith(NAMES) for o in options) and _commits(rest, repo)
    if sub == "diff":
        return _diff_ok(rest, repo, alone)
    if sub in ("checkout", "switch"):
        return _switch_ok(rest, repo, moves, steady)
    if sub == "reset":
        return _reset_ok(rest, repo, moves, steady)
    if sub == "symbolic-ref":  # two operands point HEAD at another tree without laying it out
        return (found := operands(rest, gitallowed.SYMBOLIC_REF)) is not None and len(found.before) <= 1
    if sub in gitallowed.MOVES:
        return _merge_ok(sub, rest, repo, moves)
    if sub in ("fetch", "push", "remote"):
        found = operands(rest, gitallowed.BY_SUBCOMMAND[sub])
        return found is not None and not _elsewhere_local(sub, [*found.before, *found.after], repo)
    if sub == "stash":
        return _stash_ok(rest)
    if sub in gitallowed.BY_SUBCOMMAND:
        return operands(rest, gitallowed.BY_SUBCOMMAND[sub]) is not None
    if sub in INERT:
        return not _has(options, NEVER)
    return False  # whatchanged, checkout-index, read-tree, update-index, an alias, a user's own subcommand …


def _merge_ok(sub: str, rest: list[str], repo: Path, moves: bool) -> bool:
    """``merge``, ``revert``, ``pull`` lay out another tree: quiet when stepping back, or
    when the caller knows the sandbox hides every denied path git holds (``moves``)."""
    if rest in (["--abort"], ["--quit"]):
        return True
    found = operands(rest, gitallowed.MOVES[sub])
    if found is None or (sub == "pull" and _elsewhere_local(sub, [*found.before, *found.after], repo)):
        return False
    return moves and not any(LOCAL.match(o) for o in found.before)


def _elsewhere_local(sub: str, words: list[str], repo: Path) -> bool:
    """Whether the repository a fetch, push, pull or remote names may be on this machine
    (:mod:`.gitremotes`): ``git remote add q q`` as much as ``git push ../q``."""
    if any(LOCAL.match(o) for o in words):
        return True
    if sub == "remote":
        verb = words[0] if words else ""
        if verb in ("add", "set-url"):
            return urls_local(repo, words[2:])
        return verb in ("update", "prune", "show", "set-head") and remote_local(repo, None)
    return remote_local(repo, words[0] if words else None)


def _stash_ok(rest: list[str]) -> bool:
    pushes = not rest or rest[0].startswith("-")  # `git stash -u` is `git stash push -u`
    if pushes or rest[0] in ("push", "save"):
        return operands(rest if pushes else rest[1:], gitallowed.STASH_PUSH) is not None
    return rest[0] in ("drop", "clear") and operands(rest[1:], gitallowed.QUIET_ONLY) is not None


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


NO_NOTES = {"GIT_NOTES_REF": "refs/notes/hidden..by-agent-shell", "GIT_NOTES_DISPLAY_REF": ""}
"""The sandbox's git shows no notes unless asked (finding U10): ``git log``/``git show``
print ``refs/notes/commits`` and ``notes.displayRef``'s notes by default, and a note is
any blob, so a notes ref a script made from a denied blob's id turned a quiet ``git log
-1`` into a print of it. The default notes ref is one that cannot exist (``..`` is not
allowed in a ref name: ``git notes add`` without ``--ref`` fails, and says the name), and
the display refs are none; ``--notes``, ``%N`` and ``-c notes.*`` ask, as readers."""


def without_notes(env: dict[str, str]) -> dict[str, str]:
    """``env`` with the defaults of :data:`NO_NOTES` (a sandboxed command's environment)."""
    return {**env, **NO_NOTES}


def _format_ok(spec: str) -> bool:
    """A format that prints no notes (``%N``, ``%(notes)`` can print any blob)."""
    return "%N" not in spec and "notes" not in spec.lower()


def _diff_ok(rest: list[str], repo: Path, alone: bool) -> bool:
    """``git diff`` that prints names and counts only (``--stat``, any revisions), with no
    option off :data:`.gitallowed.DIFF_NAMES` (``-U0``, ``--patch-with-stat``, ``--word-diff``
    each turn the patch back on: finding S6). A patch only of the work tree against the
    index, and only as the line's one command: the sandbox's skip-worktree marks
    (:mod:`.gitmarks`) keep hidden files out of it, and an earlier command of the same line
    can drop them (``update-index --no-skip-worktree``, ``rm .git/index; git reset``: S1)."""
    named = operands(rest, gitallowed.DIFF_NAMES)
    if named is not None and any(o.split("=", 1)[0] in NAMES for o in rest if o.startswith("-")):
        return True
    found = operands(rest, gitallowed.DIFF_PATCH)
    if not alone or found is None:
        return False
    return all(os.path.lexists(repo / r) for r in found.before)  # each a path, none a revision


def _switch_ok(rest: list[str], repo: Path, moves: bool, steady: bool) -> bool:
    """``git switch``/``checkout`` that stays on HEAD's tree: a new branch where HEAD is
    (``-b feat``, ``--orphan t``), or a branch, tag or commit whose tree is HEAD's; and
    ``checkout FILE`` (from the index, as ``restore``). Any other tree is laid out where no
    rule hides it, with a denied file only history holds (finding S2: ``checkout HEAD~1``)."""
    found = operands(rest, gitallowed.SWITCH)
    if found is None or found.after:
        return False
    targets = [("@{-1}" if o == "-" else o) for o in found.before]
    creates = _has([r for r in rest if r.startswith("-")], ("-b", "-B", "-c", "-C", "--orphan", "--create",
                                                               "--force-create"))
    if len(targets) > 1:
        return False
    if not targets:
        return True
    if moves and _same_tree(repo, targets[0]) is not None:
        return True  # whatever it lays out of a denied path lands where the sandbox hides it
    same = _same_tree(repo, targets[0])
    if creates:
        return steady and same is True
    return (steady and same is True) or (same is None and os.path.lexists(repo / targets[0]))


def _reset_ok(rest: list[str], repo: Path, moves: bool, steady: bool) -> bool:
    """``git reset`` to HEAD's tree (``reset -q``, ``reset --hard``, ``reset HEAD file``);
    ``reset --soft HEAD~1`` then ``restore --staged .`` and ``restore .`` lays out the older
    tree, so any other revision asks."""
    found = operands(rest, gitallowed.RESET)
    if found is None:
        return False
    for word in found.before:
        same = _same_tree(repo, word)
        if same is False and moves:
            continue
        if same is True and not steady:
            return False
        if same is False or (same is None and not os.path.lexists(repo / word)):
            return False
    return True


def _same_tree(repo: Path, rev: str) -> bool | None:
    """Whether ``rev`` names a commit whose tree is HEAD's; None when it names no commit
    (a path, or a branch not made yet: the caller decides). Asked of git (hardened)."""
    if "\n" in rev or rev.startswith("-"):
        return False
    done = githardened.run(["-C", str(repo), "cat-file", "--batch-check"],
                           stdin=f"HEAD^{{tree}}\n{rev}^{{tree}}\n".encode(), replace_objects=True)
    if done is None or done.returncode != 0:
        return False
    lines = done.stdout.decode("utf-8", "replace").splitlines()
    if len(lines) != 2:
        return False
    if lines[1].endswith(" missing") or lines[1].endswith(" ambiguous"):
        return None
    return lines[0].split(" ")[0] == lines[1].split(" ")[0]


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
                           stdin="".join(f"{e}^{{commit}}\n" for e in ends).encode(), replace_objects=True)
    if done is None or done.returncode != 0:
        return False
    lines = done.stdout.decode("utf-8", "replace").splitlines()
    return len(lines) == len(ends) and all(line.split(" ")[1:2] == ["commit"] for line in lines)


__all__ = ["quiet"]
