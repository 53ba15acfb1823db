"""Workspace files that ARE the user's home files, through symlinks: a dotfiles repository.

With GNU stow, rcm or the usual "dotfiles" README, ``~/.bashrc`` is a link to
``~/dotfiles/bashrc``, ``~/.gitconfig`` to ``~/dotfiles/git/gitconfig`` and
``~/.config/nvim`` to ``~/dotfiles/nvim``. Working in ``~/dotfiles`` is then working on
what the login shell, every ``git`` and the editor run as the user, as much as working
in home itself (:mod:`.homedirs`), yet it looked like an ordinary project (finding K6).

:func:`home_links` finds, in the home directory, the entries that are symlinks leading
into the workspace: the dot files and folders right in home, and the entries of
``~/.config`` and ``~/.local/bin`` (one listing each: cheap, kept until one of those
folders changes). What they lead to counts as runs-later: the file tools ask before an
edit (:mod:`.laterhit`, the question saying "~/.bashrc is a link to it"), the sandbox
keeps it read-only, and one a command creates where a dangling link points is
quarantined (:mod:`.runslater`). Not followed: links deeper in ``~/.config`` (stow
without folding links each file of ``~/.config/nvim``; the folder above is looked at).
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path

from . import paths
from .homedirs import home_dirs

PLACES = ("", ".config", ".local/bin")
"""Folders of home whose entries are looked at ("" is home itself: its dot entries)."""
MAX_ENTRIES = 2_000
"""Entries of one such folder looked at (a home with more is not a dotfiles user's)."""

_cache: dict[tuple[Path, tuple[Path, ...]], tuple[tuple[float, ...], dict[Path, str]]] = {}


def why(link: str) -> str:
    """The reason shown for a workspace path that the home entry ``link`` leads to."""
    return f"{link} is a link to it: what it says runs as you, outside the sandbox (your dotfiles)"


def home_links(roots: Sequence[Path]) -> dict[Path, str]:
    """Real path inside ``roots`` (file or folder) → why, for each home entry that is a
    symlink leading there; a dangling one counts where it points (created later, it runs)."""
    found: dict[Path, str] = {}
    tops = tuple(roots)
    for home in home_dirs():
        for path, reason in _links(home, tops).items():
            found.setdefault(path, reason)
    return found


def link_why(real: Path, roots: Sequence[Path]) -> str:
    """Why ``real`` (a real path) runs later because a home link leads to it or to a
    folder holding it, or ""."""
    links = home_links(roots)
    if not links:
        return ""
    for part in (real, *real.parents):
        reason = links.get(part)
        if reason:
            return reason
    return ""


def _stamp(home: Path) -> tuple[float, ...]:
    out = []
    for place in PLACES:
        try:
            out.append(os.stat(home / place).st_mtime)
        except OSError:
            out.append(0.0)
    return tuple(out)


def _links(home: Path, roots: tuple[Path, ...]) -> dict[Path, str]:
    if not roots:
        return {}
    stamp = _stamp(home)
    cached = _cache.get((home, roots))
    if cached is not None and cached[0] == stamp:
        return cached[1]
    found: dict[Path, str] = {}
    for place in PLACES:
        folder = home / place
        try:
            with os.scandir(folder) as entries:
                listed = [e for _, e in zip(range(MAX_ENTRIES), entries, strict=False)]
        except OSError:
            continue
        for entry in listed:
            if not place and not entry.name.startswith("."):
                continue
            try:
                if not entry.is_symlink():
                    continue
            except OSError:
                continue
            real = Path(os.path.realpath(entry.path))
            if real in roots or not any(paths.within(real, r) for r in roots):
                continue  # the workspace itself is home's: homedirs' rule, not a file's
            shown = "~/" + (f"{place}/{entry.name}" if place else entry.name)
            found.setdefault(real, why(shown))
    _cache[(home, roots)] = (stamp, found)
    return found


__all__ = ["PLACES", "home_links", "link_why", "why"]
