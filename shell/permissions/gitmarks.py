"""Hidden paths marked skip-worktree in git's index for one command's length.

The sandbox hides what a deny rule on reading or ``[sandbox] hide`` names, and secret
files (``.env``): an empty folder or file is bound in their place. Any git that runs in
the sandbox believes that emptiness. A file git tracks there looks deleted or emptied,
and ``git add -A && git commit`` commits that, wiping it from the user's history
(findings M8, P8, P10). Showing git's staged copies in their place only when the command
line names git (the staged view this module replaced) missed every git a script starts
(``make commit``, ``./commit.sh``, ``npm run c``), and showed the copies to every other
program of such a line (finding P1).

So the answer lives in the index, which every git reads however it was started: before
the command, each tracked entry under a hidden path gets the skip-worktree bit (git then
never looks at the work tree for it: ``status``, ``diff``, ``add -A``, ``commit -a``
leave it as staged), and after the command exactly the bits set here are cleared again.
The user's own bits are never touched: an entry already marked is left out, so it is
not cleared after either.

A crash between the two must not leave the bits set (the user's next ``git commit -a``
would skip their edits to those files): what was set is written first to a record in
the shell's data folder (hidden from commands), removed once the bits are cleared, and
a record whose process is gone is undone when a sandbox is next made (:func:`recover`).
A ``.git/index.lock`` a command left keeps the bits from being cleared (finding Q22):
they are tried again around every command and at exit, where that lock, unchanged
since the command ended (its processes ended with it), is removed unless a live git
may own it (:mod:`.gitlockholders`). Two agent-shells
in one repository share the bits both need, and only the last clears them
(:mod:`.gitmarkrecords`). A hidden file git staged anew (a checkout) is brought along
in the work tree (:mod:`.gitsync`).

The bits are in the one index every git reads, so while a command runs the user's own
``git commit -a`` in another terminal skips their edits to those files too (finding S21).
No other mechanism reaches every git the sandbox starts (a private ``GIT_INDEX_FILE`` is
one ``unset`` away, and git replaces the index by a rename a bind mount refuses), and
knowing when a git in the sandbox runs would need every git a script starts to be seen:
so the window stays, and is said: after a commit made meanwhile that left edits of
marked files out, the result names them and how to commit them (:func:`_left_out`).

An entry in a merge conflict cannot be marked (git in the sandbox would resolve it as
deleted): :func:`mark` says so, and the command is not run. git runs here on the host,
hardened (:mod:`.githardened`), as for :mod:`.gitstaged`.
"""

from __future__ import annotations

import atexit
import contextlib
import os
import shlex
import sys
import threading
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from . import gitcopysync, githardened, gitlockholders, gitmarkrecords, gitnet, gitsync
from .gitstaged import git_dir, index_stamp, repository_of

TIMEOUT = 10.0
LOCK_TRIES = 20
"""Times an index another git holds locked is tried again, :data:`LOCK_WAIT` apart."""
LOCK_WAIT = 0.05
Staged = dict[bytes, bytes]
"""``name -> object`` of index entries."""
EXIT_WAIT = 2.0
"""Seconds the exit waits for a lock that keeps bits from being cleared (:func:`clear_at_exit`)."""

_lock = threading.Lock()
_pending: list[tuple[Marks, dict[Path, tuple[int, int]]]] = []
"""Bits a command's leftover ``index.lock`` kept from being cleared, with that lock as it
was seen then (inode, mtime): tried again around every command and at exit."""
_unmarkable: dict[tuple[Path, tuple[bytes, ...]], tuple[int, int, int]] = {}
"""Hidden paths under which an index (in this state) tracks nothing to mark: most commands
(an untracked ``.env``) then run no git here at all."""


@dataclass(frozen=True, slots=True)
class Marks:
    """The skip-worktree bits one command's marking set: per work tree, the index paths
    (as git names them), the record that lists them until they are cleared, and the
    object each was staged as (to tell what git changed under them meanwhile); and the
    hidden paths' index entries before the command, to put back what it dropped anyway
    (:mod:`.gitnet`)."""

    repos: Mapping[Path, tuple[bytes, ...]] = field(default_factory=dict)
    record: Path | None = None
    staged: Mapping[Path, Mapping[bytes, bytes]] = field(default_factory=dict)
    net: gitnet.Before = gitnet.NONE
    unlocked: frozenset[Path] = frozenset()
    """Repositories whose index had no lock file once marked: a lock there after the
    command may be the command's (:func:`clear_at_exit`)."""
    may_write: Callable[[Path], bool] = lambda _: False
    """Whether a hidden file may be brought along (:mod:`.gitsync`): no write rule covers
    it, not in plan mode; nothing, for a crashed session's bits."""
    copies: tuple[gitcopysync.CopiesBefore, ...] = ()
    """Tracked secret files shown as staged copies, not marked: brought along too (U9)."""

    def __bool__(self) -> bool:
        return any(self.repos.values()) or bool(self.net) or bool(self.copies)


NONE = Marks()


def mark(hidden: Iterable[Path], may_write: Callable[[Path], bool] = lambda _: False,
         denied: Iterable[Path] = (), copies: Mapping[Path, str] | None = None) -> tuple[Marks, str]:
    """Set skip-worktree on every entry git tracks at or under ``hidden`` (absolute
    paths), except those marked already; what was set, or why it could not be (then
    nothing is left set). ``may_write``: :attr:`Marks.may_write`; ``denied``: what deny
    rules name, existing or not (:func:`.gitnet.before`); ``copies``: tracked secret files shown
    as their staged copies, each with its copy (:mod:`.gitcopysync`)."""
    hidden = list(hidden)
    held = tuple(gitcopysync.before(copies or {}))
    by_repo: dict[Path, list[bytes]] = {}
    for path in hidden:
        repo = repository_of(path)
        if repo is not None:
            by_repo.setdefault(repo, []).append(os.fsencode(path.relative_to(repo).as_posix()))
    wanted: dict[Path, tuple[bytes, ...]] = {}
    setting: dict[Path, tuple[bytes, ...]] = {}
    staged: dict[Path, dict[bytes, bytes]] = {}
    retry_pending()
    with gitmarkrecords.deciding():
        for repo, rels in by_repo.items():
            key, stamp = (repo, tuple(rels)), index_stamp(repo)
            with _lock:
                if stamp is None or _unmarkable.get(key) == stamp:
                    continue  # no index: nothing tracked; or nothing to mark since it last changed
            listed = _tracked(repo, rels)
            if listed is None:
                continue  # not a repository git can read: nothing it could commit either
            plain, marked, conflicted = listed
            shared = gitmarkrecords.held_elsewhere(repo, list(marked), None) if marked else set()
            if not plain and not conflicted and not shared:
                with _lock:
                    if len(_unmarkable) >= 256:
                        _unmarkable.clear()
                    _unmarkable[key] = stamp
            if conflicted:
                shown = os.fsdecode(conflicted[0])
                more = f" and {len(conflicted) - 1} more" if len(conflicted) > 1 else ""
                return NONE, f"{shown}{more} {'are' if len(conflicted) > 1 else 'is'} in a merge conflict"
            if plain or shared:  # a bit another agent-shell's command holds is held by this one too
                wanted[repo] = (*plain, *sorted(shared))
                setting[repo] = tuple(plain)
                staged[repo] = {**plain, **{n: marked[n] for n in shared}}
        net = gitnet.before(hidden, denied)  # before marking: its entries are cached by the index's state
        if not wanted:
            return Marks(net=net, may_write=may_write, copies=held), ""
        marks = Marks(wanted, gitmarkrecords.write(wanted), staged, net, copies=held)
        for repo, names in setting.items():
            if names and not _update(repo, "--skip-worktree", names):
                unmark(marks, ours=False)  # the lock in the way is another git's
                return NONE, f"git's index in {repo} could not be marked (another git holds it locked?)"
    unlocked = frozenset(r for r in wanted if _lock_seen(r) == (0, 0))
    return Marks(wanted, marks.record, staged, gitnet.restamped(net), unlocked, may_write, held), ""


def unmark(marks: Marks, ours: bool = True) -> list[str]:
    """Clear the bits ``marks`` set (those still set: a command may have removed an
    entry or cleared one itself; not those another live command holds too); bring along
    hidden files git staged anew meanwhile (:mod:`.gitsync`); what the user must know:
    bits left set behind a lock, and hidden files it could not bring along. ``ours``: a
    lock in the way appeared during the command (none was there when it was marked);
    not so for a crashed session's bits."""
    left: dict[Path, tuple[int, int]] = {}
    untouched = gitnet.untouched(marks.net)
    out, moves = gitnet.after(marks.net)  # first: what it puts back is staged as before, no change to tell
    with gitmarkrecords.deciding():
        for repo, rels in marks.repos.items():
            now = _listed(repo, rels)
            if not _clear(repo, rels, now, marks.record):
                left[repo] = _lock_seen(repo) if ours and repo in marks.unlocked else (0, 0)
            was = marks.staged.get(repo, {})
            if now is not None:
                out += _brought(repo, was, {n: sha for n, (_, sha) in now.items()}, moves.get(repo),
                                marks.may_write)
            if (now is not None and repo not in left and repo not in moves
                    and gitnet.head_moved(marks.net, repo)):
                out += _left_out(repo, [n for n, sha in was.items() if n in now and now[n][1] == sha])
        for repo, move in moves.items():
            out += _written(repo, gitsync.write_missing(repo, move, marks.may_write))
        out += gitcopysync.after(marks.copies, marks.may_write)
    gitnet.remember(marks.net, untouched)  # the next command's snapshot then runs no git
    if marks.record is not None and not left:
        with contextlib.suppress(OSError):
            marks.record.unlink()
    if left:
        with _lock:
            _pending.append((marks, left))
        out.insert(0, f"skip-worktree bits agent-shell set in git's index for a command could not be "
                      f"cleared yet in {', '.join(map(str, left))} (a git lock file, .git/index.lock, is in "
                      "the way): they are cleared as soon as it is gone"
                      + (", when agent-shell exits at the latest (at its next start where another git "
                         "holds the lock then)" if ours else ""))
    retry_pending()
    return out


def _clear(repo: Path, rels: Sequence[bytes], now: Mapping[bytes, tuple[bytes, bytes]] | None,
           own: Path | None, tries: int = LOCK_TRIES) -> bool:
    """Clear the bits still set on ``rels`` but those another live record holds."""
    if now is None and git_dir(repo) is None:
        return True  # the repository is gone: nothing left to clear
    still = list(rels) if now is None else [n for n, (tag, _) in now.items() if tag == b"S"]
    held = gitmarkrecords.held_elsewhere(repo, still, own) if still else set()
    still = [n for n in still if n not in held]
    return not still or _update(repo, "--no-skip-worktree", still, tries)


def _left_out(repo: Path, names: Sequence[bytes]) -> list[str]:
    """A commit made while the marks were set (by the command, or by the user's own
    ``git commit -a`` in another terminal: the index is one for both) left out the edits
    in the work tree to marked files: git was told not to look at them (finding S21).
    They are not lost, only not committed: said, with the command that commits them."""
    if not names:
        return []
    done = githardened.run(["-C", str(repo), "diff-files", "--name-only", "-z", "--", *_specs(names)],
                           timeout=TIMEOUT)
    edited = [n for n in done.stdout.split(b"\0") if n] if done is not None and done.returncode == 0 else []
    if not edited:
        return []
    return [f"a commit made in {repo} while the command ran (by the command, or by you in another terminal) "
            f"left out the edits in the work tree to {_shown(edited)}: agent-shell had marked them "
            "skip-worktree for the command's length (so git in the sandbox does not take them for deleted), "
            "and every git reads the same index. Your edits are still there, not committed: "
            f"`git -C {shlex.quote(str(repo))} commit -a` commits them. Tell the user"]


def _brought(repo: Path, was: Mapping[bytes, bytes], now: Mapping[bytes, bytes], move: gitsync.Move | None,
             may_write: Callable[[Path], bool]) -> list[str]:
    brought, kept = gitsync.bring_along(repo, was, now, move, may_write)
    out = []
    if brought:
        out.append(f"hidden files git now stages another version of in {repo} ({_shown(brought)}) could "
                   "not be written by the command (the sandbox hides them): agent-shell brought them to that "
                   "version, as "
                   "the same command outside the sandbox would")
    if kept:
        out.append(f"the command changed what git has staged for hidden files in {repo} ({_shown(kept)}), "
                   "and they were NOT written (agent-shell brings a hidden file along only from what HEAD "
                   "held to a commit that existed before the command, where no write rule covers it: these "
                   "hold your own edits or staged version, or the version is the command's), so git status "
                   "shows them as changed; look at `git diff -- PATH`: `git checkout -- PATH` takes git's "
                   "version, `git add PATH` (or `git commit -a`) makes yours the staged one again")
    return out


def _written(repo: Path, names: Sequence[bytes]) -> list[str]:
    return [f"hidden files git now tracks in {repo} ({_shown(names)}) could not be written by the command "
            "(the sandbox hides their folder): agent-shell wrote them, as the same command outside the "
            "sandbox would"] if names else []


def _shown(names: Sequence[bytes]) -> str:
    more = f" and {len(names) - 5} more" if len(names) > 5 else ""
    return ", ".join(os.fsdecode(n) for n in names[:5]) + more


def retry_pending(wait: float = 0.0) -> None:
    """Clear the bits a lock kept set, where it is gone now (tried for ``wait`` seconds)."""
    deadline = time.monotonic() + wait
    while True:
        with _lock:
            pending = list(_pending)
        for marks, locks in pending:
            with gitmarkrecords.deciding():
                done = all(_clear(repo, rels, _listed(repo, rels), marks.record, tries=1)
                           for repo, rels in marks.repos.items())
            if done:
                with _lock:
                    if (marks, locks) in _pending:
                        _pending.remove((marks, locks))
                if marks.record is not None:
                    with contextlib.suppress(OSError):
                        marks.record.unlink()
        with _lock:
            if not _pending or time.monotonic() >= deadline:
                return
        time.sleep(LOCK_WAIT)


def clear_at_exit() -> None:
    """At exit: the bits a lock kept set cleared; a lock still there, the very one seen
    when the command ended, that no live git may own (:mod:`.gitlockholders`), is that
    command's (its processes ended with it), and is removed as git's own message says
    to. Another's is left, and said: the bits are then cleared when agent-shell next
    starts (the record stays)."""
    retry_pending(EXIT_WAIT)
    with _lock:
        pending = list(_pending)
    for _, locks in pending:
        for repo, seen in locks.items():
            lock, gitdir = _lock_file(repo), git_dir(repo)
            if lock is None or gitdir is None or seen == (0, 0) or _lock_seen(repo) != seen:
                continue
            held = gitlockholders.holders(repo, gitdir, lock)
            if held:
                with contextlib.suppress(OSError, ValueError):
                    sys.stderr.write(f"agent-shell: skip-worktree bits it set in {repo} are left set: {lock} "
                                     f"is held by another git (pid {held[0]}), not removed; they are cleared "
                                     "when agent-shell next starts (or `git update-index --no-skip-worktree` "
                                     "them)\n")
                continue
            with contextlib.suppress(OSError):
                os.unlink(lock)
    retry_pending()


atexit.register(clear_at_exit)


def _lock_file(repo: Path) -> Path | None:
    gitdir = git_dir(repo)
    return gitdir / "index.lock" if gitdir is not None else None


def _lock_seen(repo: Path) -> tuple[int, int]:
    lock = _lock_file(repo)
    try:
        st = os.lstat(lock) if lock is not None else None
    except OSError:
        return (0, 0)
    return (st.st_ino, st.st_mtime_ns) if st is not None else (0, 0)


def recover() -> list[str]:
    """Undo the records of processes that ended without clearing their bits (a crash,
    a kill): what could not be undone, said once."""
    out = []
    for record in gitmarkrecords.records():
        pid = gitmarkrecords.owner(record)
        if pid is None or gitmarkrecords.alive(pid):
            continue
        repos = gitmarkrecords.read(record)
        if repos is None:
            with contextlib.suppress(OSError):
                record.unlink()
            continue
        said = unmark(Marks(repos, record), ours=False)
        out += [f"an earlier session ended before it cleared them: {line}" for line in said]
    return out


SPARSE_KEY = "sparse.expectFilesOutsideOfPatterns"


def kept_in_sparse_checkouts(env: dict[str, str]) -> dict[str, str]:
    """``env`` with git told (``GIT_CONFIG_*``, after the user's own) to keep the marks of
    files that are present: in a sparse checkout git clears the skip-worktree bit of every
    file it finds in the work tree, and the sandbox's empty stand-ins are there."""
    return with_git_config(env, SPARSE_KEY, "true")


def with_git_config(env: dict[str, str], key: str, value: str) -> dict[str, str]:
    """``env`` with git told ``key = value`` through ``GIT_CONFIG_*``, after the user's own
    (which wins over every config file)."""
    count = env.get("GIT_CONFIG_COUNT", "0") or "0"
    if not count.isdigit():
        return env  # the user's own is broken: git says so; adding to it would not help
    n = int(count)
    env.update({f"GIT_CONFIG_KEY_{n}": key, f"GIT_CONFIG_VALUE_{n}": value})
    env["GIT_CONFIG_COUNT"] = str(n + 1)
    return env


def _tracked(repo: Path, rels: Sequence[bytes]) -> tuple[Staged, Staged, list[bytes]] | None:
    """The entries at or under ``rels`` not marked skip-worktree yet, those marked
    already (the user's, or another agent-shell's), and those in a merge conflict
    (None: git could not list them)."""
    done = githardened.run(["-C", str(repo), "ls-files", "-t", "-z", "--stage", "--", *_specs(rels)],
                           timeout=TIMEOUT)
    if done is None or done.returncode != 0:
        return None
    plain: dict[bytes, bytes] = {}
    marked: dict[bytes, bytes] = {}
    conflicted: list[bytes] = []
    for entry in done.stdout.split(b"\0"):
        tag, _, rest = entry.partition(b" ")
        meta, _, name = rest.partition(b"\t")
        fields = meta.split()
        if not name or len(fields) != 3:
            continue
        if fields[2] != b"0":
            if name not in conflicted:
                conflicted.append(name)
        elif tag == b"H":
            plain[name] = fields[1]
        elif tag == b"S":
            marked[name] = fields[1]
    return plain, marked, conflicted


def _listed(repo: Path, rels: Sequence[bytes]) -> dict[bytes, tuple[bytes, bytes]] | None:
    """``name -> (tag, object)`` for the entries named exactly ``rels`` (None: git failed)."""
    done = githardened.run(["-C", str(repo), "ls-files", "-t", "-z", "--stage", "--", *_specs(rels)],
                           timeout=TIMEOUT)
    if done is None or done.returncode != 0:
        return None
    wanted = set(rels)
    out: dict[bytes, tuple[bytes, bytes]] = {}
    for entry in done.stdout.split(b"\0"):
        tag, _, rest = entry.partition(b" ")
        meta, _, name = rest.partition(b"\t")
        fields = meta.split()
        if name in wanted and len(fields) == 3:
            out[name] = (tag, fields[1])
    return out


def _specs(rels: Sequence[bytes]) -> list[str]:
    """Pathspecs naming exactly ``rels`` (no wildcard, no magic a name could spell)."""
    return [":(literal)" + os.fsdecode(r) for r in dict.fromkeys(rels)]


def _update(repo: Path, flag: str, rels: Sequence[bytes], tries: int = LOCK_TRIES) -> bool:
    """``git update-index FLAG`` on ``rels``, tried again while another git holds the index."""
    stdin = b"".join(r + b"\0" for r in rels)
    for _ in range(tries):
        done = githardened.run(["-C", str(repo), "update-index", flag, "-z", "--stdin"], stdin=stdin,
                               timeout=TIMEOUT)
        if done is not None and done.returncode == 0:
            return True
        if done is None or b"index.lock" not in done.stderr:
            return False
        time.sleep(LOCK_WAIT)
    return False


__all__ = ["NONE", "Marks", "clear_at_exit", "kept_in_sparse_checkouts", "mark", "recover", "retry_pending",
           "unmark", "with_git_config"]
