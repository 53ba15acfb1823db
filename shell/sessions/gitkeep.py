"""The workspace repository's history, kept before each sandboxed command so ``/rewind`` can put it back.

A sandboxed command may write ``.git/objects``, ``.git/refs`` and ``.git/logs``
(``git commit`` needs them), so one line (``rm -rf .git/objects .git/refs``,
``git reflog expire --expire=now --all && git gc --prune=now``) could destroy
unpushed commits, stashes and the reflog for good, and the workspace capture
does not scan ``.git`` (finding U14). A line check alone cannot prevent it: a
script the command writes does the same. So the history is kept instead:

- objects and packs never change once written (their name is their content), so
  each new one is hard-linked into the session's store (copied when a link cannot
  be made): taking them again costs one ``stat`` per fan-out folder whose listing
  did not change. A link is the repository's own file, which a command can make
  writable and change in place: a rewind trusts none of it and puts back only what
  still hashes to its name (:mod:`.gitverified`);
- what the store holds alone (objects and packs the repository deleted since, e.g.
  the old packs of each ``git gc``; copies) counts against the checkpoints' limit
  (``max_total``, 256 MB): what would go beyond it is not kept, and the command's
  result says so;
- the refs, ``packed-refs``, ``HEAD``, the reflogs and the index (:mod:`.gitindex`)
  are small: their contents go to the checkpoint blobs (content-addressed) and a
  ``git`` record lists them, written only when they differ from the last one.

A rewind puts back what is missing, and never takes away what is there: an
object or a ref that exists is left as it is, and a reflog keeps its lines after
the ones put back. The one exception is a ref the rewound commands moved and
nothing else since (a ``git commit`` of theirs): it is moved back (:mod:`.gitmoved`),
and so is the index they changed (:mod:`.gitindex`); any other move is said with both ids.
The history keeps at most a quarter of the checkpoints' limit (:data:`GIT_SHARE`), so it
never takes the room the files need. It writes only refs and reflogs git would write,
inside ``.git`` (:mod:`.gitrefs`), and the index (:mod:`.gitindex`). After a command, its
result says plainly when it removed refs, reflog entries or objects, and that a
rewind brings them back.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import shutil
import stat
import time
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from . import gitindex, gitmodules, gitmoved, gitworktrees
from .gitrefs import (
    TREES,
    folder_names,
    plain,
    read_regular,
    real_folder,
    reflog_lines,
    reflog_ok,
    refname_ok,
    value_ok,
    write,
)
from .gitstore import ObjectKeeper

if TYPE_CHECKING:
    from .checkpoints import Checkpoints

MAX_STATE_FILES = 5_000
"""Ref and reflog files kept per state (a repository with more is kept in part, and said)."""
MAX_STATE_BYTES = 32 * 1024 * 1024
"""Bytes of refs and reflogs read per state."""
MAX_PACKED_REFS_BYTES = 4 * 1024 * 1024
"""A bigger ``packed-refs`` (~50,000 refs) is not kept, and the command's result says so:
read and hashed before and after every command, and each change another blob."""
TOP_FILES = ("HEAD", "packed-refs")
GIT_SHARE = 4
"""The repository's history (objects the store holds alone, refs, reflogs) keeps at most
1/GIT_SHARE of the checkpoints' limit: the rest is the files' (finding X7: a command
wrote 30 MB of junk into .git/logs each time, the session's 256 MB filled with it, and
the next ``rm`` of the user's files was not kept)."""
MAX_REF_BYTES = 1024
"""A bigger file under refs/ is no ref git wrote: not kept."""


@dataclass(frozen=True, slots=True)
class GitState:
    """The refs and reflogs of ``gitdir`` as they were before a command of ``turn``."""

    turn: int
    gitdir: str
    files: tuple[tuple[str, str], ...]
    """``(path under .git, blob digest)`` of each file."""
    seq: int
    after: bool = False
    """Taken after a command (else before one): a ref that changes only from a before
    state to its after state was moved by that command (:func:`moved_back`)."""


def git_dir(root: Path) -> Path | None:
    """The git directory whose history the workspace's commands can reach: its own ``.git``
    folder, or, when the workspace is a linked worktree (a ``.git`` file), the repository's
    shared one, whose objects, refs and reflogs the sandbox lets its git write (when that
    repository names this checkout back: :func:`.gitworktrees.common_dir`). Without it a
    command in a worktree removed objects and branches with nothing kept or said."""
    path = root / ".git"
    try:
        mode = os.lstat(path).st_mode
    except OSError:
        return None
    if stat.S_ISREG(mode):
        return gitworktrees.common_dir(path)
    return path if stat.S_ISDIR(mode) else None


def read_state(gitdir: Path, *, packed_limit: int = MAX_PACKED_REFS_BYTES) -> dict[str, bytes]:
    """HEAD, packed-refs (up to ``packed_limit`` bytes), every regular file under refs/
    and logs/ (no symlinks), bounded, and the index (:mod:`.gitindex`)."""
    out: dict[str, bytes] = {}
    total = 0
    names = list(TOP_FILES)
    for tree in TREES:
        if (gitdir / tree).is_symlink():
            continue  # a command's link out of .git: not the repository's
        for folder, dirs, files in os.walk(gitdir / tree):
            dirs.sort()
            base = Path(folder).relative_to(gitdir)
            names += [(base / name).as_posix() for name in sorted(files)]
    for rel in names[:MAX_STATE_FILES]:
        if rel.startswith("logs/") and not reflog_ok(rel):
            continue  # not a reflog git writes (logs/junk1): not history
        limit = packed_limit if rel == "packed-refs" else MAX_REF_BYTES if rel.startswith("refs/") \
            else MAX_STATE_BYTES
        data = read_regular(gitdir / rel, limit)
        if data is not None and rel.startswith("logs/"):
            data = b"".join(line + b"\n" for line in reflog_lines(data.splitlines()))
        if data is None or total + len(data) > MAX_STATE_BYTES:
            continue
        total += len(data)
        out[rel] = data
    index = read_regular(gitdir / gitindex.INDEX, gitindex.MAX_INDEX_BYTES)  # last: refs come first
    if index is not None and total + len(index) <= MAX_STATE_BYTES:
        out[gitindex.INDEX] = index
        total += len(index)
    for rel, data in gitworktrees.read(gitdir).items():  # the linked worktrees' HEAD, index, reflog (C17)
        if total + len(data) <= MAX_STATE_BYTES:
            total += len(data)
            out[rel] = data
    return out


def refs_of(files: dict[str, bytes]) -> dict[str, str]:
    """Ref name to what it holds, loose refs over packed ones (HEAD included)."""
    refs: dict[str, str] = {}
    for line in files.get("packed-refs", b"").decode("utf-8", "replace").splitlines():
        parts = line.split(" ", 1)
        if len(parts) == 2 and not line.startswith(("#", "^")) and plain(parts[1].strip()):
            refs[parts[1].strip()] = parts[0]
    for rel, data in files.items():
        if rel == "HEAD" or (rel.startswith("refs/") and plain(rel)):
            refs[rel] = data.decode("utf-8", "replace").strip()
    return refs


def log_lines(files: dict[str, bytes]) -> dict[str, list[bytes]]:
    return {rel: data.splitlines() for rel, data in files.items() if rel.startswith("logs/")}


def keeper(cp: Checkpoints, gitdir: Path) -> ObjectKeeper:
    key = hashlib.sha256(str(gitdir).encode()).hexdigest()[:16]
    found = cp.git_keepers.get(key)
    if found is None:
        found = cp.git_keepers[key] = ObjectKeeper(cp.root / "git" / key / "objects")
    return found


def git_room(cp: Checkpoints, kept: ObjectKeeper) -> int:
    """Bytes ``kept``'s store may hold alone: within the checkpoints' limit, and within
    the history's share of it (:data:`GIT_SHARE`)."""
    used = sum(k.own_bytes + k.state_bytes for k in cp.git_keepers.values())
    return max(0, min(cp.max_total - cp.stored_bytes, cp.max_total // GIT_SHARE - used)) + kept.own_bytes


def before_command(cp: Checkpoints, root: Path) -> dict[str, bytes] | None:
    """Keep the repository's new objects and, when they changed, its refs and reflogs
    (a ``git`` record). Returns the refs and reflogs as they are, for :func:`after_command`."""
    gitdir = git_dir(root)
    if gitdir is None:
        return None
    kept = keeper(cp, gitdir)
    kept.keep(gitdir, git_room(cp, kept))
    files = read_state(gitdir)
    with contextlib.suppress(OSError):
        size = os.lstat(gitdir / "packed-refs").st_size
        if size > MAX_PACKED_REFS_BYTES:
            kept.notes.append(f"the repository's packed-refs ({size / 2**20:.1f} MB) is over the "
                              f"{MAX_PACKED_REFS_BYTES >> 20} MB a checkpoint keeps: the refs it holds are "
                              "not kept, and /rewind cannot put them back")
    kept.modules = gitmodules.marks(gitdir)
    kept.worktrees = gitworktrees.checkouts(gitdir)
    kept.state_kept = log_state(cp, kept, gitdir, files)
    if not kept.state_kept:
        kept.notes.append("the repository's refs and reflogs could not be kept before this command: the "
                          f"checkpoints' room for git history ({_mb(cp.max_total // GIT_SHARE)}) is full")
    return files


def log_state(cp: Checkpoints, kept: ObjectKeeper, gitdir: Path, files: dict[str, bytes], *,
              after: bool = False) -> bool:
    """A ``git`` record of ``files`` when they differ from the last one; False: they do,
    and there is no room to keep them."""
    last = last_state(cp, str(gitdir), len(cp.raw))
    digests = {rel: hashlib.sha256(data).hexdigest() for rel, data in files.items()}
    if last is not None and dict(last.files) == digests:
        return True
    stored = cp.stored_digests
    new = {d: len(files[rel]) for rel, d in digests.items() if d not in stored}
    if sum(new.values()) > git_room(cp, kept) - kept.own_bytes and gitindex.INDEX in files:
        # the refs before the index: without it, a rewind leaves the index (and says so)
        return log_state(cp, kept, gitdir, {k: v for k, v in files.items() if k != gitindex.INDEX},
                         after=after)
    if sum(new.values()) > git_room(cp, kept) - kept.own_bytes:
        return False
    for rel, digest in digests.items():
        cp.keep_blob(digest, files[rel])
    kept.state_bytes += sum(new.values())
    cp.log_git(str(gitdir), digests, after=after)
    return True


def after_command(cp: Checkpoints, root: Path, before: dict[str, bytes]) -> str:
    """What the command removed of the history, in words (empty: nothing)."""
    gitdir = git_dir(root) or root / ".git"
    kept = cp.git_keepers.get(hashlib.sha256(str(gitdir).encode()).hexdigest()[:16])
    worktrees = gitworktrees.after_command(gitdir, root, before, kept.worktrees) if kept is not None else []
    after = read_state(gitdir) if gitdir.is_dir() else {}
    refs_before, refs_after = refs_of(before), refs_of(after)
    refs = sorted(name for name in refs_before if name not in refs_after)
    logs_after = log_lines(after)
    entries = sum(len(set(lines) - set(logs_after.get(rel, []))) for rel, lines in log_lines(before).items())
    objects: list[str] = []
    lfs: list[str] = []
    notes: list[str] = worktrees
    if kept is not None:
        stamps = kept.stamps(gitdir)
        gone = kept.removed(gitdir, stamps)
        packs_now = {e for e in folder_names(gitdir / "objects" / "pack") if e.endswith(".pack")}
        packs_kept = {e for e in folder_names(kept.store / "pack") if e.endswith(".pack")}
        if gone and packs_now <= packs_kept:  # removed, not repacked into a new pack
            spoilt = _spoilt(kept.store, gone)
            objects = [rel for rel in gone if rel not in spoilt]
            if spoilt:
                notes.append(f"[this command changed {len(spoilt)} git object file(s) in place "
                             f"({', '.join(spoilt[:3])}{' …' if len(spoilt) > 3 else ''}): the copy kept "
                             "before it ran is the same file, changed too, so /rewind cannot put them back. "
                             "Only a remote that has them can (git fetch); tell the user]")
        lfs, lfs_notes = _lfs_removed(kept, gitdir)
        notes += lfs_notes
        kept.count(gitdir, git_room(cp, kept), stamps)  # what it deleted costs
        kept.lfs.count(gitdir, git_room(cp, kept) - sum(kept.own.values()))  # what it deleted costs
        if after and kept.state_kept:  # where this command left the refs (Y1: a rewind moves back its own)
            log_state(cp, kept, gitdir, after, after=True)
        notes, kept.notes = [*notes, *(f"[{note}]" for note in kept.notes)], []
    if kept is not None and (said_modules := gitmodules.removed_note(kept.modules, gitdir)):
        notes.append(said_modules)
    files = history_files(objects) + ([f"{len(lfs)} Git LFS object file(s)"] if lfs else [])
    if not (refs or entries or files):
        return "\n".join(notes)
    said = []
    if refs:
        shown = ", ".join(refs[:5]) + (f" and {len(refs) - 5} more" if len(refs) > 5 else "")
        said.append(f"{len(refs)} ref(s) ({shown})")
    if entries:
        said.append(f"{entries} reflog entr{'y' if entries == 1 else 'ies'}")
    said += files
    if (refs or entries) and kept is not None and not kept.state_kept:
        return "\n".join([f"[this command removed git history: {', '.join(said)}. The refs and reflogs were "
                          "NOT kept before it ran (see below): /rewind cannot put them back. Tell the user]",
                          *notes])
    return "\n".join([f"[this command removed git history: {', '.join(said)}. They were kept before it ran: "
                      "/rewind to before this message puts them back]", *notes])


def history_files(rels: list[str]) -> list[str]:
    """What of the kept files ``rels`` is history, in words: loose objects and packs
    (``pack-….pack``; its index goes with it). A multi-pack-index, a bitmap, a
    reverse index or a pack's marks is a cache or a flag git makes again: a command
    that rewrote one removed no history (finding Z10)."""
    loose = sum(1 for rel in rels if len(rel.partition("/")[0]) == 2)
    packs = [rel[5:] for rel in rels if rel.startswith("pack/") and rel.endswith(".pack")]
    said = [f"{loose} loose object file(s)"] if loose else []
    if packs:
        shown = ", ".join(packs[:3]) + (" …" if len(packs) > 3 else "")
        said.append(f"{len(packs)} pack file(s) ({shown})")
    return said


MAX_VERIFIED = 2_000
"""Removed loose objects whose kept copy is hashed after one command (the rest are
checked at ``/rewind``, which says what it cannot put back)."""


def _spoilt(store: Path, gone: list[str]) -> list[str]:
    """Of the removed objects ``gone``, those whose kept copy no longer hashes to its
    name (finding X1: a command truncated the objects in place, then the result said
    they were kept, and /rewind linked the empty files back)."""
    from .gitverified import still_whole

    spoilt = [rel for rel in gone[:MAX_VERIFIED] if not still_whole(store, rel)]
    packs = {rel.rsplit(".", 1)[0] for rel in spoilt if rel.startswith("pack/")}
    # a spoilt pack's index and the rest go with it: without the pack they put nothing back
    return [rel for rel in gone if rel in spoilt or rel.rsplit(".", 1)[0] in packs]


def _lfs_removed(kept: ObjectKeeper, gitdir: Path) -> tuple[list[str], list[str]]:
    """The Git LFS objects the command removed whose kept copy is whole (a commit names
    only their hash: the file's bytes may be nowhere else), and a note for those it
    rewrote in place before (the kept link is the same file: finding A6)."""
    gone = kept.lfs.removed(gitdir)
    spoilt = set(kept.lfs.spoilt(gone[:MAX_VERIFIED]))
    notes = [f"[{len(spoilt)} Git LFS object file(s) the repository had before this command are gone now "
             f"({', '.join(sorted(spoilt)[:3])}{' …' if len(spoilt) > 3 else ''}), changed in place first "
             "(removed by the command, or taken out by agent-shell as not what their names say): the copy "
             "kept before it ran is the same file, changed too, so /rewind cannot put them back. Only a "
             "remote that has them can (git lfs fetch); tell the user]"] if spoilt else []
    return [rel for rel in gone if rel not in spoilt], notes


def blobs_of(record: dict[str, object]) -> list[str]:
    """The blob digests a log record needs: a kept file's old content, a git state's files."""
    if record.get("kind") == "file" and isinstance(record.get("before"), str) and record.get("kept", True):
        return [str(record["before"])]
    files = record.get("files") if record.get("kind") == "git" else None
    return [str(d) for d in files.values()] if isinstance(files, dict) else []


def copy_objects(source: Path, target: Path) -> None:
    """A fork's checkpoints get the kept objects too (linked; copied where links cannot be made)."""
    for folder, _, names in os.walk(source / "git"):
        into = target / Path(folder).relative_to(source)
        into.mkdir(mode=0o700, parents=True, exist_ok=True)
        for name in names:
            with contextlib.suppress(OSError):
                if not (into / name).exists():
                    try:
                        os.link(Path(folder) / name, into / name)
                    except OSError:
                        shutil.copyfile(Path(folder) / name, into / name)


def last_state(cp: Checkpoints, gitdir: str, before_seq: int) -> GitState | None:
    for record in reversed(cp.records):
        if isinstance(record, GitState) and record.gitdir == gitdir and record.seq < before_seq:
            return record
    return None


def restore(cp: Checkpoints, state: GitState, *, apply: bool) -> list[str]:
    """What putting ``state`` back adds (``apply``: add it). Nothing that exists is removed;
    what cannot be put back (an object changed since it was kept, a ref git would not
    write) is said, not written."""
    gitdir = Path(state.gitdir)
    if gitdir.is_symlink():
        return ["not put back: the repository's .git is a symlink now"]
    files: dict[str, bytes] = {}
    for rel, digest in state.files:
        with contextlib.suppress(OSError, ValueError):
            files[rel] = cp.blob(digest)
    now = read_state(gitdir, packed_limit=MAX_STATE_BYTES) if gitdir.is_dir() else {}
    refs_then, refs_now = refs_of(files), refs_of(now)
    missing = {name: value for name, value in refs_then.items() if name not in refs_now}
    unread = bool(missing) and os.path.lexists(gitdir / "packed-refs") and "packed-refs" not in now
    if unread:
        missing = {}  # what the repository holds now is not known: a ref put back might hide one
    bad = sorted(name for name, value in missing.items() if not (refname_ok(name) and value_ok(value)))
    missing = {name: value for name, value in missing.items() if name not in bad}
    moved = sorted(n for n, v in refs_then.items() if n in refs_now and refs_now[n] != v and n != "HEAD")
    since = [r for r in cp.records
             if isinstance(r, GitState) and r.gitdir == state.gitdir and r.seq > state.seq]
    sorted_moves = gitmoved.moves(state, since, moved, refs_then, refs_now, lambda r: _refs_at(cp, r))
    logs_now = log_lines(now)
    logs = {rel: good for rel, lines in log_lines(files).items() if reflog_ok(rel)
            and (good := reflog_lines(lines)) and not set(good) <= set(logs_now.get(rel, []))}
    index_back = _index_back(cp, state, since, now)
    kept = keeper(cp, gitdir)
    objects = kept.missing(gitdir)
    said = ["refs not put back: the repository's packed-refs could not be read (too big, or not a file)"] \
        if unread else []
    if missing:
        said.append(f"{len(missing)} ref(s) put back ({', '.join(sorted(missing)[:5])})")
    if bad:
        said.append(f"{len(bad)} ref(s) not put back, not refs git would write ({', '.join(bad[:3])})")
    if logs:
        said.append(f"{len(logs)} reflog(s) put back")
    if objects:
        said.append(f"{len(objects)} object file(s) put back")
    lfs = kept.lfs.missing(gitdir)
    said += _lfs_planned(lfs, apply)
    said += sorted_moves.said()
    index_changed = dict(state.files).get(gitindex.INDEX) != _digest(now.get(gitindex.INDEX))
    if index_changed:
        said += gitindex.note(index_back is not None, bool(sorted_moves.back))
    worktrees = gitworktrees.restore(gitdir, files, apply=False)
    said += worktrees
    if not apply:
        return said
    for sub in ("objects/pack", "objects/info", "refs/heads", "refs/tags"):
        real_folder(gitdir, sub.split("/"))
    done, refused = kept.put_back(gitdir, objects)
    if objects:
        said[said.index(f"{len(objects)} object file(s) put back")] = f"{done} object file(s) put back"
    if refused:
        said.append(f"{len(refused)} kept object file(s) NOT put back, changed since they were kept "
                    f"or unreadable: {', '.join(refused[:3])}" + (" …" if len(refused) > 3 else ""))
    said += _put_back_lfs(kept, gitdir, lfs)
    _write_refs(gitdir, missing, sorted_moves.back)
    if index_back is not None and not gitindex.put_back(gitdir, index_back):
        said[said.index(gitindex.note(True, False)[0])] = gitindex.NOT_WRITTEN
    for rel, lines in logs.items():
        old, later = set(lines), logs_now.get(rel, [])
        write(gitdir, rel, b"".join(x + b"\n" for x in lines + [n for n in later if n not in old]))
    return [x for x in said if x not in worktrees] + gitworktrees.restore(gitdir, files, apply=True)


def _index_back(
    cp: Checkpoints, state: GitState, since: list[GitState], now: dict[str, bytes]
) -> bytes | None:
    """The index kept in ``state``, when the commands since changed it and nothing else
    did (:func:`.gitmoved.only_theirs`) and its kept copy is whole; None: leave it."""
    then = dict(state.files).get(gitindex.INDEX)
    steps = [(record.after, dict(record.files).get(gitindex.INDEX)) for record in since]
    if then is None or not gitmoved.only_theirs(then, _digest(now.get(gitindex.INDEX)), steps):
        return None
    try:
        return cp.blob(then)  # checked against its digest
    except (OSError, ValueError):
        return None


def _digest(data: bytes | None) -> str | None:
    return None if data is None else hashlib.sha256(data).hexdigest()


def _lfs_planned(rels: list[str], apply: bool) -> list[str]:
    """What a rewind would put back of the Git LFS objects (applied: said once done)."""
    return [f"{len(rels)} Git LFS object file(s) put back"] if rels and not apply else []


def _put_back_lfs(kept: ObjectKeeper, gitdir: Path, rels: list[str]) -> list[str]:
    """The kept Git LFS objects ``rels`` put back (those that still hash to their names), in words."""
    if not rels:
        return []
    done, refused = kept.lfs.put_back(gitdir, rels)
    said = [f"{done} Git LFS object file(s) put back"]
    if refused:
        said.append(f"{len(refused)} kept Git LFS object file(s) NOT put back, changed since they were kept "
                    f"or unreadable: {', '.join(refused[:3])}" + (" …" if len(refused) > 3 else ""))
    return said


def _refs_at(cp: Checkpoints, state: GitState) -> dict[str, str]:
    """The refs a recorded state held (its reflogs are not read)."""
    files: dict[str, bytes] = {}
    for rel, digest in state.files:
        if not rel.startswith("logs/"):
            with contextlib.suppress(OSError, ValueError):
                files[rel] = cp.blob(digest)
    return refs_of(files)


def _write_refs(gitdir: Path, missing: dict[str, str], back: dict[str, tuple[str, str]]) -> None:
    """Write the refs put back, and move back those the rewound commands moved."""
    for name, value in missing.items():
        write(gitdir, name, (value + "\n").encode())
    for name, (now_id, then_id) in back.items():
        if write(gitdir, name, (then_id + "\n").encode()):
            _log_move(gitdir, name, now_id, then_id)


def _log_move(gitdir: Path, name: str, old: str, new: str) -> None:
    """A reflog line for the ref a rewind moved back, as git writes one (when it has a reflog)."""
    rel = f"logs/{name}"
    data = read_regular(gitdir / rel, MAX_STATE_BYTES)
    if data is None or not reflog_ok(rel):
        return
    line = f"{old} {new} agent-shell <agent-shell> {int(time.time())} +0000\t/rewind: to before a message\n"
    write(gitdir, rel, (data if data.endswith(b"\n") or not data else data + b"\n") + line.encode())



def _mb(size: int) -> str:
    return f"{size / (1024 * 1024):.0f} MB"
