"""The workspace's own virtualenvs' ``site-packages`` folders (finding D8).

:mod:`.shadowmodules` keeps a new workspace module from taking the name of an installed
one, but it read the host's ``site-packages`` only. The interpreter the user runs ``-m``
with in a project is that project's: ``.venv/bin/python -m doctool`` in ``docs/`` imported a
planted ``docs/zzlib.py`` in place of the venv-only ``zzlib`` it needed, as the user. So the
names of what the project's virtualenvs installed count too.

Which virtualenvs: a folder holding ``pyvenv.cfg`` right in a root (``.venv``, ``venv``,
``env``) or in its ``.tox``/``.nox`` (``.tox/py312``), and any the workspace walk saw
deeper (``backend/.venv``: its ``pyvenv.cfg`` is a runs-later name, the caller passes their
folders). Bounded: at most :data:`MAX_LISTED` entries listed to find them, and again only
when a root's listing changed (checking every folder two levels down cost 100 ms a search
under load); :data:`MAX_ENVS` virtualenvs read, each ``site-packages`` again only when its
folder changed (:func:`.shadowmodules.shadowed_names` caches by its mtime).
"""

from __future__ import annotations

import functools
import glob
import os
from collections.abc import Iterable, Sequence
from pathlib import Path

MAX_LISTED = 4000
"""Entries of the roots and their folders listed to find the virtualenvs near the top."""
MAX_ENVS = 16
"""Virtualenvs whose ``site-packages`` names count (the nearest first)."""
NOT_ENTERED = frozenset({".git", ".hg", ".svn", "node_modules", "__pycache__"})
"""Folders that are no virtualenv (not checked for a ``pyvenv.cfg``)."""
ENV_FOLDERS = (".tox", ".nox")
"""Folders in a root that hold virtualenvs one level down (tox's and nox's)."""


def near_envs(roots: Sequence[Path]) -> list[str]:
    """The folders holding ``pyvenv.cfg`` right in each root, and in its ``.tox`` and ``.nox``,
    within :data:`MAX_LISTED` listed entries; read again when one of those folders changed
    (a venv made in a folder already there, or deeper, is the walk's to see: ``seen``)."""
    stamp: list[tuple[str, int]] = []
    for root in roots:
        for folder in (str(root), *(os.path.join(root, tool) for tool in ENV_FOLDERS)):
            try:
                stamp.append((folder, os.stat(folder).st_mtime_ns))
            except OSError:
                continue
    return list(_near_envs(tuple(stamp)))


@functools.lru_cache(maxsize=8)
def _near_envs(stamp: tuple[tuple[str, int], ...]) -> tuple[str, ...]:
    found: list[str] = []
    budget = MAX_LISTED
    for folder, _ in stamp:
        if os.path.basename(folder) not in ENV_FOLDERS and _is_env(folder):
            found.append(folder)
        children, budget = _subdirs(folder, budget)
        found += (c for c in children if _is_env(c))
    return tuple(found)


def venv_site_dirs(roots: Sequence[Path], seen: Iterable[Path] = ()) -> list[str]:
    """The ``site-packages`` folders of the workspace's virtualenvs (:func:`near_envs` and the
    ``seen`` ones the walk found deeper), at most :data:`MAX_ENVS` virtualenvs: real folders
    only (not reached through a symlink, as :func:`.venvpackages.packages_run` reads them)."""
    envs = list(dict.fromkeys([*near_envs(roots), *(str(e) for e in seen)]))[:MAX_ENVS]
    out: list[str] = []
    for env in envs:
        pattern = os.path.join(glob.escape(env), "lib", "python*", "site-packages")
        out += (s for s in sorted(glob.glob(pattern)) if os.path.realpath(s) == s and os.path.isdir(s))
    return out


def _is_env(folder: str) -> bool:
    return os.path.isfile(os.path.join(folder, "pyvenv.cfg"))


def _subdirs(folder: str, budget: int) -> tuple[list[str], int]:
    """The folders right in ``folder`` (not through a symlink), and what is left of the budget."""
    out: list[str] = []
    if budget <= 0:
        return out, budget
    try:
        with os.scandir(folder) as entries:
            for entry in entries:
                budget -= 1
                if budget < 0:
                    break
                if entry.name not in NOT_ENTERED and entry.is_dir(follow_symlinks=False):
                    out.append(entry.path)
    except OSError:
        pass
    return out, budget


__all__ = ["MAX_ENVS", "MAX_LISTED", "near_envs", "venv_site_dirs"]
