"""The rewind scan's walk of the workspace, which keeps each folder's listing.

The rewind scan (:mod:`.capture`) walks the workspace before and after every
sandboxed command. Listing each folder (reading it, sorting it, matching every
name against the ``.gitignore`` rules) was most of what it cost, yet a command
rarely adds, removes or renames entries in more than a few folders. So each
folder's listing is kept with the folder's stamp (device, inode, mtime and ctime)
and the ignore rules it was listed under, and a folder whose stamp and rules are
as they were is not listed again. Adding, removing or renaming an entry sets the
folder's mtime and ctime, and nothing but the clock sets a ctime (a command can set
the mtime back with ``touch -d``, not the ctime).

What a folder's stamp does not show is looked at on every walk: each file's own
stat (the capture compares it: a file written in place changes only itself), the
text of each ``.gitignore`` (edited in place, its folder stays as it was) and
where each symlink leads. A listing taken less than :data:`RACY_NS` after its
folder last changed is not kept (a coarse file system clock can leave the stamp
as it was after a change made right after the listing).

The walk is the same as :func:`.ignore.walk_entries` otherwise: through directory
descriptors, never following a symlink, ``.git`` and ignored paths left out, a
symlinked folder not entered, a symlink loop skipped; but it yields a folder's
files at once (a :class:`Batch`), in the same order.
"""

from __future__ import annotations

import os
import time
from collections.abc import Generator
from dataclasses import dataclass
from pathlib import Path

from .ignore import DIR_FLAGS, Chain, GitIgnore, OpenDir, WalkStats, chain_with, link_target, read_at

RACY_NS = 2_000_000_000
"""A folder changed this soon before it was listed is listed again next time."""

Named = tuple[tuple[str, str], ...]
"""Entries of one folder: (name in the folder, path below the walk's start)."""


@dataclass(frozen=True, slots=True)
class _Listing:
    """What one folder held when it was listed, and under what it may be reused."""

    stamp: tuple[int, int, int, int]
    """The folder's device, inode, mtime and ctime (ns) when it was listed."""
    rules: tuple[tuple[str, str], ...]
    """The ignore rules it was listed under (:func:`_rules_key`)."""
    files: Named
    links: Named
    subdirs: Named
    ignored: int
    gitignore: bool
    """It has an entry named ``.gitignore`` (read on every walk: edited in place, the
    folder's stamp stays as it was)."""
    settled: bool
    """Listed over :data:`RACY_NS` after the folder last changed: may be reused."""
    ignored_names: tuple[str, ...] = ()
    """The ignored entries' paths below the walk's start (a folder's ends in ``/``)."""


@dataclass(frozen=True, slots=True)
class Batch:
    """One folder's files, to be opened relative to ``dir_fd`` (valid until the walk moves on)."""

    dir_fd: int
    files: Named
    """Regular files and whatever else is neither a folder nor a symlink, sorted by name."""
    links: Named
    """Symlinks that do not lead to a folder (nor into a loop)."""


_Pending = tuple[str, OpenDir | None, str, int, Chain | None]
"""A folder still to walk: its path, its open parent, its name, its descriptor (-1
until opened) and the ignore rules that apply above it."""


class ListingWalk:
    """Walks of one folder that reuse the listings of the folders that did not change
    (not thread-safe: the capture walks one at a time)."""

    def __init__(self, start: Path) -> None:
        self.start = start
        self.listed = 0
        """How many folders the last walk listed afresh (the rest were reused)."""
        self._listings: dict[str, _Listing] = {}
        self.ignored: list[str] = []
        """The ignored paths the last walk passed by (not entered): what a command may
        remove that the capture does not keep (:func:`.capture.ignored_note`)."""
        self._ignore_root: Path | None = None

    def walk(self, ignore_root: Path, stats: WalkStats, deadline: float | None = None
             ) -> Generator[Batch, None, None]:
        """The files below the start, folder by folder (depth first, sorted), minus
        ignored ones. ``deadline`` (``time.monotonic()``): past it the walk stops
        before the next folder and names it in ``stats.stopped_at``."""
        if ignore_root != self._ignore_root:  # the paths the rules see are not the same
            self._listings, self._ignore_root = {}, ignore_root
        self.listed = 0
        self.ignored = []
        base = self.start.relative_to(ignore_root).as_posix() if self.start != ignore_root else ""
        try:
            fd = os.open(self.start, DIR_FLAGS)
        except OSError:
            stats.unreadable.append(".")
            return
        stack: list[_Pending] = [("", None, "", fd, GitIgnore(ignore_root).chain_above(base))]
        opened: set[OpenDir] = set()
        seen: set[str] = set()
        try:
            while stack:
                if deadline is not None and time.monotonic() > deadline:
                    stats.stopped_at = stack[-1][0] or "."
                    return
                rel, parent, name, fd, above = stack.pop()
                here = _open(rel, parent, name, fd, opened, stats)
                if here is None:
                    continue
                found = self._listing(here.fd, rel, base, above, stats)
                if found is None:
                    here.release()
                    continue
                listing, chain = found
                seen.add(rel)
                self.ignored += listing.ignored_names
                yield Batch(here.fd, listing.files, _links(listing.links, here.fd, stats))
                here.pending += len(listing.subdirs)
                for sub, sub_rel in reversed(listing.subdirs):
                    stack.append((sub_rel, here, sub, -1, chain))
                here.release()
        finally:  # a consumer that stops early leaves nothing open
            for d in opened:
                os.close(d.fd)
            if len(self._listings) > 2 * len(seen) + 1024:  # listings of folders gone
                self._listings = {rel: v for rel, v in self._listings.items() if rel in seen}

    def _listing(self, fd: int, rel: str, base: str, above: Chain | None, stats: WalkStats
                 ) -> tuple[_Listing, Chain | None] | None:
        """The folder open at ``fd``: its listing kept from before when its stamp and
        rules are as they were, else listed now; and the rules inside it."""
        try:
            info = os.fstat(fd)
        except OSError:
            stats.unreadable.append(rel or ".")
            return None
        stamp = (info.st_dev, info.st_ino, info.st_mtime_ns, info.st_ctime_ns)
        here_rel = "/".join(p for p in (base, rel) if p)
        kept = self._listings.get(rel)
        if kept is not None and (not kept.settled or kept.stamp != stamp):
            kept = None
        text = read_at(fd) if kept is None or kept.gitignore else ""
        chain = chain_with(text, here_rel, above, stats)
        rules = _rules_key(chain)
        if kept is not None and kept.rules == rules:
            stats.ignored += kept.ignored
            return kept, chain
        listed_at = time.time_ns()
        listing = _list(fd, rel, here_rel, chain, stamp, rules, stats)
        if listing is None:
            return None
        if max(stamp[2], stamp[3]) >= listed_at - RACY_NS:
            listing = _unsettled(listing)
        self._listings[rel] = listing
        self.listed += 1
        return listing, chain


def _open(rel: str, parent: OpenDir | None, name: str, fd: int, opened: set[OpenDir],
          stats: WalkStats) -> OpenDir | None:
    """A pending folder opened from its parent's descriptor (not through a symlink)."""
    if parent is not None:
        try:
            fd = os.open(name, DIR_FLAGS, dir_fd=parent.fd)
        except OSError:
            stats.unreadable.append(rel)
            return None
        finally:
            parent.release()
    return OpenDir(fd, opened)


def _rules_key(chain: Chain | None) -> tuple[tuple[str, str], ...]:
    """What decides the ignore verdicts inside a folder: each ``.gitignore`` (and
    ``.git/info/exclude``) that applies there, by where it is and its text."""
    out: list[tuple[str, str]] = []
    while chain is not None:
        out.append((chain.rules.base, chain.rules.source))
        chain = chain.parent
    return tuple(out)


def _list(fd: int, rel: str, here_rel: str, chain: Chain | None, stamp: tuple[int, int, int, int],
          rules: tuple[tuple[str, str], ...], stats: WalkStats) -> _Listing | None:
    """Read the folder open at ``fd``: its files, symlinks and subfolders not ignored."""
    try:
        with os.scandir(fd) as it:
            entries = sorted(it, key=lambda e: e.name)
    except OSError:
        stats.unreadable.append(rel or ".")
        return None
    prefix = f"{here_rel}/" if here_rel else ""
    files: list[tuple[str, str]] = []
    links: list[tuple[str, str]] = []
    subdirs: list[tuple[str, str]] = []
    ignored: list[str] = []
    for entry in entries:
        name = entry.name
        try:
            is_dir = entry.is_dir(follow_symlinks=False)
            is_link = not is_dir and entry.is_symlink()
        except OSError:
            continue
        if name == ".git":
            continue
        if chain is not None and chain.verdict(prefix + name, is_dir):
            ignored.append((f"{rel}/{name}" if rel else name) + ("/" if is_dir else ""))
            continue
        where = subdirs if is_dir else links if is_link else files
        where.append((name, f"{rel}/{name}" if rel else name))
    stats.ignored += len(ignored)
    return _Listing(stamp, rules, tuple(files), tuple(links), tuple(subdirs), len(ignored),
                    any(e.name == ".gitignore" for e in entries), True, tuple(ignored))


def _unsettled(listing: _Listing) -> _Listing:
    return _Listing(listing.stamp, listing.rules, listing.files, listing.links, listing.subdirs,
                    listing.ignored, listing.gitignore, False, listing.ignored_names)


def _links(links: Named, fd: int, stats: WalkStats) -> Named:
    """The symlinks of a folder that lead to neither a folder nor a loop (looked at on
    every walk: where a symlink leads changes without its folder changing)."""
    if not links:
        return links
    out: list[tuple[str, str]] = []
    for name, rel in links:
        target = link_target(name, fd)
        if target == "loop":
            stats.loops.append(rel)
        elif target != "dir":
            out.append((name, rel))
    return tuple(out)


__all__ = ["Batch", "ListingWalk", "RACY_NS"]
