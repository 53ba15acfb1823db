"""The second net under hidden paths: git's index after a command, against before it.

:mod:`.gitmarks` marks what git tracks under hidden paths skip-worktree, and
:mod:`.gitexclude` excludes hidden files git does not track. A command defeats both
without meaning to: ``rm .git/index && git reset`` (the textbook fix for a corrupt
index) or ``git read-tree HEAD`` rebuilds the index without the marks, and a commit
then deletes the read-denied folder (finding Q17); a ``!.env`` line in ``.gitignore``
beats every exclude, and ``git add -A`` stages the empty stand-in of ``.env`` (Q18).

So, once the command ended and the marks are cleared, the index entries under the
hidden paths are compared with those before it (one ``git ls-files -s`` each side,
only in a repository holding hidden paths, and after only when the index changed):
an entry of a hidden tracked file the command dropped, or changed while HEAD stayed,
is put back as it was staged; an entry the command gave a hidden untracked file is
taken out (``git rm --cached``). A commit the command made is not rewritten (the
user's history is theirs to change), but the result says loudly what it deletes or
adds and the exact commands that undo it: only a commit the command made
(:mod:`.githeads`), also one built with ``git commit-tree`` and ``git update-ref``, the
index untouched (so HEAD is compared too: read from git's files, no git started). A
checkout, a reset or a fast-forward to a commit that existed before the command (some
ref reached it then) staged another version on purpose: :func:`.gitmarks.unmark` brings
the work tree along, where :mod:`.gitsync` finds that loses and writes nothing it should not.
"""

from __future__ import annotations

import contextlib
import os
import shlex
import threading
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path

from . import gitdeniedcopies, githardened, githeads, gitsync
from .gitexclude import hold_exclude, release
from .githistory import committed_denied
from .gitstaged import git_dir, index_stamp, repository_of, staged_entries

TIMEOUT = 10.0
_lock = threading.Lock()
_known: dict[tuple[Path, tuple[bytes, ...]], tuple[tuple[int, int, int], Entries]] = {}
_first_tips: dict[Path, tuple[bytes, ...] | None] = {}
"""Each repository's ref tips before the first command this process ran there."""
Entries = Mapping[bytes, tuple[bytes, bytes]]
"""``name -> (mode, object)`` of the index entries at stage 0."""


@dataclass(frozen=True, slots=True)
class RepoBefore:
    """One repository's hidden paths as git had them before a command."""

    rels: tuple[bytes, ...]
    entries: Entries
    untracked: tuple[bytes, ...]
    """Hidden files with no index entry at or under them."""
    head: bytes
    """HEAD's commit (empty: no commit yet)."""
    stamp: tuple[int, int, int] | None
    made: Path | None = None
    """The empty ``info/exclude`` made for the command (:func:`.gitexclude.hold_exclude`)."""
    tips: tuple[bytes, ...] | None = ()
    """The commits every ref pointed at before (:func:`.githeads.tips`): HEAD moved to one
    they reach is a checkout of a commit that existed before; any other was made here."""
    first: tuple[bytes, ...] | None = None
    """:attr:`tips` before this process's first command there: only a move to a commit they
    reach is brought along (an earlier command's branch is content a command chose)."""
    denied: tuple[bytes, ...] = ()
    """Paths a deny rule on reading names whose content git holds (index or history), existing
    or not: what the command copies of them elsewhere is looked for (:mod:`.gitdeniedcopies`)."""
    absent: tuple[bytes, ...] = ()
    """Those of :attr:`denied` that did not exist when the command started (not hidden)."""


@dataclass(frozen=True, slots=True)
class Before:
    repos: Mapping[Path, RepoBefore] = field(default_factory=dict)

    def __bool__(self) -> bool:
        return bool(self.repos)


NONE = Before()


def before(hidden: Iterable[Path], denied: Iterable[Path] = ()) -> Before:
    """What git tracks at or under ``hidden`` (absolute paths), and which hidden files it
    does not, per repository holding any of them; and which of ``denied`` (what deny rules
    on reading name, existing or not) git holds content of."""
    hidden = list(hidden)
    by_repo: dict[Path, list[Path]] = {}
    for path in hidden:
        repo = repository_of(path)
        if repo is not None and git_dir(repo) is not None:
            by_repo.setdefault(repo, []).append(path)
    held: dict[Path, list[Path]] = {}
    denied = list(denied)
    ruled = set(denied)
    for path in [*committed_denied(denied), *(p for p in hidden if p in ruled)]:  # in history, or hidden now
        repo = repository_of(path)
        if repo is not None and git_dir(repo) is not None and path != repo:
            held.setdefault(repo, []).append(path)
            by_repo.setdefault(repo, [])
    out: dict[Path, RepoBefore] = {}
    for repo, found in by_repo.items():
        named = held.get(repo, [])
        denied_rels = tuple(dict.fromkeys(os.fsencode(p.relative_to(repo).as_posix()) for p in named))
        absent = tuple(dict.fromkeys(os.fsencode(p.relative_to(repo).as_posix()) for p in named
                                     if not os.path.lexists(p)))
        rels = tuple(dict.fromkeys(os.fsencode(p.relative_to(repo).as_posix()) for p in found))
        stamp = index_stamp(repo)
        entries = _cached_entries(repo, rels, stamp) if rels else {}
        if entries is None:
            continue  # git cannot read it: nothing it could commit either
        files = {os.fsencode(p.relative_to(repo).as_posix()) for p in found if not p.is_dir()}
        untracked = tuple(r for r in rels if r in files and not any(_under(n, r) for n in entries))
        if entries or untracked or denied_rels:
            made = hold_exclude(repo) if untracked else None
            head = _head(repo)
            tips = githeads.tips(repo, head, git_dir(repo))
            with _lock:
                first = _first_tips.setdefault(repo, tips)
            out[repo] = RepoBefore(rels, entries, untracked, head, stamp, made, tips, first,
                                   denied_rels, absent)
    return Before(out)


def restamped(was: Before) -> Before:
    """``was`` with each index's state as it is now: after the marks were set, which
    change no entry, so that :func:`after` runs git only where the command changed the index."""
    return Before({repo: replace(old, stamp=index_stamp(repo)) for repo, old in was.repos.items()})


def untouched(was: Before) -> list[Path]:
    """The repositories whose index the command left as :func:`restamped` saw it."""
    return [repo for repo, old in was.repos.items()
            if old.stamp is not None and index_stamp(repo) == old.stamp]


def head_moved(was: Before, repo: Path) -> bool:
    """Whether ``repo``'s HEAD is no longer the commit it was before the command."""
    old = was.repos.get(repo)
    return old is not None and _head(repo) != old.head


def remember(was: Before, repos: Sequence[Path]) -> None:
    """Once the marks are cleared in ``repos`` (left :func:`untouched` by the command): their
    entries are those before it, in the index's new state."""
    for repo in repos:
        stamp, old = index_stamp(repo), was.repos[repo]
        if stamp is not None:
            with _lock:
                _known[(repo, old.rels)] = (stamp, old.entries)


def after(was: Before) -> tuple[list[str], dict[Path, gitsync.Move]]:
    """Put the index back where the command changed it under hidden paths; what the user
    must know (a commit it made that deletes or adds one, entries put back); and where
    HEAD moved to a commit that existed before the command (a checkout, a reset, a
    fast-forward to a branch fetched earlier): the hidden files' versions on both sides,
    which :mod:`.gitsync` brings the work tree along to."""
    out: list[str] = []
    moves: dict[Path, gitsync.Move] = {}
    for repo, old in was.repos.items():
        if old.made is not None:
            release(old.made)
        head, same_index = _head(repo), index_stamp(repo) == old.stamp
        moved = head != old.head
        made = githeads.made_here(repo, old.tips, head) if moved and head else []
        if old.denied:  # a copy of denied content under another name, also on another branch
            out += gitdeniedcopies.after_command(repo, old.denied, old.absent, old.head, head, made,
                                                 moved and bool(head) and not made, old.tips, same_index)
        if same_index and not moved:
            continue  # the index and HEAD as they were: nothing staged, nothing committed
        now = dict(old.entries) if same_index else staged_entries(repo, old.rels, TIMEOUT) if old.rels else {}
        if now is None or not old.rels:
            continue
        if moved and head and not made:  # to a commit that existed before: on purpose
            move = _move(repo, old, head, {n: now[n][1] for n in now if n not in old.entries})
            if move is not None and not githeads.made_here(repo, old.first, head):  # not an earlier command's
                moves[repo] = move
            continue  # the work tree is brought along once the marks are cleared (.gitmarks)
        deleted: dict[bytes, bytes] = {}
        committed: dict[bytes, bytes] = {}
        for commit, status, name in reversed(githeads.changes(repo, made, old.rels)):
            if status == b"D" and name in old.entries:
                deleted.setdefault(name, commit)
            elif status == b"A" and any(_under(name, n) for n in old.untracked):
                committed.setdefault(name, commit)
        missing = [n for n in old.entries if n not in now]
        kept = set(githeads.in_tree(repo, head, old.rels) or ()) if moved and missing else set()
        dropped = [n for n in missing if not moved or n in deleted or n in kept]
        dropped += [] if moved else [n for n, e in old.entries.items() if n in now and now[n] != e]
        added = [n for n in old.untracked if any(_under(m, n) for m in now)]
        put = _put_back(repo, {n: old.entries[n] for n in dropped}) if dropped else False
        taken = _taken_out(repo, [m for m in now if any(_under(m, n) for n in added)]) if added else False
        staged = all(n in now or (put and n in dropped) for n in deleted)
        out += _committed_notes(repo, head, deleted, staged, committed, taken or not added)
        dropped = [n for n in dropped if n not in deleted]
        added = [n for n in added if not any(_under(c, n) for c in committed)]
        where = shlex.quote(str(repo))
        if dropped:
            out.append(f"the command dropped or changed git's index entries of hidden files in {repo} "
                       f"({_names(dropped)}): " + ("put back as they were staged" if put else
                                                   "they could not be put back (`git add` them yourself)"))
        if added:
            out.append(f"the command staged hidden files in {repo} ({_names(added)}) as their empty "
                       "stand-ins: " + ("taken out of the index again" if taken else
                                        f"they could not be taken out: run `git -C {where} rm --cached -- "
                                        f"{_args(added)}`"))
    return out, moves


def _move(repo: Path, old: RepoBefore, head: bytes, new: Mapping[bytes, bytes]) -> gitsync.Move | None:
    """The hidden files' objects in HEAD's tree before the command and now, and the index
    entries new under them (None: git could not say)."""
    was, now = githeads.in_tree(repo, old.head, old.rels), githeads.in_tree(repo, head, old.rels)
    return gitsync.Move(was, now, new) if was is not None and now is not None else None


def _committed_notes(repo: Path, head: bytes, deleted: Mapping[bytes, bytes], staged: bool,
                     committed: Mapping[bytes, bytes], taken: bool) -> list[str]:
    """Loud: a commit the command made deletes hidden tracked files or adds hidden
    untracked ones empty, and the exact commands that undo it (history is not rewritten).
    ``staged``: the index holds the deleted files as before (kept or put back)."""
    where = shlex.quote(str(repo))
    out = []
    if deleted:
        commit = next(iter(deleted.values()))
        amend = (f"`git -C {where} commit --amend --no-edit` (that commit is HEAD) or "
                 if commit == head else "")
        names = list(deleted)
        undo = (f"their index entries are as they were staged. Before you push: {amend}`git -C {where} "
                "commit "
                "-m 'Restore hidden files'`" if staged else
                f"before you push: `git -C {where} add -- {_args(names)} && git -C {where} "
                + ("commit --amend --no-edit`" if commit == head else "commit -m 'Restore hidden files'`"))
        out.append(f"WARNING: {_commit(repo, commit, head)} DELETES {_names(names)}, hidden from the command "
                   f"(git took the empty stand-in for a deletion); your files are untouched and {undo}. Tell "
                   "the user")
    if committed:
        commit, names = next(iter(committed.values())), list(committed)
        fix = (f"`git -C {where} rm --cached -q --ignore-unmatch -- {_args(names)} && git -C {where} commit "
               + ("--amend --no-edit` (that commit is HEAD)" if commit == head
                  else "-m 'Untrack hidden files'`"))
        out.append(f"WARNING: {_commit(repo, commit, head)} ADDS {_names(names)} EMPTY (the sandbox's "
                   "stand-in for a hidden file); your real file is untouched, and `git status` shows its "
                   "content as a change, "
                   f"one `git commit -a` from being published. Before you push: {fix}"
                   + (" (the first half is done)" if taken else "") + ". Tell the user")
    return out


def _commit(repo: Path, commit: bytes, head: bytes) -> str:
    where = "HEAD" if commit == head else "in the history"
    return f"a commit this command made ({commit[:12].decode()}, {where} of {repo})"


def _cached_entries(repo: Path, rels: tuple[bytes, ...],
                    stamp: tuple[int, int, int] | None) -> Entries | None:
    """:func:`_entries`, asked again only when the index changed (most commands change
    nothing, and a ``.env`` in the repository makes this run before each)."""
    if stamp is None:
        return {}
    with _lock:
        known = _known.get((repo, rels))
    if known is not None and known[0] == stamp:
        return known[1]
    found = staged_entries(repo, rels, TIMEOUT)
    if found is not None:
        with _lock:
            if len(_known) >= 256:
                _known.clear()
            _known[(repo, rels)] = (stamp, found)
    return found


def head_commit(repo: Path) -> bytes:
    """HEAD's commit (empty: none yet), as :func:`_head` reads it."""
    return _head(repo)


def _head(repo: Path) -> bytes:
    """HEAD's commit, read from git's files where they are plain (no git started: this runs
    before every command in a repository holding a ``.env``), else from ``git rev-parse``."""
    gitdir = git_dir(repo)
    with contextlib.suppress(OSError, ValueError):
        if gitdir is not None:
            read = _head_from_files(gitdir)
            if read is not None:
                return read
    done = githardened.run(["-C", str(repo), "rev-parse", "-q", "--verify", "HEAD^{commit}"], timeout=TIMEOUT)
    return done.stdout.strip() if done is not None and done.returncode == 0 else b""


def _head_from_files(gitdir: Path) -> bytes | None:
    """HEAD from ``HEAD``, a loose ref or ``packed-refs`` (None: git must say: a reftable,
    a symbolic ref to a symbolic ref, anything unusual)."""
    head = _read(gitdir / "HEAD")
    pointer = gitdir / "commondir"
    common = gitdir / os.fsdecode(_read(pointer)) if pointer.is_file() else gitdir
    if (common / "reftable").exists():
        return None
    if head.startswith(b"ref: refs/"):
        ref = head[5:]
        if b".." in ref.split(b"/") or b"\0" in ref:
            return None
        loose = common / os.fsdecode(ref)
        if loose.is_file():
            head = _read(loose)
        elif (common / "packed-refs").is_file():
            found = [line.split()[0] for line in _read(common / "packed-refs").splitlines()
                     if not line.startswith((b"#", b"^")) and line.split()[1:2] == [ref]]
            head = found[0] if found else b""
        else:
            return b""  # an unborn branch: no commit yet
        if not head:
            return b""
    return head if len(head) in (40, 64) and all(c in b"0123456789abcdef" for c in head) else None


def _read(path: Path) -> bytes:
    with open(path, "rb") as handle:
        return handle.read(1 << 20).strip()


def _put_back(repo: Path, entries: Entries) -> bool:
    """``git update-index --index-info``: each entry as it was staged (stage 0)."""
    stdin = b"".join(mode + b" " + sha + b"\t" + name + b"\0" for name, (mode, sha) in entries.items())
    done = githardened.run(["-C", str(repo), "update-index", "-z", "--index-info"], stdin=stdin,
                           timeout=TIMEOUT)
    return done is not None and done.returncode == 0


def _taken_out(repo: Path, names: Sequence[bytes]) -> bool:
    """``git rm --cached`` without its check (the staged empty stand-in differs from both
    HEAD and the user's file, which ``git rm`` refuses): the entries go, the file stays."""
    done = githardened.run(["-C", str(repo), "update-index", "-z", "--force-remove", "--stdin"],
                           stdin=b"".join(n + b"\0" for n in names), timeout=TIMEOUT)
    return done is not None and done.returncode == 0


def _under(name: bytes, rel: bytes) -> bool:
    return name == rel or name.startswith(rel + b"/")


def _names(names: Sequence[bytes]) -> str:
    shown = ", ".join(os.fsdecode(n) for n in names[:5])
    return shown + (f" and {len(names) - 5} more" if len(names) > 5 else "")


def _args(names: Sequence[bytes]) -> str:
    return " ".join(shlex.quote(os.fsdecode(n)) for n in names)


__all__ = ["NONE", "Before", "after", "before", "head_moved", "remember", "restamped", "untouched"]
