"""Workspace files that ARE the user's home files, through symlinks: a dotfiles repository.

With GNU stow, rcm or the usual "dotfiles" README, ``~/.bashrc`` is a link to
``~/dotfiles/bashrc``, ``~/.gitconfig`` to ``~/dotfiles/git/gitconfig`` and
``~/.config/nvim`` to ``~/dotfiles/nvim``. Working in ``~/dotfiles`` is then working on
what the login shell, every ``git`` and the editor run as the user, as much as working
in home itself (:mod:`.homedirs`), yet it looked like an ordinary project (finding K6).

:func:`home_links` finds, in the home directory, the entries that lead into the
workspace: symlinks, and regular files hard-linked to a workspace file (``ln
dotfiles/bashrc ~/.bashrc``: one file, two names, so a sandboxed ``>> bashrc`` wrote
``~/.bashrc``; finding L4). Looked at: home's dot entries and ``~/bin`` (on the PATH
by Debian's and Ubuntu's ``~/.profile``; ``~/bin -> dotfiles/bin``), any other entry
of home on the PATH, and the entries of ``~/.config``, ``~/.local/bin``, home's other
dot folders (``~/.ssh/config``: stow links it file by file, as ``~/.ssh`` holds keys;
its ``ProxyCommand`` runs at the next ``ssh`` or ``git push``) and of each folder of
``~/.config`` (``~/.config/fish/config.fish``) and of the folders in those
(``~/.config/fish/conf.d/x.fish``: :data:`CONFIG_DEPTH`). Each listing is read whole (only
links and files with more than one name cost a ``stat``) and kept until one of those
folders changes. What they lead to counts as runs-later: the file tools ask before an
edit (:mod:`.laterhit`, the question saying "~/.bashrc is a link to it"), the sandbox
keeps it read-only, and one a command creates where a dangling link points is
quarantined (:mod:`.runslater`). A hard link's workspace name is found by a walk of
the workspace, done only while home has such a file on the workspace's file system.
"""

from __future__ import annotations

import os
import stat
import time
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from . import paths
from .homedirs import home_dirs
from .laternames import Reason

CONFIG_DEPTH = 3
"""Levels of folders whose entries are looked at under home: ``~/.config``, ``~/.config/a``
and ``~/.config/a/b``, so a link as deep as ``~/.config/a/b/c`` is seen."""
MAX_CONFIG_FOLDERS = 1024
"""Folders of home looked at in all (each costs a listing when it changes and a ``stat``
before every edit and command): a browser's profile under ``~/.config`` holds hundreds."""
DEEP_RECHECK = 5.0
"""Seconds for which the deepest folders' mtimes are not looked at again (a ``stat`` each,
hundreds of them, before every edit and command). Home is read-only to commands, so
only the user adds a link there; one made that deep counts at most this much later."""
HOME_BINS = frozenset({"bin"})
"""Entries of home without a dot that are looked at, whether or not on the PATH now."""
MAX_WALK = 500_000
"""Entries of the workspace walked for the other names of a hard-linked home file (the
inode number comes with each listed entry: only a match costs a ``stat``). The file
tools compare inodes, so they need no walk and no cap. Known gap: in a workspace
larger than this, a name the walk did not reach is not kept read-only in the sandbox
(the walk stops early once every name is found, so only a huge tree whose hard link
sits past the cap, or has a third name outside the workspace, is affected)."""

Inode = tuple[int, int]
Hard = dict[Inode, tuple[str, Path]]
"""A hard-linked home file's (device, inode) → its shown name and path."""
Folders = list[tuple[str, str]]
Stamp = tuple[tuple[str, float], ...]


@dataclass(frozen=True, slots=True)
class _Looked:
    """What one look at home found, and the folders looked at with their mtimes then: a
    folder added anywhere changes its parent's mtime, and every parent is among them."""

    shallow: Folders
    shallow_stamp: Stamp
    deep: Folders
    """``~/.config/a/b``: stamped again only :data:`DEEP_RECHECK` seconds after the last time."""
    deep_stamp: Stamp
    deep_at: float
    found: dict[Path, Reason]
    hard: Hard


_cache: dict[tuple[Path, tuple[Path, ...]], _Looked] = {}
_walked: dict[tuple[tuple[Path, ...], tuple[tuple[Inode, int, int], ...]], dict[Path, Reason]] = {}


def why(link: str) -> Reason:
    """The reason shown for a workspace path that the home entry ``link`` leads to."""
    runs = "what it says runs as you, outside the sandbox (your dotfiles)"
    return Reason(f"{link} is a link to it: {runs}", f"{link} leads to (a link): {runs}")


def hard_why(name: str) -> Reason:
    """The reason shown for a workspace file that IS the home file ``name`` (a hard link)."""
    runs = "what it says runs as you, outside the sandbox (your dotfiles)"
    return Reason(f"{name} is the same file (a hard link): {runs}",
                  f"is the same file as {name} (a hard link): {runs}")


def home_links(roots: Sequence[Path]) -> dict[Path, Reason]:
    """Real path inside ``roots`` (file or folder) → why, for each home entry that is a
    symlink leading there (a dangling one counts where it points: created later, it
    runs) or a hard link of a workspace file."""
    found: dict[Path, Reason] = {}
    tops = tuple(roots)
    for home in home_dirs():
        links, hard = _links(home, tops)
        for path, reason in {**links, **_hard_names(tops, hard)}.items():
            found.setdefault(path, reason)
    return found


def link_why(real: Path, roots: Sequence[Path]) -> Reason | None:
    """Why ``real`` (a real path) runs later because a home link leads to it or to a
    folder holding it, or because a home file is another name of it, or None."""
    tops = tuple(roots)
    for home in home_dirs():
        links, hard = _links(home, tops)
        for part in (real, *real.parents):
            reason = links.get(part)
            if reason:
                return reason
        if hard:
            try:
                info = os.stat(real, follow_symlinks=False)
            except OSError:
                continue
            known = hard.get((info.st_dev, info.st_ino))
            if known and stat.S_ISREG(info.st_mode):
                return hard_why(known[0])
    return None


def _folders(home: Path, roots: tuple[Path, ...]) -> list[tuple[str, str]]:
    """The folders of home whose entries are looked at, as (shown prefix, path). A dot
    folder that is the workspace, or in it or holding it (``~/.dotfiles`` worked on),
    is not: its own links are the project's (``zshrc -> zsh/zshrc``). Strings, not
    paths: this runs before every edit and command, over a hundred folders.

    Under ``~/.config`` the folders are looked at :data:`CONFIG_DEPTH` levels down,
    breadth first, at most :data:`MAX_CONFIG_FOLDERS` of them: XDG tools read files
    that deep (``~/.config/fish/conf.d/x.fish``, ``~/.config/systemd/user/x.service``,
    ``~/.config/git/hooks/pre-commit``), and stow links them file by file where the
    folder also holds the tool's own state."""
    base = str(home)
    tops = [str(r) for r in roots]
    out: list[tuple[str, str]] = [("", base), (".local/bin/", os.path.join(base, ".local", "bin"))]
    config = os.path.join(base, ".config")
    level: list[tuple[str, str]] = [(".config/", config)]
    for depth in range(CONFIG_DEPTH - 1):
        for prefix, top in ([("", base)] if depth == 0 else []) + level:
            out += _subfolders(top, prefix, top == base, tops)
            if len(out) >= MAX_CONFIG_FOLDERS:
                break
        level = [f for f in out if f[0].startswith(".config/") and f[0].count("/") == depth + 2]
        if len(out) >= MAX_CONFIG_FOLDERS:
            break
    return [*out[:2], (".config/", config), *out[2:MAX_CONFIG_FOLDERS]]


def _subfolders(top: str, prefix: str, is_home: bool, tops: list[str]) -> list[tuple[str, str]]:
    """The folders right in ``top`` whose entries are looked at (home: its dot folders)."""
    found: list[tuple[str, str]] = []
    try:
        with os.scandir(top) as entries:
            for entry in entries:
                name = entry.name
                if ((is_home and (not name.startswith(".") or name in (".config", ".local")))
                        or not entry.is_dir(follow_symlinks=False)):
                    continue
                if not any(paths.within(entry.path, r) or paths.within(r, entry.path) for r in tops):
                    found.append((f"{prefix}{name}/", entry.path))
    except OSError:
        pass
    return found


def _stamp(folders: Folders) -> Stamp:
    out = []
    for _, folder in folders:
        try:
            out.append((folder, os.stat(folder).st_mtime))
        except OSError:
            out.append((folder, 0.0))
    return tuple(out)


def _on_path(home: Path) -> frozenset[str]:
    """Names of home's own entries that the PATH names (``~/scripts``)."""
    names = set()
    for entry in os.environ.get("PATH", "").split(os.pathsep)[:256]:
        if entry and os.path.dirname(entry.rstrip("/")) == str(home):
            names.add(os.path.basename(entry.rstrip("/")))
    return frozenset(names)


def _still(home: Path, roots: tuple[Path, ...], now: float) -> _Looked | None:
    """The last look, when no folder it looked at changed since (none was added either)."""
    cached = _cache.get((home, roots))
    if cached is None or _stamp(cached.shallow) != cached.shallow_stamp:
        return None
    if now - cached.deep_at < DEEP_RECHECK:
        return cached
    if _stamp(cached.deep) != cached.deep_stamp:
        return None
    _cache[(home, roots)] = replace(cached, deep_at=now)
    return cached


def _links(home: Path, roots: tuple[Path, ...]) -> tuple[dict[Path, Reason], Hard]:
    if not roots:
        return {}, {}
    now = time.monotonic()
    cached = _still(home, roots, now)
    if cached is not None:
        return cached.found, cached.hard
    folders = _folders(home, roots)
    shallow = [f for f in folders if f[0].count("/") < CONFIG_DEPTH]
    deep = [f for f in folders if f[0].count("/") >= CONFIG_DEPTH]
    devices = set()
    for root in roots:
        try:
            devices.add(os.stat(root).st_dev)
        except OSError:
            continue
    bare = HOME_BINS | _on_path(home)
    base = str(home)
    found: dict[Path, Reason] = {}
    hard: Hard = {}
    for prefix, folder in folders:
        try:
            with os.scandir(folder) as entries:
                listed = list(entries)
        except OSError:
            continue
        for entry in listed:
            if folder == base and not entry.name.startswith(".") and entry.name not in bare:
                continue
            shown = "~/" + prefix + entry.name
            try:
                if entry.is_symlink():
                    real = Path(os.path.realpath(entry.path))
                    if real not in roots and any(paths.within(real, r) for r in roots):
                        found.setdefault(real, why(shown))  # the workspace itself is homedirs' rule
                elif entry.is_file(follow_symlinks=False):
                    info = entry.stat(follow_symlinks=False)
                    if info.st_nlink > 1 and info.st_dev in devices:
                        hard.setdefault((info.st_dev, info.st_ino), (shown, Path(entry.path)))
            except OSError:
                continue
    _cache[(home, roots)] = _Looked(shallow, _stamp(shallow), deep, _stamp(deep), now, found, hard)
    return found, hard


def _hard_names(roots: tuple[Path, ...], hard: Hard) -> dict[Path, Reason]:
    """The workspace names of the hard-linked home files ``hard``: one walk, kept while
    each such file keeps its count of names and its ctime (a rename changes it)."""
    if not hard:
        return {}
    marks = []
    for ident, (_, path) in hard.items():
        try:
            info = os.stat(path, follow_symlinks=False)
            marks.append((ident, info.st_nlink, info.st_ctime_ns))
        except OSError:
            marks.append((ident, 0, 0))
    key = (roots, tuple(sorted(marks)))
    cached = _walked.get(key)
    if cached is not None:
        return cached
    inodes = {ino for _, ino in hard}
    left = sum(max(nlink - 1, 0) for _, nlink, _ in marks)  # names not yet found: 0 ends the walk
    found: dict[Path, Reason] = {}
    stack = [str(r) for r in roots]
    seen = 0
    while stack and seen < MAX_WALK and left > 0:
        try:
            with os.scandir(stack.pop()) as entries:
                for entry in entries:
                    seen += 1
                    if entry.is_dir(follow_symlinks=False):
                        stack.append(entry.path)
                    elif entry.inode() in inodes:
                        info = entry.stat(follow_symlinks=False)
                        known = hard.get((info.st_dev, info.st_ino))
                        if known and stat.S_ISREG(info.st_mode):
                            found[Path(entry.path)] = hard_why(known[0])
                            left -= 1
        except OSError:
            continue
    _walked.clear()
    _walked[key] = found
    return found


__all__ = ["home_links", "link_why", "why"]
