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

An entry in a merge conflict cannot be marked (git in the sandbox would resolve it as
deleted): :func:`mark` says so, and the command is not run. git runs here on the host,
hardened (:mod:`.githardened`), as for :mod:`.gitstaged`.
"""

from __future__ import annotations

import contextlib
import itertools
import json
import os
import threading
import time
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from shell.core.dirs import data_dir

from . import githardened, gitnet
from .gitstaged import index_stamp, repository_of

TIMEOUT = 10.0
LOCK_TRIES = 20
"""Times an index another git holds locked is tried again, :data:`LOCK_WAIT` apart."""
LOCK_WAIT = 0.05
RECORDS = "index-marks"
"""The folder (in the data dir) of records of bits set and not yet cleared."""

_counter = itertools.count()
_lock = threading.Lock()
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

    def __bool__(self) -> bool:
        return any(self.repos.values()) or bool(self.net)


NONE = Marks()


def mark(hidden: Iterable[Path]) -> tuple[Marks, str]:
    """Set skip-worktree on every entry git tracks at or under ``hidden`` (absolute
    paths), except those marked already; what was set, or why it could not be (then
    nothing is left set)."""
    hidden = list(hidden)
    by_repo: dict[Path, list[bytes]] = {}
    for path in hidden:
        repo = repository_of(path)
        if repo is not None:
            by_repo.setdefault(repo, []).append(os.fsencode(path.relative_to(repo).as_posix()))
    wanted: dict[Path, tuple[bytes, ...]] = {}
    staged: dict[Path, dict[bytes, bytes]] = {}
    for repo, rels in by_repo.items():
        key, stamp = (repo, tuple(rels)), index_stamp(repo)
        with _lock:
            if stamp is None or _unmarkable.get(key) == stamp:
                continue  # no index: nothing tracked; or nothing to mark since it last changed
        listed = _tracked(repo, rels)
        if listed is None:
            continue  # not a repository git can read: nothing it could commit either
        plain, conflicted = listed
        if not plain and not conflicted:
            with _lock:
                if len(_unmarkable) >= 256:
                    _unmarkable.clear()
                _unmarkable[key] = stamp
        if conflicted:
            shown = os.fsdecode(conflicted[0])
            more = f" and {len(conflicted) - 1} more" if len(conflicted) > 1 else ""
            return NONE, f"{shown}{more} {'are' if len(conflicted) > 1 else 'is'} in a merge conflict"
        if plain:
            wanted[repo] = tuple(plain)
            staged[repo] = plain
    net = gitnet.before(hidden)  # before marking: its entries are cached by the index's state
    if not wanted:
        return Marks(net=net), ""
    marks = Marks(wanted, _write_record(wanted), staged, net)
    for repo, names in wanted.items():
        if not _update(repo, "--skip-worktree", names):
            unmark(marks)
            return NONE, f"git's index in {repo} could not be marked (another git holds it locked?)"
    return Marks(wanted, marks.record, staged, gitnet.restamped(net)), ""


def unmark(marks: Marks) -> list[str]:
    """Clear the bits ``marks`` set (those still set: a command may have removed an
    entry or cleared one itself); what the user must know: bits left set, and hidden
    files git staged anew meanwhile (a checkout, a merge, a reset: git could not write
    them, so the work tree keeps the user's version, which ``git commit -a`` would
    commit back)."""
    left: list[str] = []
    untouched = gitnet.untouched(marks.net)
    out = gitnet.after(marks.net)  # first: what it puts back is staged as before, no change to tell
    for repo, rels in marks.repos.items():
        now = _listed(repo, rels)
        still = list(rels) if now is None else [n for n, (tag, _) in now.items() if tag == b"S"]
        if still and not _update(repo, "--no-skip-worktree", still):
            left.append(str(repo))
        was = marks.staged.get(repo, {})
        moved = sorted(n for n, sha in was.items() if now is not None and (now.get(n, (b"", b""))[1] != sha))
        if moved:
            shown = ", ".join(os.fsdecode(n) for n in moved[:5]) + (f" and {len(moved) - 5} more"
                                                                  if len(moved) > 5 else "")
            out.append(f"the command changed what git has staged for hidden files in {repo} ({shown}): git "
                       "could not write them there, so your work tree still holds your version and git "
                       "status shows it as changed; `git checkout -- PATH` takes git's version, `git add "
                       "PATH` (or `git commit -a`) makes yours the staged one again")
    gitnet.remember(marks.net, untouched)  # the next command's snapshot then runs no git
    if marks.record is not None and not left:
        with contextlib.suppress(OSError):
            marks.record.unlink()
    if left:
        out.insert(0, f"skip-worktree bits agent-shell set in git's index for a command could not be cleared "
                      f"in {', '.join(left)}: run `git ls-files -t | grep '^S'` there and `git update-index "
                      "--no-skip-worktree` on the paths you did not mark yourself")
    return out


def recover() -> list[str]:
    """Undo the records of processes that ended without clearing their bits (a crash,
    a kill): what could not be undone, said once."""
    folder = data_dir() / RECORDS
    try:
        records = sorted(folder.iterdir())
    except OSError:
        return []
    out = []
    for record in records:
        pid = record.name.partition("-")[0]
        if not pid.isdigit() or _alive(int(pid)):
            continue
        marks = _read_record(record)
        if marks is None:
            with contextlib.suppress(OSError):
                record.unlink()
            continue
        out += [f"an earlier session ended before it cleared them: {said}" for said in unmark(marks)]
    return out


SPARSE_KEY = "sparse.expectFilesOutsideOfPatterns"


def kept_in_sparse_checkouts(env: dict[str, str]) -> dict[str, str]:
    """``env`` with git told (``GIT_CONFIG_*``, after the user's own) to keep the marks of
    files that are present: in a sparse checkout git clears the skip-worktree bit of every
    file it finds in the work tree, and the sandbox's empty stand-ins are there."""
    count = env.get("GIT_CONFIG_COUNT", "0") or "0"
    if not count.isdigit():
        return env  # the user's own is broken: git says so; adding to it would not help
    n = int(count)
    env.update({f"GIT_CONFIG_KEY_{n}": SPARSE_KEY, f"GIT_CONFIG_VALUE_{n}": "true"})
    env["GIT_CONFIG_COUNT"] = str(n + 1)
    return env


def _tracked(repo: Path, rels: Sequence[bytes]) -> tuple[dict[bytes, bytes], list[bytes]] | None:
    """The entries at or under ``rels`` not marked skip-worktree yet, and those in a
    merge conflict (None: git could not list them)."""
    done = githardened.run(["-C", str(repo), "ls-files", "-t", "-z", "--stage", "--", *_specs(rels)],
                           timeout=TIMEOUT)
    if done is None or done.returncode != 0:
        return None
    plain: dict[bytes, bytes] = {}
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
    return plain, conflicted


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


def _update(repo: Path, flag: str, rels: Sequence[bytes]) -> bool:
    """``git update-index FLAG`` on ``rels``, tried again while another git holds the index."""
    stdin = b"".join(r + b"\0" for r in rels)
    for _ in range(LOCK_TRIES):
        done = githardened.run(["-C", str(repo), "update-index", flag, "-z", "--stdin"], stdin=stdin,
                               timeout=TIMEOUT)
        if done is not None and done.returncode == 0:
            return True
        if done is None or b"index.lock" not in done.stderr:
            return False
        time.sleep(LOCK_WAIT)
    return False


def _write_record(wanted: Mapping[Path, Sequence[bytes]]) -> Path | None:
    """The record of the bits about to be set (None: it could not be written; the bits
    are still set and cleared after the command, only a crash would leave them)."""
    folder = data_dir() / RECORDS
    with _lock:
        name = f"{os.getpid()}-{next(_counter)}.json"
    body = {str(repo): [os.fsdecode(r) for r in rels] for repo, rels in wanted.items()}
    try:
        folder.mkdir(parents=True, exist_ok=True, mode=0o700)
        path = folder / name
        path.write_text(json.dumps(body), encoding="utf-8", errors="surrogateescape")
    except OSError:
        return None
    return path


def _read_record(record: Path) -> Marks | None:
    try:
        body = json.loads(record.read_text(encoding="utf-8", errors="surrogateescape"))
    except (OSError, ValueError):
        return None
    if not isinstance(body, dict):
        return None
    repos: dict[Path, tuple[bytes, ...]] = {}
    for repo, rels in body.items():
        if isinstance(repo, str) and os.path.isabs(repo) and isinstance(rels, list):
            repos[Path(repo)] = tuple(os.fsencode(r) for r in rels if isinstance(r, str) and r)
    return Marks(repos, record)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:
        return True  # someone else's: alive
    return True


__all__ = ["NONE", "Marks", "kept_in_sparse_checkouts", "mark", "recover", "unmark"]
