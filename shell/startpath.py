"""Which ``PYTHONPATH`` entries a Python started by or as agent-shell may import from.

An empty ``PYTHONPATH`` entry (``export PYTHONPATH=$PYTHONPATH:/opt/lib`` with it unset
gives ``:/opt/lib``) or a relative one (``src``) names the folder Python starts in, and
``PYTHONPATH`` comes before the standard library and every installed package: an
``anyio.py`` or ``tomllib.py`` a command (or a cloned repository) left in the workspace ran
as the user at their next ``agent-shell`` there, before any question (finding A10). So
agent-shell's own start drops such entries, and those inside the folder it started in
(unless that folder holds home: ``~/lib/python`` is then the user's own), from
``sys.path`` before it imports anything (:func:`drop_unsafe_entries`, run by
``shell/__init__.py``), and the programs it runs on the host get ``PYTHONPATH`` without
them (:func:`shell.core.programs.host_environment`, through :func:`trusted_entry`).

Only ``os`` and ``sys`` are used here: they are loaded before any ``PYTHONPATH`` entry
is read, so this module's own imports cannot be shadowed. What is beyond its reach: a
planted module named like one the console script imports before this runs (``shell``
itself; pip's script imports only ``sys``), and what ``sitecustomize.py`` does (the
sandbox guards that name: :mod:`shell.permissions.loaderdirs`).
"""

import os
import sys

VAR = "PYTHONPATH"
dropped: list[str] = []
"""The ``PYTHONPATH`` entries this process's start took out of ``sys.path``, as written
(nothing is printed at start: a line on stderr at every headless run would be noise)."""


def unsafe_roots(here: str, home: str, writable: tuple[str, ...] = ()) -> list[str]:
    """The real paths of the folders a repository or a sandboxed command may fill: ``here``
    (where agent-shell started) unless it holds ``home``, and ``writable``."""
    out: list[str] = []
    real_home = os.path.realpath(home)
    for place in (here, *writable):
        root = os.path.realpath(place)
        if not (real_home == root or real_home.startswith(root.rstrip(os.sep) + os.sep)):
            out.append(root)
    return out


def trusted_entry(entry: str, roots: list[str]) -> bool:
    """Whether the search-path entry ``entry`` may be searched: absolute, and not inside
    one of ``roots`` (real paths, :func:`unsafe_roots`)."""
    if not entry or not os.path.isabs(entry):
        return False
    real = os.path.realpath(entry)
    return not any(real == root or real.startswith(root.rstrip(os.sep) + os.sep) for root in roots)


def drop_unsafe_entries() -> list[str]:
    """Take the ``PYTHONPATH`` entries that are not :func:`trusted_entry` out of
    ``sys.path`` (where Python put them: before the standard library), and return them.
    Python makes an empty or relative entry absolute from the start folder; an entry of
    the same path that a ``.pth`` file adds later (after the standard library) stays."""
    value = os.environ.get(VAR)
    if not value or sys.flags.ignore_environment:
        return []
    try:
        here = os.getcwd()
    except OSError:
        return []
    roots = unsafe_roots(here, os.path.expanduser("~"))
    bad = {os.path.normpath(os.path.join(here, e)): e for e in value.split(os.pathsep)
           if not trusted_entry(e, roots)}
    if not bad:
        return []
    stdlib = os.path.dirname(os.__file__)
    end = next((i for i, p in enumerate(sys.path) if p == stdlib or p.endswith(".zip")), len(sys.path))
    start = 0 if getattr(sys.flags, "safe_path", False) else 1  # [0] is the script's folder
    out: list[str] = []
    for index in range(min(end, len(sys.path)) - 1, start - 1, -1):
        entry = sys.path[index]
        shown = bad.get(os.path.normpath(os.path.join(here, entry))) if entry else None
        if shown is not None:
            del sys.path[index]
            out.append(shown)
    dropped[:] = out[::-1]
    return dropped


__all__ = ["VAR", "drop_unsafe_entries", "dropped", "trusted_entry", "unsafe_roots"]
