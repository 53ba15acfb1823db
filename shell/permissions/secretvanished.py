"""Secret files that vanished from where a search found them: their names stay hidden.

A tool that deletes its credentials file and writes it again (rather than renaming a
new one over it) leaves a moment with no file. A search of the folder in that moment
saw no ``.env``, so nothing was bound over it, and the command, started a few
milliseconds later when the file was back, read the key in full (finding W5: 2 runs of
8, in home and in the workspace alike). So a path that held a secret file at one search
and is missing at the next stays on the list (:class:`Vanished`): the sandbox binds over
it if it exists when the command is set up (:meth:`.Sandbox.hideable`, :func:`.homewalk.home_args`
look again), and its values go into the values net: read then, or, still missing, those it
held when last read (:func:`missing`), in case it is back by the time the command reads it. Once it is
back the folder's listing judges it as any other file; a path missing for good stays
listed (at most :data:`MAX_VANISHED`), which costs an ``lstat`` a search.

Not covered: a file that comes back after bubblewrap made its binds, while the
command runs (a bind over a path the host deletes and creates again covers the old file
only): the values net of the previous listing is what catches that, for the same value.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Collection, Iterable
from pathlib import Path
from typing import Protocol

MAX_VANISHED = 1024
"""Vanished names remembered per index (the oldest are forgotten first)."""


class _Listed(Protocol):
    """A folder's listing (:class:`.secretfiles._Listing`): the names it saw."""

    @property
    def secrets(self) -> tuple[str, ...]: ...
    @property
    def files(self) -> tuple[str, ...]: ...
    @property
    def links(self) -> tuple[str, ...]: ...
    @property
    def subdirs(self) -> tuple[str, ...]: ...


class Vanished:
    """The paths of secret files that were found once and are missing now."""

    def __init__(self) -> None:
        self._paths: dict[str, None] = {}

    def covering(self, listing_of: Callable[[str], _Listed | None], known: Iterable[str],
                 found: Collection[str]) -> list[str]:
        """The paths to list as secret in this search, of those vanished before and those
        ``known`` at the search before, not ``found`` already (most: where they were): each
        missing now, and each back that its folder's listing (``listing_of(folder)``) did
        not see, as it came back after that."""
        out: list[str] = []
        for path in dict.fromkeys([*self._paths, *(k for k in known if k not in found)]):
            if path in found:
                continue
            if not os.path.lexists(path):
                out.append(path)
                continue
            folder, name = os.path.split(path)
            listing = listing_of(folder)
            if listing is None or name not in (*listing.secrets, *listing.files, *listing.links,
                                               *listing.subdirs):
                out.append(path)
        return out

    def update(self, known_before: Iterable[str], known_now: Collection[str]) -> None:
        """After a search: the paths known before that it no longer knows and that are
        missing join; those back (judged by the search) leave."""
        gone = [p for p in known_before if p not in known_now and not os.path.lexists(p)]
        kept = [p for p in self._paths if p not in known_now and not os.path.lexists(p)]
        merged = dict.fromkeys([*kept, *gone])
        self._paths = dict.fromkeys(list(merged)[-MAX_VANISHED:])

    def __len__(self) -> int:
        return len(self._paths)


def missing(found: Iterable[Path], shown: Collection[Path] = ()) -> list[Path]:
    """The secret files of ``found`` (not ``shown`` to the call) that are missing now: no
    bind covers them, so their last values go into the values net
    (:func:`.hiddenvalues.file_values`) in case they are back when the command reads them."""
    return [p for p in found if p not in shown and not os.path.lexists(p)]


__all__ = ["MAX_VANISHED", "Vanished", "missing"]
