"""The workspace's files for the ``@`` picker: indexed once in the background, then
searched fuzzily in milliseconds, 100,000 files and more.

The index walks the workspace the way ``grep`` and ``glob`` do (``.gitignore``
honoured, symlinked directories not entered, symlink loops skipped: see
:mod:`shell.tools.ignore`; files that usually hold secrets and links leading out of the
workspace are not offered: see :func:`offered`) in a daemon thread, publishing what it has every few
thousand files, so the picker answers from the first keystroke, with whatever the
walk has reached. It stops at ``max_entries`` and says so.

A search is one pass of Python's regex engine (C) over one string holding every
path, never a Python loop over 100,000 paths: the query's characters must appear
in order (``srcapp`` finds ``src/app.py``), matched without backtracking (each
``[^\\nC]*+C`` step takes the first ``C`` and never gives it back), so a hostile
file name cannot make a search slow. Matches are ranked in tiers (the file name
starts with the query, contains it, the path contains it, the file name holds it
in order, the path does), shorter paths first; only the first few thousand
candidates of a tier are ranked, enough for any list a person reads.
"""

from __future__ import annotations

import bisect
import heapq
import os
import re
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

from shell.core.secrets import is_secret_file, secret_name_hints

MAX_ENTRIES = 200_000
"""Files and folders indexed at most (a monorepo beyond this is cut and says so)."""
PUBLISH_EVERY = 5_000
CANDIDATES_PER_TIER = 3_000
PER_LINE_LIMIT = 20_000
"""Candidate lines checked one by one; with more, one scan of all the text is faster."""
TOP = 200
LINE = "\x00"
"""Starts every line of the search text (no file name holds it): a literal the
regex engine can jump to."""
STALE_AFTER = 30.0
"""Seconds after which opening the picker re-walks the workspace (in the background)."""


@dataclass(frozen=True, slots=True)
class Match:
    """One result: the relative path (folders end with ``/``) and its rank."""

    path: str
    tier: int

    @property
    def is_dir(self) -> bool:
        return self.path.endswith("/")


@dataclass(slots=True)
class _Snapshot:
    paths: tuple[str, ...] = ()
    blob: str = ""
    """Every path, lower case, one a line (each line starts with ``LINE``)."""
    names: str = ""
    """Every path's last part, lower case, one a line (same order, same marks)."""
    starts: tuple[int, ...] = ()
    name_starts: tuple[int, ...] = ()
    top: tuple[str, ...] | None = None
    """The paths nearest the root (what an empty query lists), computed once."""
    lines: tuple[str, ...] = ()
    name_lines: tuple[str, ...] = ()
    counts: dict[str, tuple[int, int]] | None = None
    """Per character, how often it occurs in ``blob`` and in ``names`` (final index)."""
    holding: dict[str, int] | None = None
    """Per character, a mask of the lines that hold it (bit ``n - 1 - i`` for line
    ``i``): a query's lines must hold all its characters, found with a few integer
    ANDs. Built for the finished index only (partial ones scan)."""

    @classmethod
    def of(cls, paths: list[str], *, final: bool = False) -> _Snapshot:
        lower = [LINE + p.lower() for p in paths]
        names = [LINE + _name(p) for p in lower]
        snap = cls(tuple(paths), "\n".join(lower), "\n".join(names), _line_starts(lower), _line_starts(names),
                   lines=tuple(lower), name_lines=tuple(names))
        if final:
            snap.shallowest()
            alphabet = set(snap.blob) - {"\n"}
            snap.holding = {c: int.from_bytes(bytes(c in line for line in lower), "big") for c in alphabet}
            snap.counts = {c: (snap.blob.count(c), snap.names.count(c)) for c in alphabet}
        return snap

    def pattern(self, query: str, names: bool) -> re.Pattern[str]:
        """The subsequence pattern for ``query`` over ``names`` or the paths: started at
        its first character when that is no more frequent than the lines."""
        counts = self.counts.get(query[0]) if self.counts is not None else None
        rare = counts is not None and counts[1 if names else 0] <= len(self.paths) * 1.2
        return subsequence(query, anchored=not rare)

    def holding_all(self, query: str) -> list[int] | None:
        """The lines holding every character of ``query`` when they are few enough
        to check one by one (``[]``: none can match); None: scan instead."""
        if self.holding is None:
            return None
        mask = -1
        for char in set(query):
            mask &= self.holding.get(char, 0)
            if not mask:
                return []
        if mask.bit_count() > PER_LINE_LIMIT:
            return None
        flags = mask.to_bytes(len(self.paths), "big")
        return [m.start() for m in re.finditer(b"\x01", flags)]

    def shallowest(self) -> tuple[str, ...]:
        if self.top is None:
            self.top = tuple(heapq.nsmallest(TOP, self.paths, key=lambda p: (p.rstrip("/").count("/"), p)))
        return self.top


def _name(path: str) -> str:
    return path.rstrip("/").rsplit("/", 1)[-1].lstrip(LINE)


def _line_starts(lines: list[str]) -> tuple[int, ...]:
    starts, at = [], 0
    for line in lines:
        starts.append(at)
        at += len(line) + 1
    return tuple(starts)


def _in_order(short: str, long: str) -> bool:
    """Whether ``short``'s characters appear in ``long`` in order."""
    it = iter(long)
    return all(c in it for c in short)


def subsequence(query: str, *, anchored: bool = True) -> re.Pattern[str]:
    """A pattern matching the rest of a line that holds ``query``'s characters in
    order. Each step takes the first next character possessively (``[^\\nC]*+C``):
    it never backtracks, and it finds the subsequence whenever the line has one
    (the earliest choice is never the wrong one).

    ``anchored``: the match starts at a line's start (``LINE``), so a line is read
    once; otherwise at an occurrence of the query's first character, which the
    engine finds at C speed: far faster when that character is rare, slower when
    it is everywhere (each occurrence is tried)."""
    parts = [LINE] if anchored else []
    for i, char in enumerate(query):
        esc = re.escape(char)  # escapes ] \\ ^ - too, so it serves inside the class
        parts.append(esc if i == 0 and not anchored else f"[^\\n{esc}]*+{esc}")
    return re.compile("".join(parts) + "[^\\n]*")


_HINTS = re.compile("|".join(map(re.escape, secret_name_hints())))


def offered(path: Path, root: Path, is_link: bool) -> bool:
    """Whether the picker offers ``path``: never what attaching would refuse or what
    usually holds secrets. A file named like one (``.env``, ``id_ed25519``: the one
    list of :mod:`shell.core.secrets`) is left out, and so is a link whose target is
    one or lies outside the workspace (``notes.md -> ~/.ssh/id_ed25519``). Typing the
    name in full still attaches a secret file inside the workspace (your own act)."""
    name = path.name.lower()
    if _HINTS.search(name) and is_secret_file(str(path)):
        return False
    if not is_link:
        return True
    try:
        target = os.path.realpath(path)
    except (OSError, ValueError):
        return False
    inside = target == str(root) or target.startswith(str(root).rstrip("/") + "/")
    return inside and not is_secret_file(target)


@dataclass(slots=True)
class FileIndex:
    """The files and folders under ``root``; :meth:`search` them as the user types."""

    root: Path
    max_entries: int = MAX_ENTRIES
    walker: Callable[[Path], Iterable[str]] | None = None
    """For tests: a function yielding paths (default: the ignore-aware walk)."""
    _snapshot: _Snapshot = field(default_factory=_Snapshot)
    _thread: threading.Thread | None = None
    _lock: threading.Lock = field(default_factory=threading.Lock)
    built_at: float = 0.0
    done: bool = False
    truncated: bool = False
    error: str = ""
    _memo: tuple[_Snapshot, str, list[int]] | None = None
    """The last complete search: its query and every line that matched."""

    # -- building ------------------------------------------------------------------------
    def start(self) -> None:
        """Walk in the background (again, if the last walk is older than ``STALE_AFTER``)."""
        with self._lock:
            if self._thread is not None and self._thread.is_alive():
                return
            if self.done and time.monotonic() - self.built_at < STALE_AFTER:
                return
            self._thread = threading.Thread(target=self._build, name="agent-shell file index", daemon=True)
            self._thread.start()

    def wait(self, timeout: float | None = None) -> bool:
        """Block until the walk is done (tests, benchmarks); whether it is."""
        thread = self._thread
        if thread is not None:
            thread.join(timeout)
        return self.done

    @property
    def count(self) -> int:
        return len(self._snapshot.paths)

    def _build(self) -> None:
        paths: list[str] = []
        dirs: set[str] = set()
        truncated = False
        try:
            for rel in self._walk():
                parent = rel.rpartition("/")[0]
                while parent and parent not in dirs:
                    dirs.add(parent)
                    paths.append(parent + "/")
                    parent = parent.rpartition("/")[0]
                paths.append(rel)
                if len(paths) >= self.max_entries:
                    truncated = True
                    break
                if len(paths) % PUBLISH_EVERY == 0:
                    self._snapshot = _Snapshot.of(paths)
            self.error = ""
        except Exception as exc:  # an unreadable root: the picker says so, nothing breaks
            self.error = f"{type(exc).__name__}: {exc}"
        self._snapshot = _Snapshot.of(paths, final=True)
        self.truncated = truncated
        self.built_at = time.monotonic()
        self.done = True

    def _walk(self) -> Iterator[str]:
        if self.walker is not None:
            yield from self.walker(self.root)
            return
        from shell.tools.ignore import ignore_root_for, walk_entries

        root = self.root
        base = len(str(root)) + 1
        for found in walk_entries(root, ignore_root_for(root, root)):
            if offered(found.path, root, found.is_symlink):
                yield str(found.path)[base:].replace("\\", "/")

    # -- searching -----------------------------------------------------------------------
    def search(self, query: str, limit: int = 50) -> list[Match]:
        """The best ``limit`` paths for ``query`` (see the module docstring). An empty
        query lists the top of the tree: folders and files nearest the root first."""
        snap = self._snapshot
        q = query.strip().lower().lstrip("@")
        if not snap.paths:
            return []
        if not q:
            return [Match(p, 0) for p in snap.shallowest()[:limit]]
        candidates = self._candidates(snap, q)
        if candidates == []:
            return []  # some character of the query is in no path at all
        tiers = _Tiers(snap)
        escaped = re.escape(q)
        tiers.take(0, re.compile(LINE + escaped), snap.names, snap.name_starts)
        tiers.take(1, re.compile(escaped), snap.names, snap.name_starts)
        if len(tiers.found) < limit:
            tiers.take(2, re.compile(escaped), snap.blob, snap.starts)
        if len(tiers.found) >= limit or ("/" in q and tiers.found):
            pass  # enough; a path typed out that exists is what was meant
        elif self._fuzzy(tiers, q, candidates, limit):  # every line that matches is in found:
            self._memo = (snap, q, sorted(i for *_, i in tiers.found))  # the next keystroke starts there
        found = sorted(tiers.found)
        return [Match(path, tier) for tier, _, path, _ in found[:limit]]

    def _candidates(self, snap: _Snapshot, q: str) -> list[int] | None:
        """The lines that can match (None: too many to list); typing on narrows the
        last query's matches."""
        candidates = snap.holding_all(q)
        memo = self._memo
        narrower = memo is not None and memo[0] is snap and _in_order(memo[1], q)
        if memo is not None and narrower and (candidates is None or len(memo[2]) < len(candidates)):
            return list(memo[2])
        return candidates

    @staticmethod
    def _fuzzy(tiers: _Tiers, q: str, candidates: list[int] | None, limit: int) -> bool:
        """Tiers 3 and 4 (the query's letters in order, in the name, then the path);
        whether every match was taken."""
        snap = tiers.snap
        if candidates is not None and len(candidates) <= PER_LINE_LIMIT:
            name_pattern = path_pattern = subsequence(q)
            for i in candidates:
                if i in tiers.seen:
                    continue
                if "/" not in q and name_pattern.match(snap.name_lines[i]):
                    tiers.found.append((3, len(snap.paths[i]), snap.paths[i], i))
                elif path_pattern.match(snap.lines[i]):
                    tiers.found.append((4, len(snap.paths[i]), snap.paths[i], i))
            return True
        if "/" not in q:
            tiers.take(3, snap.pattern(q, names=True), snap.names, snap.name_starts)
        if len(tiers.found) < limit:
            return tiers.take(4, snap.pattern(q, names=False), snap.blob, snap.starts)
        return False


class _Tiers:
    """One search's matches so far: ``(tier, length, path, line)``, each line once."""

    __slots__ = ("found", "seen", "snap")

    def __init__(self, snap: _Snapshot) -> None:
        self.snap = snap
        self.seen: set[int] = set()
        self.found: list[tuple[int, int, str, int]] = []

    def take(self, tier: int, pattern: re.Pattern[str], text: str, starts: tuple[int, ...]) -> bool:
        """Collect a tier's lines; whether every match was taken (no cap hit)."""
        taken = 0
        for m in pattern.finditer(text):
            i = bisect.bisect_right(starts, m.start()) - 1
            if i in self.seen:
                continue
            self.seen.add(i)
            path = self.snap.paths[i]
            self.found.append((tier, len(path), path, i))
            taken += 1
            if taken >= CANDIDATES_PER_TIER:
                return False
        return True
