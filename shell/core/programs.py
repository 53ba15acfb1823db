"""Finding the programs agent-shell itself runs outside the sandbox: bubblewrap, git,
bash, tmux, espeak-ng, clipboard and notification tools, audio players, the editor.

They run as the user, so the search must not find one a repository put there. A
relative PATH entry (``./bin`` for Rails binstubs, ``node_modules/.bin``) or an empty
one (``PATH=:$PATH`` means "the current folder") names the workspace when
agent-shell starts in it, and ``shutil.which`` (and ``exec``) honour both: a cloned
repository's ``bin/bwrap`` ran at every start, before any trust question, and could
then drop the sandbox from every command (finding K18). Only absolute entries are
searched, and none inside the folder agent-shell was started in (unless that folder
is the home folder or holds it: ``~/.local/bin`` is then the user's own, not a
repository's), nor inside a folder a sandboxed command may write (the workspace, an
``--add-dir``, a ``[sandbox] writable`` folder: :func:`writable_by_commands`). A
dotfiles repository added with ``--add-dir`` whose ``bin`` is on the PATH let one
command plant ``bin/bwrap`` and the next run through it, as the user (finding L2);
the editor starts ``agent-shell acp`` in a folder of its own, so the start folder
alone does not name the workspace. This is the one place that search is made; the
loader's library search is cut the same way (:func:`host_environment`).
"""

from __future__ import annotations

import functools
import logging
import os
import re
import shutil
import threading
from collections.abc import Mapping
from pathlib import Path

from shell.startpath import VAR as PYTHON_VAR
from shell.startpath import trusted_entry

log = logging.getLogger(__name__)

_said: set[str] = set()
_writable: set[str] = set()
_lock = threading.Lock()


def writable_by_commands(*folders: str | os.PathLike[str]) -> None:
    """Folders sandboxed commands may write, for the rest of the process: a PATH entry
    inside one is not searched from now on. Called by the sandbox for its workspace and
    each folder added to it; never shrinks (an ACP process serves several workspaces)."""
    real = {os.path.realpath(f) for f in folders}
    with _lock:
        if real <= _writable:
            return
        _writable.update(real)
    _search_path.cache_clear()


def search_path(path: str | None = None, here: str | None = None) -> str:
    """``path`` (default ``$PATH``) without its relative and empty entries and
    without those inside ``here`` (default: the current folder). Cached per PATH,
    folder and home: resolving each entry cost ~0.9 ms a lookup, paid per command."""
    here, writable = _places(here)
    return _search_path(os.environ.get("PATH", os.defpath) if path is None else path, here,
                        os.path.expanduser("~"), writable)


def _places(here: str | None) -> tuple[str, tuple[str, ...]]:
    """The start folder (default: the current one) and the folders sandboxed commands
    may write, as the PATH search and the loader's both judge them."""
    try:
        here = here or os.getcwd()
    except OSError:
        here = "/"
    with _lock:
        return here, tuple(sorted(_writable))


@functools.lru_cache(maxsize=16)
def _search_path(path: str, here: str, home: str, writable: tuple[str, ...] = ()) -> str:
    entries = path.split(os.pathsep)
    roots = _unsafe_roots(here, home, writable)
    kept: list[str] = []
    for entry in entries:
        if not entry or not os.path.isabs(entry):
            _say_once(entry, "it is relative, so it would name the workspace")
            continue
        hit = next(((root, why) for root, why in roots if _inside(entry, root)), None)
        if hit is not None:
            _say_once(entry, f"it is inside {hit[0]}, {hit[1]}")
            continue
        kept.append(entry)
    return os.pathsep.join(kept)


def _unsafe_roots(here: str, home: str, writable: tuple[str, ...]) -> list[tuple[Path, str]]:
    """The folders a repository or a sandboxed command may fill: where agent-shell was
    started (unless it holds home) and those :func:`writable_by_commands` named."""
    places = [(here, "where agent-shell was started"),
              *((w, "where sandboxed commands may write") for w in writable)]
    roots: list[tuple[Path, str]] = []
    for place, why in places:
        try:
            root = Path(place).resolve()
            if not Path(home).resolve().is_relative_to(root):  # home, or above it: its bin folders
                roots.append((root, why))                      # are the user's own
        except (OSError, RuntimeError):
            continue
    return roots


LOADER_VARS = ("LD_LIBRARY_PATH", "LD_PRELOAD", "LD_AUDIT")
"""What the dynamic loader loads libraries from, for every program: a folder or file the
workspace holds there runs a sandboxed command's library as the user (finding W6)."""
FILE_VARS = ("LD_PRELOAD", "LD_AUDIT")
"""Of :data:`LOADER_VARS`, those naming files (a bare name is searched as any library)."""


def host_environment(environ: Mapping[str, str] | None = None, here: str | None = None) -> dict[str, str]:
    """``environ`` (default ours) for a program agent-shell itself runs on the host: the
    loader's :data:`LOADER_VARS` and ``PYTHONPATH`` without the entries the PATH search
    skips (relative or empty ones, which name the folder it runs in, and those inside the
    start folder ``here`` or a folder sandboxed commands may write: a ``tomllib.py`` planted
    there ran in every Python the editor or a hook started, finding A10); a bare library
    name of ``LD_PRELOAD`` is searched as any library and stays. A variable left empty is
    dropped."""
    env = dict(os.environ if environ is None else environ)
    if not any(var in env for var in (*LOADER_VARS, PYTHON_VAR)):
        return env
    here, writable = _places(here)
    roots = [str(root) for root, _ in _unsafe_roots(here, os.path.expanduser("~"), writable)]
    for var in (*LOADER_VARS, PYTHON_VAR):
        value = env.pop(var, None)
        if value is None:
            continue
        split = (value.split(os.pathsep) if var == PYTHON_VAR else re.split(r"[:;]", value)
                 if var == "LD_LIBRARY_PATH" else re.split(r"[:\s]+", value))
        named = var in FILE_VARS
        kept = [e for e in split if trusted_entry(e, roots) or (named and e and "/" not in e)]
        if kept:
            env[var] = ":".join(kept)
    return env


def which(name: str, path: str | None = None) -> str | None:
    """The absolute path of program ``name`` on the safe search path (made from
    ``path``, default ``$PATH``), or None. A name with a slash in it is the user's own
    choice of file and is taken as is."""
    if os.sep in name:
        return name if os.access(name, os.X_OK) else None
    return shutil.which(name, path=search_path(path))


def resolve(argv: list[str], path: str | None = None) -> list[str]:
    """``argv`` with its program found on the safe search path. Not found there:
    :class:`FileNotFoundError`, as ``exec`` raises, since handing the bare name to
    ``exec`` would search the whole PATH again, relative entries included."""
    if not argv or os.sep in argv[0]:
        return argv
    found = which(argv[0], path)
    if found is None:
        raise FileNotFoundError(not_found(argv[0], path))
    return [found, *argv[1:]]


def not_found(name: str, path: str | None = None) -> str:
    """Why ``name`` was not found, and what to do when it exists only where this search
    does not look: an MCP server pip-installed into the project's own activated
    ``.venv/bin`` is there, and only its absolute path names it."""
    full = path if path is not None else os.environ.get("PATH", os.defpath)
    skipped = shutil.which(name, path=full)
    if skipped is None:
        return f"{name} is not on PATH"
    where = os.path.abspath(skipped)
    return (f"{name} was found only at {where}, in a PATH entry that is relative or inside the folder "
            "agent-shell was started in; programs agent-shell runs itself are searched only in "
            f"absolute PATH entries outside that folder (a repository must not plant them). Name it "
            f"by its absolute path instead: {where}")


def _inside(entry: str, root: Path) -> bool:
    try:
        return Path(entry).resolve().is_relative_to(root)
    except OSError:
        return False


def _say_once(entry: str, why: str) -> None:
    if entry in _said:
        return
    _said.add(entry)
    shown = entry or "(empty: the current folder)"
    # info, not a warning: an activated venv inside the project is common, and a line on
    # stderr at every headless start would be noise (the log file has it)
    log.info("PATH entry %r is not searched for the programs agent-shell runs itself: %s", shown, why)
