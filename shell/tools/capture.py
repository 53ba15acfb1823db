"""What a sandboxed command changed in the workspace, with the content it replaced.

Inside the sandbox a command can write only the workspace (and a private ``/tmp``
that dies with it), so a scan of the workspace before and after the command sees
every change that outlives it: files written, created and deleted. The scan
before keeps each file's content, so a rewind can put back what the command
overwrote or deleted, byte for byte.

Reading the whole workspace before every command would be slow, so a
:class:`WorkspaceCapture` remembers what it read, keyed by each file's
``(size, mtime, ctime, inode)``: a file that did not change since the last scan
(and not in the last two seconds, which a coarse clock could hide) is not read
again, and the scan after one command is the baseline of the next. Nor is a folder
listed again whose stamp and ignore rules are as at the last scan (:mod:`.scanwalk`):
a scan of an unchanged workspace costs one ``stat`` per file and one per folder.
It is bounded: files over ``max_file`` bytes, content beyond ``max_total`` bytes
in all and files beyond ``max_files`` are not kept; a change to one of them is
still seen (its stat changed) and reported as not kept, with the reason, and the
result of a command that deleted or cut short one of them says so at once. What
``.gitignore`` ignores, ``.git`` itself and symlinks are not scanned (build output
and dependencies would fill the bounds; the sandbox keeps ``.git/hooks`` and
``.git/config`` read-only anyway), except a file scanned before: it stays scanned
while it exists, whatever ``.gitignore`` says since (a command that writes ``*``
into ``.gitignore`` and then overwrites the user's untracked notes is captured).
"""

from __future__ import annotations

import contextlib
import dataclasses
import operator
import os
import stat
import threading
import time
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TypeVar, cast

import anyio
import anyio.to_thread

from ..core.messages import DataBlock, TextBlock, ToolResult
from ..core.secrets import is_secret_file
from ..core.textsafety import path_text, sanitize_line
from .changes import CapturedFile, ChangeLog, TreeChange
from .ignore import DIR_FLAGS, WalkStats, ignore_root_for
from .scanwalk import Batch, ListingWalk, Named
from .unignored import exposed_note, unignored_paths

MAX_FILE = 4 * 1024 * 1024
"""Bytes of one file kept for a rewind (the checkpoint store's own limit too)."""
MAX_TOTAL = 64 * 1024 * 1024
"""Bytes of workspace content held in memory as the baseline."""
MAX_FILES = 20_000
"""Files scanned; beyond this the scan says it is incomplete."""
RACY_NS = 2_000_000_000
"""A file changed this recently is read again even if its stat looks the same: file
system clocks tick coarsely, so a write right after a scan can leave the stat as it was."""
NOT_SCANNED = "paths .gitignore ignores, .git and symlinks are not captured"
CUT_NOTE = "rewind cannot restore what this command changed"
"""How the note of a scan that could not see everything starts."""
SCAN_BUDGET_S = 3.0
"""Seconds one scan may walk: a command can make a tree (a folder thousands of levels
deep, millions of files) that would hold its result back for minutes; past the
budget the scan stops and says what a rewind cannot restore."""
RECORD_WAIT = 5.0
"""Seconds a command's result waits for the scan after it (the scan goes on past them)."""
CANCEL_WAIT = 0.2
"""The same after a cancel (Esc): the shell is idle again within half a second."""


@dataclass(frozen=True, slots=True)
class _Entry:
    key: tuple[int, int, int, int]
    mode: int
    data: bytes | None
    why: str = ""
    """Why ``data`` is None (too big, over the total, unreadable)."""


_KEY = operator.attrgetter("st_size", "st_mtime_ns", "st_ctime_ns", "st_ino")
"""An :class:`_Entry`'s ``key`` from a stat (in C: no Python code per file)."""


@dataclass(frozen=True, slots=True)
class _Chunk:
    """Up to 256 files of one folder as one scan kept them, so that the next scan, when
    each stat is as before, takes them whole: their stats compared as one list and
    their entries added as one ``dict.update``, with no Python code run per file."""

    files: Named
    """The files, as the walk yielded them (name, path)."""
    rels: tuple[str, ...]
    keys: list[tuple[int, int, int, int]]
    entries: tuple[_Entry, ...]
    latest: int
    """The latest mtime or ctime among them (reused only when settled before the scan)."""
    size: int
    """Bytes of content they keep (counted against ``max_total``)."""


@dataclass(slots=True)
class Snapshot:
    """The workspace's files at one moment (paths relative to the root, posix)."""

    files: dict[str, _Entry] = field(default_factory=dict)
    links: dict[str, str] = field(default_factory=dict)
    """Symlinks to files the walk saw, and where each leads (not followed, not kept)."""
    complete: bool = True
    """False: more than ``max_files`` files, or the walk ran out of time; the rest were not scanned."""
    why: str = ""
    """Why it is not complete, for the user."""
    ignored: frozenset[str] = frozenset()
    """The ignored paths the walk passed by (not scanned: a command that removes one is said)."""
    checkouts: frozenset[str] = frozenset()
    """The ignored folders holding a ``.git`` file (a linked worktree's checkout: the sandbox
    pins that file, so such a folder gone was moved with all in it, not removed; finding C11)."""
    chunks: dict[str, _Chunk] = field(default_factory=dict, repr=False, compare=False)
    """The files of this scan by folder chunk (keyed by its first file's path), each
    with its content kept (see :class:`_Chunk`)."""


class WorkspaceCapture:
    """Before/after scans of one workspace (thread-safe; one scan at a time)."""

    def __init__(
        self, root: Path, *, max_file: int = MAX_FILE, max_total: int = MAX_TOTAL, max_files: int = MAX_FILES,
        budget: float = SCAN_BUDGET_S,
    ) -> None:
        self.root = root.resolve()
        self.budget = budget
        self.cut = ""
        """What the last :meth:`changes_since` could not see ("" when it saw everything)."""
        self.not_undone = ""
        """What the last :meth:`changes_since` saw that a rewind does not undo: symlinks
        changed to lead elsewhere ("" when none)."""
        self.lost = ""
        """What the last :meth:`changes_since` saw a command delete or cut short that a
        rewind cannot put back (not kept: too big, over the total, unreadable), for the
        command's result ("" when none)."""
        self.unignored: frozenset[str] = frozenset()
        """Paths the last :meth:`changes_since` saw ignored before and there, not ignored,
        after: an ignore file's rule removed, not the path (finding D19: said as removed)."""
        self.tree: list[TreeChange] = []
        """The folders the last :meth:`changes_since` saw renamed and symlinks made:
        a rewind undoes those."""
        self.max_file = max_file
        self.max_total = max_total
        self.max_files = max_files
        self._last = Snapshot()
        self._walk = ListingWalk(self.root)
        self._lock = threading.Lock()

    @property
    def listed(self) -> int:
        """How many folders the last scan listed afresh: a folder whose stamp (inode,
        mtime, ctime) and ignore rules are as at the scan before is not listed again
        (:mod:`.scanwalk`); its files are still each compared by their stat."""
        return self._walk.listed

    def snapshot(self) -> Snapshot:
        """Scan now (what did not change since the last scan is not read again)."""
        with self._lock:
            snap = self._scan(self._last)
            self._last = snap
            return snap

    def changes_since(self, before: Snapshot) -> list[CapturedFile]:
        """Scan again and compare with ``before``: every file written, created or
        deleted since, with its content in ``before`` (sorted by path)."""
        with self._lock:
            after = self._scan(before)
            self._last = after
        self.cut = after.why or before.why
        self.not_undone, self.tree = _not_undone(self.root, before, after)
        out: list[CapturedFile] = []
        lost: list[tuple[str, str, str]] = []
        was, now = before.files, after.files
        self.unignored = unignored_paths(before.ignored, after.ignored, was, now) \
            if before.complete and after.complete else frozenset()
        differ = [rel for rel, entry in now.items() if was.get(rel) is not entry  # kept entries are shared
                  and not (rel in self.unignored and is_secret_file(rel))]  # hidden: not the command's
        differ += [rel for rel in was if rel not in now]
        for rel in sorted(differ):
            old, new = was.get(rel), now.get(rel)
            if old is not None and new is not None:
                if old.data is not None and new.data is not None:
                    if old.data == new.data:
                        continue
                elif old.key == new.key:
                    continue
            elif old is not None and not after.complete:
                continue  # not seen after a cut scan: deleted or beyond the cut (``cut`` says so)
            elif old is None and new is not None and not before.complete:
                out.append(CapturedFile(self.root / rel, None, None, kept=False,
                                        why=f"the workspace has more than {self.max_files} files; "
                                            "only the first were scanned"))
                continue
            # what the command left, so a rewind can tell the user's later edits from it
            left, deleted = (new.data if new is not None else None), new is None
            if old is None:
                out.append(CapturedFile(self.root / rel, None, None, after=left, deleted=deleted))
            elif old.data is None:
                if new is None or new.key[0] < old.key[0]:
                    lost.append((rel, "deleted" if new is None else f"cut from {_mb(old.key[0])}", old.why))
                out.append(CapturedFile(self.root / rel, None, old.mode, kept=False, why=old.why,
                                        after=left, deleted=deleted))
            else:
                out.append(CapturedFile(self.root / rel, old.data, old.mode, after=left, deleted=deleted))
        gone = before.ignored - after.ignored - before.checkouts - self.unignored \
            if before.complete and after.complete else frozenset()  # a moved checkout: sessions.gitworktrees
        self.lost = "\n".join(n for n in (lost_note(lost), ignored_note(gone)) if n)
        return out

    def seen_paths(self) -> list[str]:
        """The paths the last scan saw: its files and the ignored paths it passed by."""
        last = self._last
        return [*last.files, *last.ignored]

    # -- scanning ----------------------------------------------------------------------
    def _scan(self, known: Snapshot) -> Snapshot:
        snap = Snapshot()
        settled = time.time_ns() - RACY_NS
        total = [0]
        stats = WalkStats()
        deadline = time.monotonic() + self.budget
        walk = self._walk.walk(ignore_root_for(self.root, self.root), stats, deadline)
        for batch in walk:
            for name, rel in batch.links:
                with contextlib.suppress(OSError):
                    snap.links[rel] = os.readlink(name, dir_fd=batch.dir_fd)
            for start in range(0, len(batch.files), 256):  # the walk looks between folders only
                if time.monotonic() > deadline:
                    stats.stopped_at = batch.files[start][1].rpartition("/")[0] or "."
                    walk.close()
                    break
                if not self._add_all(snap, known, batch, start, settled, total):
                    walk.close()
                    return snap
            if stats.stopped_at is not None:
                break
        snap.ignored = frozenset(self._walk.ignored)
        snap.checkouts = frozenset(g for g in snap.ignored
                                   if g.endswith("/") and _git_file(self.root / g / ".git"))
        if stats.stopped_at is not None:
            snap.complete = False
            where = sanitize_line(stats.stopped_at)
            where = where if len(where) <= 80 else where[:77] + "…"
            snap.why = (f"{CUT_NOTE} under {where}/ and after it: the workspace took more than "
                        f"{self.budget:g} s to scan (too deep or too many files)")
            return snap
        seen = snap.files.keys()  # "<=" looks each up; "-" would build a set of 20,000 to find none
        kept = set() if known.files.keys() <= seen else known.files.keys() - seen
        if self._last is not known and not self._last.files.keys() <= seen:
            kept |= self._last.files.keys() - seen
        if ".gitignore" not in snap.files:  # `*` ignores itself too
            kept.add(".gitignore")
        for rel in sorted(kept):
            if len(snap.files) >= self.max_files:
                snap.complete = False
                break
            self._add_kept(snap, known, rel, settled, total)
        return snap

    def _add_all(self, snap: Snapshot, known: Snapshot, batch: Batch, start: int, settled: int,
                 total: list[int]) -> bool:
        """Scan up to 256 of one folder's files from ``start`` into ``snap``; False when
        ``max_files`` are scanned (the snapshot then says it is cut). This is most of
        what a scan of an unchanged workspace costs, so the files are stat-ed in one
        comprehension and, when every stat is as in ``known`` (and settled), their
        entries are taken as one chunk (:class:`_Chunk`); else file by file, where a
        file whose stat is as before keeps its entry without a call to :meth:`_add`."""
        fd, out, max_files = batch.dir_fd, snap.files, self.max_files
        files = batch.files[start:start + 256]
        if not files:
            return True
        infos: list[os.stat_result] | None = None
        keys: list[tuple[int, int, int, int]] | None = None
        if len(out) + len(files) <= max_files:
            stat_ = os.stat
            try:
                infos = [stat_(name, dir_fd=fd, follow_symlinks=False) for name, _ in files]
            except OSError:
                infos = None  # one went away since the folder was listed: file by file
            else:
                keys = list(map(_KEY, infos))
        one = known.files is self._last.files
        first = files[0][1]
        chunk = known.chunks.get(first) if keys is not None else None  # entries of known: as known_get
        if (chunk is not None and chunk.keys == keys and chunk.files == files and chunk.latest < settled
                and total[0] + chunk.size <= self.max_total):
            out.update(zip(chunk.rels, chunk.entries, strict=True))
            total[0] += chunk.size
            snap.chunks[first] = chunk
            return True
        known_get, last_get = known.files.get, self._last.files.get
        max_total, kept = self.max_total, total[0]
        for n, (name, rel) in enumerate(files):
            if len(out) >= max_files:
                total[0] = kept
                snap.complete = False
                snap.why = f"{CUT_NOTE} past the first {max_files} files of the workspace"
                return False
            try:
                info = os.stat(name, dir_fd=fd, follow_symlinks=False) if infos is None else infos[n]
            except OSError:
                continue
            key = _KEY(info)
            previous = known_get(rel) if one else known_get(rel) or last_get(rel)
            if (previous is not None and previous.data is not None and previous.key == key
                    and key[1] < settled and key[2] < settled and kept + len(previous.data) <= max_total):
                kept += len(previous.data)
                out[rel] = previous
                continue
            total[0] = kept
            self._add(snap, known, rel, name, fd, settled, total, info)
            kept = total[0]
        total[0] = kept
        _keep_chunk(snap, files)
        return True

    def _add_kept(self, snap: Snapshot, known: Snapshot, rel: str, settled: int, total: list[int]) -> None:
        """A file scanned before that the walk did not yield: deleted, or ignored now
        (a command can write ``*`` into ``.gitignore``, then overwrite the user's
        untracked notes). Still there, it is scanned where it is, so what a command
        does to a file that was captured once is captured whatever ``.gitignore``
        says since. Not through a symlinked directory (one a command put there)."""
        path = self.root / rel
        parent = str(path.parent)
        try:
            if os.path.realpath(parent) != parent:
                return
            dir_fd = os.open(parent, DIR_FLAGS)
        except OSError:
            return
        try:
            self._add(snap, known, rel, path.name, dir_fd, settled, total)
        finally:
            os.close(dir_fd)

    def _add(self, snap: Snapshot, known: Snapshot, rel: str, name: str, dir_fd: int, settled: int,
             total: list[int], info: os.stat_result | None = None) -> None:
        """Scan one file into ``snap`` (kept content reused while its stat is unchanged)."""
        try:
            info = info or os.stat(name, dir_fd=dir_fd, follow_symlinks=False)
        except OSError:
            return
        if not stat.S_ISREG(info.st_mode):
            return
        key = (info.st_size, info.st_mtime_ns, info.st_ctime_ns, info.st_ino)
        mode = stat.S_IMODE(info.st_mode)
        previous = known.files.get(rel) or self._last.files.get(rel)
        if (previous is not None and previous.key == key and previous.data is not None
                and info.st_mtime_ns < settled and info.st_ctime_ns < settled
                and total[0] + len(previous.data) <= self.max_total):
            total[0] += len(previous.data)
            snap.files[rel] = previous
            return
        entry = self._read(name, dir_fd, key, mode, total[0])
        if entry.data is not None:
            total[0] += len(entry.data)
        snap.files[rel] = entry

    def _read(self, name: str, dir_fd: int, key: tuple[int, int, int, int], mode: int, total: int) -> _Entry:
        size = key[0]
        if size > self.max_file:
            why = f"it is too big to keep ({_mb(size)}; the limit is {_mb(self.max_file)})"
            return _Entry(key, mode, None, why)
        if total + size > self.max_total:
            return _Entry(key, mode, None, f"the workspace holds more than {_mb(self.max_total)} of files to "
                                           "keep before a command")
        try:
            fd = os.open(name, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC, dir_fd=dir_fd)
        except OSError as exc:
            return _Entry(key, mode, None, f"it could not be read ({exc.strerror or exc})")
        try:
            data = _read_up_to(fd, size, self.max_file + 1)
        except OSError as exc:
            return _Entry(key, mode, None, f"it could not be read ({exc.strerror or exc})")
        finally:
            os.close(fd)
        if len(data) > self.max_file:
            return _Entry(key, mode, None, f"it is too big to keep (over {_mb(self.max_file)})")
        return _Entry(key, mode, data)


LOST_NOTE = "/rewind cannot put back"
"""How a command's note on files it deleted or cut short that were not kept starts."""


REBUILT = frozenset({"node_modules", "__pycache__", ".venv", "venv", ".tox", ".nox", ".pytest_cache",
                     ".mypy_cache", ".ruff_cache", ".cache", "dist", "build", "target", ".next", ".nuxt",
                     "coverage", ".coverage", "htmlcov", ".gradle", ".eggs", ".parcel-cache", ".turbo"})
"""Ignored folders a build or an install makes again: their removal is not said."""


def ignored_note(gone: frozenset[str]) -> str:
    """What a command's result says of paths ``.gitignore`` ignores that it removed: the
    capture does not keep them (dependencies and build output would fill it), so a
    ``git clean -xdf`` or an ``rm -rf data/`` of your local database is gone for good, and
    the user must hear it at once (finding U14). Build and dependency folders are left out."""
    said = sorted(g for g in gone if g.rstrip("/").rpartition("/")[2] not in REBUILT
                  and not g.endswith((".pyc", ".egg-info/")))
    if not said:
        return ""
    more = f" and {len(said) - MAX_NAMED} more" if len(said) > MAX_NAMED else ""
    names = ", ".join(path_text(g) for g in said[:MAX_NAMED])
    return (f"[agent-shell: this command removed paths .gitignore ignores ({names}{more}): they are not "
            f"kept before a command, so {LOST_NOTE} them. Tell the user now: they may still have a copy "
            "elsewhere.]")


def lost_note(lost: list[tuple[str, str, str]]) -> str:
    """What a command's result says at once of files it deleted or cut short whose
    content the scan before it could not keep (``(path, what happened, why)``): else
    only a later ``/rewind`` told, and by then the user might have stopped the agent or
    found a copy elsewhere (tester finding L4)."""
    if not lost:
        return ""
    said = " ".join(f"{path_text(rel)} was {what}: {sanitize_line(why) or 'it was not kept'}."
                    for rel, what, why in lost[:MAX_NAMED])
    more = f" And {len(lost) - MAX_NAMED} more." if len(lost) > MAX_NAMED else ""
    return (f"[agent-shell: {LOST_NOTE} what this command deleted or cut short, as its content was not kept "
            f"before the command. {said}{more} Tell the user now: they may still have a copy elsewhere.]")


def refused_note(root: Path, refused: Sequence[CapturedFile]) -> str:
    """What a command's result says of files it changed whose old content the
    checkpoints did not take (their limit was reached): a later ``rm`` after a command
    that filled them lost files with nothing said (finding X7)."""
    lost = []
    for f in refused:
        with contextlib.suppress(ValueError):
            what = "deleted" if f.deleted else "changed"
            lost.append((f.path.relative_to(root).as_posix(), what, f.why))
    return lost_note(lost)


NOT_UNDONE = "a rewind does not undo"
"""How the part of a command's note that lists its renames and symlinks starts."""
MAX_NAMED = 5


def _not_undone(root: Path, before: Snapshot, after: Snapshot) -> tuple[str, list[TreeChange]]:
    """Folders a command renamed (a file gone from one place and there under another
    name, same inode: ``mv sub sub_old``) and symlinks it made (``ln -s ~/target sub``,
    found where a renamed folder was, or a link to a file the walk saw): a rewind
    undoes these (tester finding K17). A symlink it changed to lead elsewhere is said
    in the note: a rewind does not undo that."""
    was, now = before.files, after.files
    gone: dict[tuple[int, int, int], str] = {}
    if not was.keys() <= now.keys():  # (no Python code per file when none went)
        gone = {(e.key[0], e.key[1], e.key[3]): rel for rel, e in was.items() if rel not in now}
    moved: dict[str, str] = {}
    made = [(rel, entry) for rel, entry in now.items() if rel not in was] if gone else []
    for rel, entry in made:  # a rename keeps the inode, size and mtime
        old = gone.get((entry.key[0], entry.key[1], entry.key[3]))
        if old is None:
            continue
        a, b = old.split("/"), rel.split("/")
        while len(a) > 1 and len(b) > 1 and a[-1] == b[-1]:
            a, b = a[:-1], b[:-1]
        moved.setdefault("/".join(a), "/".join(b))
    links = {rel: to for rel, to in after.links.items() if before.links.get(rel) != to}
    for old in moved:
        with contextlib.suppress(OSError):
            links.setdefault(old, os.readlink(root / old))
    tree = [TreeChange("rename", root / b, str(root / a)) for a, b in sorted(moved.items())]
    tree += [TreeChange("link", root / rel, to) for rel, to in sorted(links.items())
             if rel not in before.links]
    said = [f"made {sanitize_line(rel)} lead to {sanitize_line(to)} instead of "
            f"{sanitize_line(before.links[rel])}" for rel, to in sorted(links.items()) if rel in before.links]
    if not said:
        return "", tree
    more = f" and {len(said) - MAX_NAMED} more" if len(said) > MAX_NAMED else ""
    return f"{NOT_UNDONE}: it {', '.join(said[:MAX_NAMED])}{more}", tree


def _keep_chunk(snap: Snapshot, files: Named) -> None:
    """Keep ``files`` as one chunk of ``snap`` when each has an entry with its content."""
    got = snap.files.get
    entries = [got(rel) for _, rel in files]
    kept = [e for e in entries if e is not None and e.data is not None]
    if len(kept) == len(files):
        rels = tuple(rel for _, rel in files)
        snap.chunks[rels[0]] = _Chunk(files, rels, [e.key for e in kept], tuple(kept),
                                      max(max(e.key[1], e.key[2]) for e in kept),
                                      sum(len(e.data or b"") for e in kept))


def _read_up_to(fd: int, size: int, limit: int) -> bytes:
    """At most ``limit`` bytes of an open file whose stat said ``size``. Asked for its
    size (plus one, to see it grew), not for ``limit``: a buffered ``read(limit)``
    sets aside ``limit`` bytes (4 MB) for every six-byte file, and a workspace of
    20,000 small files took seconds of that alone."""
    chunks: list[bytes] = []
    got = 0
    ask = min(size + 1, limit)
    while got < limit:
        chunk = os.read(fd, ask)
        if not chunk:
            break
        chunks.append(chunk)
        got += len(chunk)
        ask = min(1 << 16, limit - got)
    return b"".join(chunks)


def _mb(size: int) -> str:
    return f"{size / (1024 * 1024):.1f} MB"


def _git_file(path: Path) -> bool:
    try:
        return stat.S_ISREG(os.lstat(path).st_mode)
    except OSError:
        return False


T = TypeVar("T")


async def watched(
    run: Callable[[], Awaitable[T]], command: str, changes: ChangeLog, capture: WorkspaceCapture | None,
    outside: str = "it ran outside the sandbox",
) -> T:
    """Run a command (``run``), telling ``changes`` what it did, for ``/rewind``: with
    ``capture`` (the command runs in the sandbox, so its writes can only land in the
    workspace) a scan before and after captures them, also after a cancel or a
    timeout; without, they cannot be known and the checkpoint says why (``outside``).
    The one way both ``run_shell``s (ours, the editor's terminal) are watched."""
    if capture is None:
        try:
            return await run()
        finally:
            changes.shell_ran(command, sandboxed=False, files=None, note=outside)
    before = await anyio.to_thread.run_sync(capture.snapshot, abandon_on_cancel=True)
    lost: list[str] = []
    keep, compare = getattr(changes, "git_before", None), getattr(changes, "git_after", None)  # U14
    history = await anyio.to_thread.run_sync(keep, capture.root) if keep is not None else None

    def record() -> None:
        """Off the event loop, scan and record in one go: a command that made 30,000
        files has 60,000 checkpoint records, and the screen must not wait for them (J9)."""
        found = capture.changes_since(before)
        lost.append(capture.lost)  # read here: the next command's scan sets it anew
        lost.append(exposed_note(capture.root, capture.unignored, found, capture.seen_paths))  # D19
        if history is not None and compare is not None:  # what it removed of the history, said
            lost.append(compare(capture.root, history))
        note = "; ".join(n for n in (capture.cut, capture.not_undone) if n) or NOT_SCANNED
        if capture.tree:
            refused = changes.shell_ran(command, sandboxed=True, files=found, note=note, tree=capture.tree)
        else:
            refused = changes.shell_ran(command, sandboxed=True, files=found, note=note)
        lost.append(refused_note(capture.root, refused or ()))
        take = getattr(changes, "take_problems", None)
        problems = take() if take is not None else []
        if problems:
            lost.append(f"[agent-shell: the checkpoints: {sanitize_line('; '.join(problems[:MAX_NAMED]))}. "
                        "/rewind may not undo what this command changed. Tell the user]")

    cancelled = False
    try:
        result = await run()
    except anyio.get_cancelled_exc_class():
        cancelled = True
        raise
    finally:
        # Past the wait the scan goes on in its thread and records the command when done
        # (the next command's scan waits for it: one scan at a time), so Esc stays quick.
        with anyio.CancelScope(shield=True), anyio.move_on_after(CANCEL_WAIT if cancelled else RECORD_WAIT):
            await anyio.to_thread.run_sync(record, abandon_on_cancel=True)
    return with_note(result, "\n".join(n for n in lost if n))


def with_note(result: T, note: str) -> T:
    """``result`` (a :class:`ToolResult`) with ``note`` after its text, which the user
    sees in the call's span and the model reads; anything else as it is."""
    if not note or not isinstance(result, ToolResult):
        return result
    if isinstance(result.content, str):
        content: str | tuple[TextBlock | DataBlock, ...] = f"{result.content}\n{note}"
    else:
        content = (*result.content, TextBlock(note))
    return cast(T, dataclasses.replace(result, content=content))
