"""The installed packages an existing virtualenv's programs run: read-only to commands.

A venv's ``bin/`` is guarded (:mod:`.newvenv`, :mod:`.venvpip`), but each console script
there is two lines: ``from pip._internal.cli.main import main``. The module it imports
lay writable in ``site-packages``, so a sandboxed command appended to
``pip/__init__.py`` and the user's next ``pip`` (``pytest``, ``black`` …), outside the
sandbox, ran it (finding Q6). Guarding ``bin/`` protected nothing.

So the packages those programs run are bound read-only, as ``bin/``'s entries are: each
distribution whose ``RECORD`` lists a file of the venv's ``bin/`` (what pip wrote there
for it), and pip and setuptools always (``pip`` itself, and what ``_distutils_hack``
loads at every ``import distutils``), with their ``dist-info`` folders (the ``RECORD``
that vouches for a ``pip`` shim, :mod:`.venvpip`). What a distribution's RECORD lists at
the top of ``site-packages`` is what is bound: ``pip/``, ``_pytest/`` and ``pytest/``,
``py.py``.

Read-only rather than put back after the command: a copy of every file of pip,
setuptools and each console script's package before every command costs far more than
a bind each, and ``pip install`` keeps working: a new package is a new folder, and
replacing one that has a program in ``bin/`` already failed (its program there is
pinned). Upgrading those (``pip install -U pip``) is for the user to run.

And what those distributions require to run, transitively (their ``METADATA``'s
``Requires-Dist``, but an extra's): ``pytest``'s program imports ``pluggy``, ``iniconfig``
and ``packaging`` at every start, and a command that appended to ``pluggy/__init__.py``
ran as the user at their next ``pytest`` (finding S11). The rule is by mechanism: what a
program of ``bin/`` imports by declaration is read-only, and so is a plugin, a
distribution that declares entry points of a group other than ``console_scripts`` (a
``pytest-*`` package's ``pytest11``: pytest imports every one at its start), with what it
requires; a package nothing there names stays writable (``pip install -U`` of a library
keeps working in the sandbox). Not covered: an import no metadata declares.
"""

from __future__ import annotations

import functools
import glob
import os
import re
from pathlib import Path

from .venvpip import record_paths

ALWAYS = frozenset({"pip", "setuptools"})
"""Distributions guarded whether or not they have a program in ``bin/``."""
MAX_GUARDED = 96
"""Paths bound read-only per venv (each costs the sandbox's start about a millisecond):
pip's and setuptools' first, then by distribution name."""
MAX_DISTS = 512
"""``dist-info`` folders of one ``site-packages`` read."""
_DIST_INFO = re.compile(r"(?P<name>[^-]+)-[^-]+\.dist-info")


PACKAGE_WHY = ("is a package a virtualenv's programs import (pip, setuptools, or one with a program in its "
               "bin/): your next pip, pytest or black there runs it as you")


def package_why(path: Path) -> str:
    """Why an edit of ``path`` (a real path) changes what a venv's programs run (see
    :func:`packages_run`), or "": the file tools ask as the sandbox refuses."""
    parts = path.parts
    for at in range(len(parts) - 1, 3, -1):
        if parts[at - 1] != "site-packages" or parts[at - 3] != "lib":
            continue
        env = Path(*parts[: at - 3])
        if (env / "pyvenv.cfg").is_file() and Path(*parts[: at + 1]) in packages_run(env):
            return PACKAGE_WHY
    return ""


def packages_run(env: Path) -> list[Path]:
    """What of ``env``'s ``site-packages`` its programs run (see the module's doc),
    pip's and setuptools' first, at most :data:`MAX_GUARDED`."""
    out: list[Path] = []
    pattern = os.path.join(glob.escape(str(env)), "lib", "python*", "site-packages")
    for site in sorted(glob.glob(pattern)):
        if os.path.realpath(site) != site:
            continue  # through a symlink: not the venv's own
        try:
            info = os.stat(site)
        except OSError:
            continue
        bins = tuple(os.path.realpath(os.path.join(env, name)) for name in ("bin", "Scripts"))
        out += [Path(site, name) for name in _guarded(site, bins, info.st_mtime_ns, info.st_ctime_ns)]
    return out[:MAX_GUARDED]


@functools.lru_cache(maxsize=32)
def _guarded(site: str, bins: tuple[str, ...], _mtime: int, _ctime: int) -> tuple[str, ...]:
    """Names at the top of ``site`` to guard; read again when the folder changes (an
    install adds or removes a ``dist-info`` folder)."""
    try:
        with os.scandir(site) as scan:
            infos = sorted(e.name for e in scan if e.name.endswith(".dist-info") and e.is_dir())[:MAX_DISTS]
    except OSError:
        return ()
    by_name: dict[str, str] = {}
    for info in infos:
        found = _DIST_INFO.fullmatch(info)
        if found:
            by_name.setdefault(_normal(found.group("name")), info)
    first: list[str] = []
    rest: list[str] = []
    pending = [name for name in by_name if name in ALWAYS]
    for name, info in by_name.items():
        rows = record_paths(os.path.join(site, info, "RECORD"))
        program = any(os.path.dirname(os.path.normpath(os.path.join(site, row))) in bins for row in rows)
        if name not in ALWAYS and (program or _plugin(os.path.join(site, info, "entry_points.txt"))):
            pending.append(name)
    seen: set[str] = set()
    while pending:  # the programs' dists, then what each requires (finding S11: pytest -> pluggy)
        name = pending.pop(0)
        if name in seen or name not in by_name:
            continue
        seen.add(name)
        info = by_name[name]
        rows = record_paths(os.path.join(site, info, "RECORD"))
        tops = {info, *(row.split("/", 1)[0] for row in rows if row and not row.startswith(("..", "/")))}
        (first if name in ALWAYS else rest).extend(sorted(t for t in tops if t and t != "__pycache__"))
        pending += _requires(os.path.join(site, info, "METADATA"))
    return tuple(dict.fromkeys([*first, *rest]))


_GROUP = re.compile(r"^[ \t]*\[([^\]\n]+)\]", re.M)
SCRIPT_GROUPS = frozenset({"console_scripts", "gui_scripts"})


def _plugin(entry_points: str) -> bool:
    """Whether a distribution's ``entry_points.txt`` declares a plugin (a group other than
    its programs': ``pytest11``, ``flake8.extension``): a program of ``bin/`` finds it
    by its group and imports it at every start (``pytest-cov`` at each ``pytest``)."""
    try:
        with open(entry_points, encoding="utf-8", errors="replace") as f:
            text = f.read(MAX_METADATA)
    except OSError:
        return False
    return any(group.strip() not in SCRIPT_GROUPS for group in _GROUP.findall(text))


_REQUIRES = re.compile(r"^Requires-Dist:[ \t]*([A-Za-z0-9][A-Za-z0-9._-]*)([^\n]*)$", re.M)
_EXTRA = re.compile(r";.*\bextra[ \t]*==")
MAX_METADATA = 256 * 1024


def _requires(metadata: str) -> list[str]:
    """The distributions a ``METADATA`` file requires to run (its ``Requires-Dist`` lines
    but those of an extra: ``pytest`` needs ``pluggy``, not ``hypothesis``), by name. A
    line whose marker does not hold here (``; python_version < "3.11"``) is counted: the
    guard errs on the side of a read-only folder."""
    try:
        with open(metadata, encoding="utf-8", errors="replace") as f:
            head = f.read(MAX_METADATA).split("\n\n", 1)[0]  # the headers, not the description
    except OSError:
        return []
    return [_normal(m.group(1)) for m in _REQUIRES.finditer(head) if not _EXTRA.search(m.group(2))]


def _normal(name: str) -> str:
    """A distribution's name as pip compares them (PEP 503)."""
    return re.sub(r"[-_.]+", "-", name).lower()


__all__ = ["PACKAGE_WHY", "package_why", "packages_run"]
