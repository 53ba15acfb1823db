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
adds and the exact commands that undo it. A checkout or reset to another commit
(HEAD moved to a commit that does not descend from the old one) is left to
:func:`.gitmarks.unmark`'s note: git staged another version there on purpose.
"""

from __future__ import annotations

import contextlib
import os
import shlex
import threading
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path

from . import githardened
from .gitexclude import hold_exclude, release
from .gitstaged import git_dir, index_stamp, repository_of

TIMEOUT = 10.0
_lock = threading.Lock()
_known: dict[tuple[Path, tuple[bytes, ...]], tuple[tuple[int, int, int], Entries]] = {}
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


@dataclass(frozen=True, slots=True)
class Before:
    repos: Mapping[Path, RepoBefore] = field(default_factory=dict)

    def __bool__(self) -> bool:
        return bool(self.repos)


NONE = Before()


def before(hidden: Iterable[Path]) -> Before:
    """What git tracks at or under ``hidden`` (absolute paths), and which hidden files it
    does not, per repository holding any of them."""
    by_repo: dict[Path, list[Path]] = {}
    for path in hidden:
        repo = repository_of(path)
        if repo is not None and git_dir(repo) is not None:
            by_repo.setdefault(repo, []).append(path)
    out: dict[Path, RepoBefore] = {}
    for repo, found in by_repo.items():
        rels = tuple(dict.fromkeys(os.fsencode(p.relative_to(repo).as_posix()) for p in found))
        stamp = index_stamp(repo)
        entries = _cached_entries(repo, rels, stamp)
        if entries is None:
            continue  # git cannot read it: nothing it could commit either
        files = {os.fsencode(p.relative_to(repo).as_posix()) for p in found if not p.is_dir()}
        untracked = tuple(r for r in rels if r in files and not any(_under(n, r) for n in entries))
        if entries or untracked:
            made = hold_exclude(repo) if untracked else None
            out[repo] = RepoBefore(rels, entries, untracked, _head(repo), stamp, made)
    return Before(out)


def restamped(was: Before) -> Before:
    """``was`` with each index's state as it is now: after the marks were set, which
    change no entry, so that :func:`after` runs git only where the command changed the index."""
    return Before({repo: replace(old, stamp=index_stamp(repo)) for repo, old in was.repos.items()})


def untouched(was: Before) -> list[Path]:
    """The repositories whose index the command left as :func:`restamped` saw it."""
    return [repo for repo, old in was.repos.items()
            if old.stamp is not None and index_stamp(repo) == old.stamp]


def remember(was: Before, repos: Sequence[Path]) -> None:
    """Once the marks are cleared in ``repos`` (left :func:`untouched` by the command): their
    entries are those before it, in the index's new state."""
    for repo in repos:
        stamp, old = index_stamp(repo), was.repos[repo]
        if stamp is not None:
            with _lock:
                _known[(repo, old.rels)] = (stamp, old.entries)


def after(was: Before) -> list[str]:
    """Put the index back where the command changed it under hidden paths; what the user
    must know (a commit that deletes or adds one, entries put back)."""
    out: list[str] = []
    for repo, old in was.repos.items():
        if old.made is not None:
            release(old.made)
        if index_stamp(repo) == old.stamp:
            continue  # the index is as it was: nothing was staged, nothing committed from it
        now = _entries(repo, old.rels)
        if now is None:
            continue
        head = _head(repo)
        moved = head != old.head
        if moved and old.head and not _descends(repo, old.head, head):
            continue  # a checkout or reset elsewhere: gitmarks.unmark says what it staged
        dropped = [n for n, e in old.entries.items() if n not in now or (not moved and now[n] != e)]
        added = [n for n in old.untracked if any(_under(m, n) for m in now)]
        put = _put_back(repo, {n: old.entries[n] for n in dropped}) if dropped else False
        taken = _taken_out(repo, [m for m in now if any(_under(m, n) for n in added)]) if added else False
        if moved and head:
            deleted = [n for n in dropped if _in_tree(repo, old.head, n) and not _in_tree(repo, head, n)]
            committed = [n for n in added if _in_tree(repo, head, n)]
            out += _committed_notes(repo, head, deleted, put, committed, taken)
            dropped = [n for n in dropped if n not in deleted]
            added = [n for n in added if n not in committed]
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
    return out


def _committed_notes(repo: Path, head: bytes, deleted: Sequence[bytes], put: bool,
                     committed: Sequence[bytes], taken: bool) -> list[str]:
    """Loud: a commit the command made deletes hidden tracked files or adds hidden
    untracked ones empty, and the exact commands that undo it (HEAD is not rewritten)."""
    where = shlex.quote(str(repo))
    commit = f"a commit this command made ({head[:12].decode()}, HEAD of {repo})"
    out = []
    if deleted:
        undo = (f"their index entries are put back. Before you push: `git -C {where} commit --amend "
                f"--no-edit` (that commit is HEAD) or `git -C {where} commit -m 'Restore hidden files'`"
                if put else
                f"before you push: `git -C {where} add -- {_args(deleted)} && git -C {where} commit --amend "
                "--no-edit`")
        out.append(f"WARNING: {commit} DELETES {_names(deleted)}, hidden from the command (git took the "
                   f"empty stand-in for a deletion); your files are untouched and {undo}. Tell the user")
    if committed:
        out.append(f"WARNING: {commit} ADDS {_names(committed)} EMPTY (the sandbox's stand-in for a hidden "
                   "file); your real file is untouched, and `git status` shows its content as a change, one "
                   f"`git commit -a` from being published. Before you push: `git -C {where} rm --cached "
                   f"-q --ignore-unmatch -- {_args(committed)} && git -C {where} commit --amend --no-edit` "
                   "(that commit is HEAD)" + (" (the first half is done)" if taken else "")
                   + ". Tell the user")
    return out


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
    found = _entries(repo, rels)
    if found is not None:
        with _lock:
            if len(_known) >= 256:
                _known.clear()
            _known[(repo, rels)] = (stamp, found)
    return found


def _entries(repo: Path, rels: Sequence[bytes]) -> dict[bytes, tuple[bytes, bytes]] | None:
    done = githardened.run(["-C", str(repo), "ls-files", "-s", "-z", "--",
                            *(":(literal)" + os.fsdecode(r) for r in rels)], timeout=TIMEOUT)
    if done is None or done.returncode != 0:
        return None
    out: dict[bytes, tuple[bytes, bytes]] = {}
    for entry in done.stdout.split(b"\0"):
        meta, _, name = entry.partition(b"\t")
        fields = meta.split()
        if name and len(fields) == 3:
            out.setdefault(name, (fields[0], fields[1]))  # a conflict's first stage stands for it
    return out


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


def _descends(repo: Path, old: bytes, new: bytes) -> bool:
    done = githardened.run(["-C", str(repo), "merge-base", "--is-ancestor", old.decode(), new.decode()],
                           timeout=TIMEOUT)
    return done is not None and done.returncode == 0


def _in_tree(repo: Path, commit: bytes, name: bytes) -> bool:
    done = githardened.run(["-C", str(repo), "ls-tree", "-r", "-z", "--name-only", commit.decode(), "--",
                            ":(literal)" + os.fsdecode(name)], timeout=TIMEOUT)
    return done is not None and done.returncode == 0 and bool(done.stdout.strip(b"\0"))


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


__all__ = ["NONE", "Before", "after", "before", "remember", "restamped", "untouched"]
