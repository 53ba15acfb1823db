"""Copies of a read-denied file's content that a command gave git under another name.

The sandbox hides what ``deny read_file(secrets/**)`` names, but git holds its content by
object id, and a command can stage that object under any name without reading it:
``git update-index --add --cacheinfo 100644,<id>,docs/notes.txt`` then ``git commit`` put
the denied plan on the user's branch as ``docs/notes.txt``, one push from being published,
and nothing was said (finding S2, its second net). A checkout of an older commit, or a
``reset --hard`` to one, lays out a denied file only history holds in the work tree, where
no rule hid it when the command started.

So, after a command that changed git's index or HEAD in a repository where a deny rule
names content git holds (:func:`.githistory.held_denied`), the objects ever held at the
denied paths (the index, every commit refs and reflogs reach, the hidden files as they
are) are compared with what the command staged or committed elsewhere:

- a staged copy is unstaged (its entry set back to what the base commit held, or taken
  out), so the user's next commit does not carry it; the file in the work tree is never
  touched (it may be theirs), only named when it holds the same content;
- a commit the command made that adds one is not rewritten (history is the user's), but
  said loudly with the commands that undo it before a push;
- a denied path that did not exist when the command started and that git tracks now is
  named: the command could read it, and a rule keeps it from the model from now on.

Bounded: nothing runs unless the index or HEAD changed; the denied objects are listed
once per state of the repository's history and index (one ``git log --raw``).
"""

from __future__ import annotations

import os
import shlex
import threading
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from . import githardened, githeads, gitparked
from .githistory import HISTORY_FILES
from .gitstaged import git_dir, staged_rows

TIMEOUT = 10.0
MOST_HASHED = 256
"""Hidden files hashed for their current content (secret files are small and few)."""
MAX_HASHED = 1 << 20
MOST_TIPS = 16
"""New ref tips looked at for commits the command made away from HEAD."""
_ZERO = frozenset(
    {
        b"0" * 40,
        b"0" * 64,
        b"e69de29bb2d1d6434b8b29ae775ad8c2e48c5391",
        b"473a0f4c3be8a93681a267e3b1e9a7dcda1185436fe141f7749120a303721813",
    }
)
"""No object, and the empty file's (an empty ``secrets/.gitkeep`` is no content to copy)."""
_lock = threading.Lock()
_known: dict[tuple[Path, tuple[bytes, ...]], tuple[tuple[tuple[int, int, int], ...], frozenset[bytes]]] = {}


@dataclass(frozen=True, slots=True)
class Copy:
    """One path outside the denied ones holding a denied object, and where."""

    name: bytes
    blob: bytes
    base: tuple[bytes, bytes] | None
    """The entry (mode, object) the base commit held at ``name`` (None: it held none)."""
    commit: bytes = b""
    """The commit the command made that added it (empty: staged only)."""


def after_command(
    repo: Path,
    denied: Sequence[bytes],
    absent: Sequence[bytes],
    old_head: bytes,
    head: bytes,
    made: Sequence[bytes],
    checked_out: bool,
    tips: tuple[bytes, ...] | None = None,
    index_same: bool = False,
) -> list[str]:
    """What the user must know of denied content the command copied (and what was undone).
    ``denied``: the denied paths git holds (relative, as git names them); ``absent``: those
    of them that did not exist when the command started; ``made``: the commits the command
    made that HEAD reaches; ``checked_out``: HEAD moved to a commit that existed before
    (what it stages is that commit's, compared with it); ``tips``: what every ref pointed
    at before (:func:`.githeads.tips`): a commit made on another branch, HEAD and the index
    left as they were, is looked at too (``git push --all`` publishes it); ``index_same``:
    the index is as it was."""
    moved = head != old_head
    elsewhere = _made_elsewhere(repo, tips, head, made)
    if index_same and not moved and not elsewhere:
        return []
    blobs = denied_blobs(repo, denied)
    if blobs is None:
        return []
    base = head if checked_out else old_head
    staged = _staged(repo, base, denied, blobs) if moved or not index_same else {}
    committed = _committed(repo, [*made, *elsewhere], denied, blobs)
    out = _laid_out(repo, absent) if moved or not index_same else []
    if staged or committed:
        unstaged = _unstage(repo, staged.values())
        out.append(_note(repo, head, staged, committed, unstaged, made))
    return out


def denied_blobs(repo: Path, denied: Sequence[bytes]) -> frozenset[bytes] | None:
    """Every object git holds or held at the ``denied`` paths, and the hidden files' current
    content (None: git could not say). History is asked once per state of the refs and
    reflogs (a ``git add`` changes only the index, which one ``ls-files`` reads)."""
    key = (repo, tuple(denied))
    stamp = _history_stamp(repo)
    specs = [":(literal)" + os.fsdecode(r) for r in denied]
    with _lock:
        known = _known.get(key)
    if known is not None and known[0] == stamp:
        found: set[bytes] = set(known[1])
    else:
        logged = githardened.run(["-C", str(repo), "log", "--all", "--reflog", "--format=", "--raw",
                                  "--no-abbrev", "--no-renames", "-m", "-z", "--", *specs], timeout=TIMEOUT)
        if logged is None or logged.returncode != 0:
            return None
        found = {w for t in logged.stdout.split(b"\0") if t.startswith(b":") for w in t.split()[2:4]}
        with _lock:
            if len(_known) >= 64:
                _known.clear()
            _known[key] = (stamp, frozenset(found))
    listed = githardened.run(["-C", str(repo), "ls-files", "-s", "-z", "--", *specs], timeout=TIMEOUT)
    if listed is None or listed.returncode != 0:
        return None
    found |= {blob for _, blob, _ in staged_rows(listed.stdout)}
    found |= _hashed(repo, denied)
    return frozenset(found - _ZERO)


def _history_stamp(repo: Path) -> tuple[tuple[int, int, int], ...]:
    out = []
    for name in HISTORY_FILES:
        try:
            info = os.stat(repo / ".git" / name)
        except OSError:
            out.append((0, 0, 0))
            continue
        out.append((info.st_mtime_ns, info.st_size, info.st_ino))
    if not (repo / ".git").is_dir():
        out.append((time.monotonic_ns(), 0, 0))  # a linked worktree: no sound stamp, asked each time
    return tuple(out)


def _hashed(repo: Path, denied: Sequence[bytes]) -> set[bytes]:
    """The object ids of the hidden files as they are (not what git staged: a key pasted
    in and not committed), at most :data:`MOST_HASHED` of them."""
    files: list[str] = []
    for rel in denied:
        top = repo / os.fsdecode(rel)
        walked = [(str(top.parent), [], [top.name])] if top.is_file() else os.walk(top)
        for folder, _dirs, names in walked:
            for name in names:
                path = os.path.join(folder, name)
                if os.path.isfile(path) and not os.path.islink(path) and os.path.getsize(path) <= MAX_HASHED:
                    files.append(path)
            if len(files) >= MOST_HASHED:
                break
        if len(files) >= MOST_HASHED:
            break
    files = files[:MOST_HASHED]
    if not files or any("\n" in f for f in files):
        return set()
    done = githardened.run(
        ["-C", str(repo), "hash-object", "--no-filters", "--stdin-paths"],
        stdin="".join(f + "\n" for f in files).encode(),
        timeout=TIMEOUT,
    )
    return set(done.stdout.split()) if done is not None and done.returncode == 0 else set()


def _raw(output: bytes) -> Iterable[tuple[bytes, bytes, bytes, bytes, bytes]]:
    """``(old mode, old object, new object, status, name)`` of ``--raw -z`` output."""
    tokens = iter(output.split(b"\0"))
    for token in tokens:
        if token.startswith(b":"):
            fields = token[1:].split()
            name = next(tokens, b"")
            if len(fields) == 5 and name:
                yield fields[0], fields[2], fields[3], fields[4][:1], name


def _outside(name: bytes, denied: Sequence[bytes]) -> bool:
    return not any(name == r or name.startswith(r + b"/") for r in denied)


def _staged(repo: Path, base: bytes, denied: Sequence[bytes], blobs: frozenset[bytes]) -> dict[bytes, Copy]:
    if base:
        done = githardened.run(
            [
                "-C",
                str(repo),
                "diff-index",
                "--cached",
                "--raw",
                "-z",
                "--no-abbrev",
                "--no-renames",
                base.decode(),
            ],
            timeout=TIMEOUT,
        )
        rows = list(_raw(done.stdout)) if done is not None and done.returncode == 0 else []
    else:  # no commit yet: every entry is new
        done = githardened.run(["-C", str(repo), "ls-files", "-s", "-z"], timeout=TIMEOUT)
        listing = done.stdout if done is not None and done.returncode == 0 else b""
        rows = [(b"000000", b"", blob, b"A", name) for _, blob, name in staged_rows(listing)]
    return {
        name: Copy(name, new, (mode, old) if status != b"A" else None)
        for mode, old, new, status, name in rows
        if status in (b"A", b"M", b"T") and new in blobs and _outside(name, denied)
    }


def _made_elsewhere(
    repo: Path, tips: tuple[bytes, ...] | None, head: bytes, made: Sequence[bytes]
) -> list[bytes]:
    """Commits no ref reached before the command, on refs other than HEAD's (at most
    :data:`MOST_TIPS` new tips looked at)."""
    if not tips:
        return []
    now = githeads.tips(repo, head, git_dir(repo))
    new = [t for t in now or () if t not in tips and t != head]
    out: list[bytes] = []
    for tip in new[:MOST_TIPS]:
        out += [c for c in githeads.made_here(repo, tips, tip) if c not in made and c not in out]
    return out


def _committed(
    repo: Path, made: Sequence[bytes], denied: Sequence[bytes], blobs: frozenset[bytes]
) -> dict[bytes, Copy]:
    out: dict[bytes, Copy] = {}
    for commit in list(made)[:20]:
        done = githardened.run(
            [
                "-C",
                str(repo),
                "diff-tree",
                "-r",
                "-z",
                "--raw",
                "--no-abbrev",
                "--no-renames",
                "--no-commit-id",
                "--root",
                "-m",  # a merge: what it holds that its first parent did not (a stash's work tree)
                "--first-parent",
                commit.decode(),
            ],
            timeout=TIMEOUT,
        )
        for _mode, _old, new, status, name in (
            _raw(done.stdout) if done is not None and done.returncode == 0 else []
        ):
            if status in (b"A", b"M", b"T") and new in blobs and _outside(name, denied):
                out.setdefault(name, Copy(name, new, None, commit))
    return out


def _unstage(repo: Path, copies: Iterable[Copy]) -> bool:
    """Each staged copy's entry set back to the base commit's, or taken out where it had none."""
    copies = list(copies)
    if not copies:
        return True
    back = b"".join(c.base[0] + b" " + c.base[1] + b"\t" + c.name + b"\0" for c in copies if c.base)
    gone = b"".join(c.name + b"\0" for c in copies if not c.base)
    ok = True
    if back:
        done = githardened.run(
            ["-C", str(repo), "update-index", "-z", "--index-info"], stdin=back, timeout=TIMEOUT
        )
        ok = done is not None and done.returncode == 0
    if gone:
        done = githardened.run(
            ["-C", str(repo), "update-index", "-z", "--force-remove", "--stdin"], stdin=gone, timeout=TIMEOUT
        )
        ok = ok and done is not None and done.returncode == 0
    return ok


def _same_in_work_tree(repo: Path, copies: Iterable[Copy]) -> list[bytes]:
    """The copies' names whose file in the work tree holds the denied object too."""
    found = [c for c in copies if os.path.isfile(repo / os.fsdecode(c.name))]
    if not found or any(b"\n" in c.name for c in found):
        return []
    done = githardened.run(
        ["-C", str(repo), "hash-object", "--no-filters", "--stdin-paths"],
        stdin=b"".join(c.name + b"\n" for c in found),
        timeout=TIMEOUT,
    )
    if done is None or done.returncode != 0:
        return []
    return [c.name for c, sha in zip(found, done.stdout.split(), strict=False) if sha == c.blob]


def _note(
    repo: Path, head: bytes, staged: dict[bytes, Copy], committed: dict[bytes, Copy], unstaged: bool,
    made: Sequence[bytes],
) -> str:
    where = shlex.quote(str(repo))
    names = list(dict.fromkeys([*committed, *staged]))
    parts = [
        f"WARNING: the command gave git a copy of a read-denied file's content under another name in "
        f"{repo} ({_names(names)}): a deny rule keeps that content from the model. "
    ]
    if staged:
        parts.append(
            "Its staged entries were set back to what the commit before held (unstaged). "
            if unstaged
            else f"Its staged entries could not be set back: run `git -C {where} restore --staged -- "
            f"{_args(list(staged))}`. "
        )
    on_head = {n: c for n, c in committed.items() if c.commit in made}
    if on_head:
        commit = next(iter(on_head.values())).commit
        at = "HEAD" if commit == head else "in the history"
        fix = (
            f"`git -C {where} commit --amend --no-edit`"
            if commit == head
            else f"`git -C {where} commit -m 'Remove copied content'` (or rewrite that commit)"
        )
        pending = [n for n in on_head if n not in staged]
        if pending:
            fix = f"`git -C {where} rm --cached -q -- {_args(pending)}` then " + fix
        parts.append(
            f"A commit this command made ({commit[:12].decode()}, {at}) holds it; agent-shell does not "
            f"rewrite history. Before you push: {fix}. "
        )
    other = [c for n, c in committed.items() if n not in on_head]
    if other:
        where_parked, drops = gitparked.parked(repo, other[0].commit)
        parts.append(
            f"A commit this command made on {where_parked} ({other[0].commit[:12].decode()}) holds "
            f"{_names([c.name for c in other])}; agent-shell does not rewrite history or drop a stash entry "
            "(it may hold your work too). Before you push, pop or apply it (`git push --all`, "
            f"`git stash pop` would): {drops}. "
        )
    same = _same_in_work_tree(repo, [*staged.values(), *committed.values()])
    if same:
        parts.append(
            f"The work tree's {_names(same)} holds that content too and was left as it is: delete it "
            "if you did not make it. "
        )
    parts.append("Tell the user")
    return "".join(parts)


def _laid_out(repo: Path, absent: Sequence[bytes]) -> list[str]:
    """Denied paths that did not exist when the command started and git tracks now."""
    now = [r for r in absent if os.path.lexists(repo / os.fsdecode(r))]
    if not now:
        return []
    done = githardened.run(
        ["-C", str(repo), "ls-files", "-z", "--", *(":(literal)" + os.fsdecode(r) for r in now)],
        timeout=TIMEOUT,
    )
    tracked = [
        r
        for r in now
        if done is None
        or done.returncode != 0
        or any(n == r or n.startswith(r + b"/") for n in done.stdout.split(b"\0"))
    ]
    if not tracked:
        return []
    return [
        f"WARNING: the command laid out {_names(tracked)} in {repo} from git's history (a checkout or reset "
        "of an older commit): a deny rule on reading names it, and it did not exist when the command "
        "started, so the sandbox did not hide it and the command could read it. It is hidden from the next "
        "command on. "
        "Tell the user"
    ]


def _names(names: Sequence[bytes]) -> str:
    shown = ", ".join(os.fsdecode(n) for n in names[:5])
    return shown + (f" and {len(names) - 5} more" if len(names) > 5 else "")


def _args(names: Sequence[bytes]) -> str:
    return " ".join(shlex.quote(os.fsdecode(n)) for n in names)


__all__ = ["Copy", "after_command", "denied_blobs"]
