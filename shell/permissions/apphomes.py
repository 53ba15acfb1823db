"""Home's credential stores again where sandboxed apps and editors' twins keep them.

:data:`.homesecrets.SECRET_PATHS` names the stores relative to home. Two kinds of
folders hold the same stores under another root, and were readable (tester round 11, Q3
and Q24):

- snap's and flatpak's per-app homes. Ubuntu ships Firefox only as a snap: its profile
  (saved logins, cookies) is ``~/snap/firefox/common/.mozilla``; a snap's ``$HOME`` is
  ``~/snap/<app>/<revision>`` (Slack's, Discord's, VS Code's ``.config`` there), and a
  flatpak's is ``~/.var/app/<id>`` with ``config``, ``data`` and ``cache`` for
  ``~/.config``, ``~/.local/share`` and ``~/.cache``. So every store of the list is
  hidden relative to each of them too (and, in a snap, with ``.config/`` left out:
  Chromium's snap keeps its profile at ``common/chromium``).
- editors built on VS Code (Insiders, Windsurf, code-server, Trae, Positron…) and their
  remote servers (``~/.<name>-server*/data``) keep every saved version of every file
  (``.env`` included) in ``User/History`` and their secret storage in
  ``User/globalStorage``; JetBrains IDEs keep theirs in ``~/.cache/JetBrains/*/LocalHistory``.
  Matched by that shape, not by a list of editors that would miss the next one.

- a Chromium-family browser's or an Electron app's profile (Edge, Vivaldi, Opera, Chrome
  beta, Yandex, Slack, Discord, Mattermost… and the next one): any folder right in
  ``~/.config`` (or an app home's) holding one of :data:`PROFILE_MARKS` (``Local State``,
  ``Cookies``, ``Login Data``): their saved logins and session cookies, found by what the
  folder holds rather than by a list of browsers (tester round 13, S9).
- an editor's user MCP config (``User/mcp.json``: Bearer tokens in its headers) and its
  ``User/settings.json`` when it sets a secret-named key or a URL with a password
  (a proxy's, SQLTools' connections; :mod:`.configsniff`; finding S16).

Only folders that exist are listed (one ``listdir`` per root), so a home without snaps
costs a few ``stat`` calls per command.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Sequence
from pathlib import Path

from .configsniff import holds_credentials

EDITOR_PARTS = ("User/History", "User/globalStorage", "User/workspaceStorage", "User/mcp.json")
"""What a VS Code-like editor keeps under its data folder: local history, secret storage,
its user MCP servers (their headers' tokens)."""
EDITOR_SETTINGS = "User/settings.json"
"""Hidden only when it holds a credential (most hold none, and tools read them)."""
PROFILE_MARKS = ("Local State", "Cookies", "Login Data", "Network/Cookies")
"""What a Chromium-based browser's or an Electron app's data folder holds (its cookie
and login databases); a folder holding one is a profile, whatever the app's name."""
EDITOR_ROOTS = (".config", ".local/share")
"""Where such editors keep their data folders (``~/.config/Code - Insiders``,
``~/.local/share/code-server``)."""
_FLATPAK_DIRS = ((".config/", "config/"), (".local/share/", "data/"), (".cache/", "cache/"))


def _listed(folder: Path) -> list[str]:
    try:
        return sorted(os.listdir(folder))
    except OSError:
        return []


def _dirs(folder: Path) -> list[Path]:
    """The real folders (not links) right in ``folder``."""
    out = []
    for name in _listed(folder):
        path = folder / name
        if path.is_dir() and not path.is_symlink():
            out.append(path)
    return out


def app_homes(home: Path) -> tuple[list[Path], list[Path]]:
    """The snap app homes (``~/snap/<app>/<revision or common>``) and the flatpak ones
    (``~/.var/app/<id>``) under ``home``."""
    snaps = [entry for app in _dirs(home / "snap") for entry in _dirs(app)]
    return snaps, _dirs(home / ".var" / "app")


def _present(base: Path, rels: Iterable[str]) -> list[Path]:
    """``base / rel`` for the ``rels`` whose first folder is in ``base`` (one listing)."""
    there = set(_listed(base))
    return [base / rel for rel in rels if rel.split("/", 1)[0] in there]


def _flatpak_rel(rel: str) -> str:
    for dotted, plain in _FLATPAK_DIRS:
        if rel.startswith(dotted):
            return plain + rel[len(dotted):]
    return rel


def mirrored_paths(home: Path, rels: Sequence[str]) -> list[Path]:
    """The stores ``rels`` (relative to home) in each snap's and flatpak's app home, and the
    editors' histories there too."""
    snaps, flatpaks = app_homes(home)
    out: list[Path] = []
    for base in snaps:
        out += _present(base, rels)
        out += _present(base, [r[len(".config/"):] for r in rels if r.startswith(".config/")])
        out += editor_histories(base)
        out += profiles([base])  # its .config: by editor_histories
    for base in flatpaks:
        out += _present(base, {_flatpak_rel(r) for r in rels} | set(rels))
        out += _editor_parts([base / "config", base / "data"])
        out += profiles([base / "config", base / "data"])
    return out


_profile_verdicts: dict[str, tuple[int, int, bool]] = {}


def profiles(roots: Iterable[Path]) -> list[Path]:
    """The folders right in each of ``roots`` holding one of :data:`PROFILE_MARKS`: a
    browser's or an Electron app's profile. One ``lstat`` per folder: each verdict is kept
    until the folder's ctime changes (a mark created in it changes it)."""
    out = []
    for root in roots:
        try:
            with os.scandir(root) as listed:
                entries = list(listed)
        except OSError:
            continue
        for entry in entries:
            try:
                if not entry.is_dir(follow_symlinks=False):
                    continue
                info = entry.stat(follow_symlinks=False)
            except OSError:
                continue
            known = _profile_verdicts.get(entry.path)
            if known is None or known[:2] != (info.st_ino, info.st_ctime_ns):
                marked = any(os.path.lexists(os.path.join(entry.path, mark)) for mark in PROFILE_MARKS)
                if len(_profile_verdicts) > 8192:
                    _profile_verdicts.clear()
                known = _profile_verdicts[entry.path] = (info.st_ino, info.st_ctime_ns, marked)
            if known[2]:
                out.append(Path(entry.path))
    return out


def _editor_parts(roots: Iterable[Path]) -> list[Path]:
    out = []
    for root in roots:
        for editor in _dirs(root):
            if (editor / "User").is_dir():
                out += [editor / part for part in EDITOR_PARTS]
                if holds_credentials(str(editor / EDITOR_SETTINGS)):
                    out.append(editor / EDITOR_SETTINGS)
    return out


def editor_histories(home: Path) -> list[Path]:
    """Every VS Code-like editor's local history and secret storage under ``home``
    (``~/.config/*/User/History``, ``~/.local/share/*/User/…``), each remote server's
    ``~/.<name>-server*/data/User`` whole, JetBrains' ``~/.cache/JetBrains/*/LocalHistory``,
    and the browsers' and Electron apps' profiles in ``~/.config`` (:func:`profiles`)."""
    out = _editor_parts(home / rel for rel in EDITOR_ROOTS)
    for name in _listed(home):
        if name.startswith(".") and "-server" in name:
            out.append(home / name / "data" / "User")
    out += [ide / "LocalHistory" for ide in _dirs(home / ".cache" / "JetBrains")]
    return out + profiles([home / ".config"])


__all__ = ["EDITOR_PARTS", "PROFILE_MARKS", "app_homes", "editor_histories", "mirrored_paths", "profiles"]
