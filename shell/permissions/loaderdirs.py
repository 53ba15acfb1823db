"""What a sandboxed command may not plant where the dynamic loader looks.

A user whose ``LD_LIBRARY_PATH`` names a folder of the workspace, an absolute one
(``$PWD/build/lib`` from a C project's ``.envrc``) or one of wherever they type (an
empty entry, the usual result of ``export LD_LIBRARY_PATH=$LD_LIBRARY_PATH:/opt/x``
with it unset, or ``.``, or ``lib``), has every program they start load a
``libc.so.6`` or ``libz.so.1`` found there before the system's: a library a
sandboxed command wrote there runs as the user, outside any sandbox, at their next
``git`` or ``python`` (finding W6). It is the PATH's case (:mod:`.pathdirs`) for
libraries, and guarded the same way by :mod:`.runslater`:

- in such a folder, and in the subfolders the loader tries first
  (``glibc-hwcaps/x86-64-v3``, ``tls``, ``x86_64``…), an entry named as a library of
  the system (:func:`system_libraries`: the loader's cache, its default folders, what
  this process has loaded) is bound read-only, and one a command creates is moved to
  the quarantine once it ended, the result saying so;
- any other name (``libmyproject.so``, what the project's build makes) is kept:
  only the project's own programs load it, and the command could change their sources.

``LD_PRELOAD`` and ``LD_AUDIT`` entries that are paths inside the workspace are
guarded as files (every program loads them), and a ``GCONV_PATH`` folder there whole
(``iconv`` loads the modules its ``gconv-modules`` names). Python's own twin: a
``sitecustomize.py`` or ``usercustomize.py`` in a ``PYTHONPATH`` folder of the workspace
(an empty entry, ``export PYTHONPATH=$PYTHONPATH:src`` with it unset, is the current
folder) runs at every Python start; a venv's ``*.pth`` and ``sitecustomize`` are
:mod:`.laternames`'s. Any other module a command creates right in such a folder
(``anyio.py``, ``tomllib.py``, a package folder, a ``.pth``) is imported by every Python
the user starts there before the real one (finding A10): it is moved out once the command
ended and named (:func:`python_modules`); those there before stay writable (the project's
own). Deeper folders are not looked at, though an empty entry names any folder the user
starts Python in; agent-shell's own start drops such entries (:mod:`shell.startpath`).

agent-shell's own programs on the host do not look in the workspace at all: bubblewrap
starts with no environment (:mod:`.sandboxlaunch`), and its git, and the launcher in an
editor's terminal (:func:`launcher_overrides`), drop the entries that name a folder by
where they run or inside the workspace (:func:`shell.core.programs.host_environment`).

A relative entry (empty, ``.``, ``lib``) names a folder by where a program runs, which
may be any folder of the workspace: the walk of the workspace names such a library at
any depth (:func:`relative_loader_why`, asked by :func:`.laternames.why`), so it is
guarded there as well. Not reached: an entry with a ``$ORIGIN``/``$LIB`` token (where it
leads depends on the program), and what the walk skips (``node_modules``, caches).
"""

from __future__ import annotations

import functools
import itertools
import os
import re
import threading
from collections.abc import Mapping, Sequence
from pathlib import Path

from shell.core.programs import LOADER_VARS, host_environment

from . import paths

LOADER_VAR = "LD_LIBRARY_PATH"
FILE_VARS = ("LD_PRELOAD", "LD_AUDIT")
"""Libraries every program loads, by path (or by name, searched as any other)."""
FOLDER_VAR = "GCONV_PATH"

LOADER_WHY = ("is in a folder on your LD_LIBRARY_PATH ({entry}) and named like a library of the system: "
              "the programs you start load it instead of theirs, as you")
FILE_WHY = "is named by your {var}: every program you start loads it, as you"
GCONV_WHY = "is in a folder on your GCONV_PATH ({entry}): a program converting text loads the modules there"

PYTHON_VAR = "PYTHONPATH"
PYTHON_STARTUP = ("sitecustomize.py", "usercustomize.py")
PYTHON_WHY = ("is in a folder on your PYTHONPATH ({entry}): every Python you start imports it first, as you "
              "(pip, agent-shell, any script)")

SYSTEM_DIRS = ("/lib", "/lib64", "/usr/lib", "/usr/lib64", "/usr/local/lib", "/lib32", "/usr/lib32")
"""The loader's default folders (and their multiarch subfolders, :func:`_system_dirs`)."""
LD_CACHE = "/etc/ld.so.cache"
HWCAPS = "glibc-hwcaps"
LEGACY_SUBDIRS = frozenset({
    "tls", "x86_64", "haswell", "xeon_phi", "avx512_1", "i386", "i486", "i586", "i686", "aarch64", "ppc64le",
    "power8", "power9", "power10", "s390x", "z13", "z14", "z15",
})
"""Subfolders of a search folder that older loaders try first (``tls/x86_64/``…)."""
MAX_ENTRIES = 4096
"""Entries of one loader folder looked at; past that each system library's name is looked up."""
MAX_ENTRIES_IN_VAR = 256

_LIBRARY = re.compile(rb"[A-Za-z0-9_.+-]+\.so(?:\.[A-Za-z0-9_.+-]*)?")
_lock = threading.Lock()
_names: dict[tuple[object, ...], frozenset[str]] = {}


def _entries(value: str) -> list[str]:
    """The folders of a loader variable, as glibc splits it (``:`` and ``;``)."""
    return re.split(r"[:;]", value)[:MAX_ENTRIES_IN_VAR]


def loader_dirs(roots: Sequence[Path], environ: Mapping[str, str] | None = None) -> list[tuple[Path, str]]:
    """The folders of ``LD_LIBRARY_PATH`` (real paths) that lie in ``roots``, each with
    why it is guarded: a relative entry (empty, ``.``, ``lib``) names a folder of each
    root, where the user may start a program next."""
    env = os.environ if environ is None else environ
    value = env.get(LOADER_VAR)
    if value is None:
        return []
    out: dict[Path, str] = {}
    for entry in _entries(value):
        if "$" in entry:
            continue
        places = [Path(entry)] if os.path.isabs(entry) else [root / entry for root in roots]
        for place in places:
            folder = Path(os.path.realpath(place))
            if any(paths.within(folder, root) for root in roots) and not os.path.isfile(folder):
                shown = entry or "an empty entry, the current folder"
                out.setdefault(folder, LOADER_WHY.format(entry=shown))
    return list(out.items())


def preloaded(roots: Sequence[Path], environ: Mapping[str, str] | None = None) -> dict[Path, str]:
    """``LD_PRELOAD``/``LD_AUDIT`` files and ``GCONV_PATH`` folders inside ``roots``
    (missing ones too: a command may create them), with why."""
    env = os.environ if environ is None else environ
    out: dict[Path, str] = {}
    for var in FILE_VARS:
        for entry in re.split(r"[:\s]+", env.get(var, ""))[:MAX_ENTRIES_IN_VAR]:
            if "/" not in entry or "$" in entry:
                continue  # a bare name is searched for as any library: the loader folders cover it
            for place in [Path(entry)] if os.path.isabs(entry) else [root / entry for root in roots]:
                real = Path(os.path.realpath(place))
                if any(paths.within(real, root) for root in roots):
                    out.setdefault(real, FILE_WHY.format(var=var))
    for entry in _entries(env.get(FOLDER_VAR, "")):
        if entry and os.path.isabs(entry):
            real = Path(os.path.realpath(entry))
            if any(paths.within(real, root) for root in roots) and real not in roots:
                out.setdefault(real, GCONV_WHY.format(entry=entry))
    for folder, entry in python_dirs(roots, env):
        why = PYTHON_WHY.format(entry=entry)
        out.update((folder / name, why) for name in PYTHON_STARTUP if folder / name not in out)
    return out


def python_dirs(roots: Sequence[Path], environ: Mapping[str, str] | None = None) -> list[tuple[Path, str]]:
    """The folders of ``PYTHONPATH`` (real paths) that lie in ``roots``, each with its entry
    as shown to the user: an empty or relative entry names a folder of each root. Unset or
    empty, it has none (Python reads no entry from ``PYTHONPATH=``)."""
    env = os.environ if environ is None else environ
    out: dict[Path, str] = {}
    value = env.get(PYTHON_VAR, "")
    for entry in value.split(os.pathsep)[:MAX_ENTRIES_IN_VAR] if value else ():
        for place in [Path(entry)] if os.path.isabs(entry) else [root / entry for root in roots]:
            folder = Path(os.path.realpath(place))
            if any(paths.within(folder, root) for root in roots):
                out.setdefault(folder, entry or "an empty entry, the current folder")
    return list(out.items())


MODULE_WHY = ("is in a folder on your PYTHONPATH ({entry}) and importable by its name: every Python you "
              "start there imports it instead of the standard or installed module of that name, as you "
              "(agent-shell, pip, pytest)")
_MODULE_SUFFIXES = (".py", ".pyc", ".pth", ".so", ".pyw")


def python_modules(roots: Sequence[Path], environ: Mapping[str, str] | None = None) -> dict[Path, str]:
    """What Python imports by name right in each :func:`python_dirs` folder: a module
    (``anyio.py``, ``tomllib.cpython-311-x86_64-linux-gnu.so``), a ``.pth`` file, or a
    package folder (one holding ``__init__``; a folder without it is a namespace package,
    which every regular module of its name comes before), with why. Bounded: the first
    :data:`MAX_ENTRIES` entries of a folder (finding A10)."""
    out: dict[Path, str] = {}
    for folder, entry in python_dirs(roots, environ):
        why = MODULE_WHY.format(entry=entry)
        try:
            with os.scandir(folder) as entries:
                for found in itertools.islice(entries, MAX_ENTRIES):
                    if _importable(found):
                        out.setdefault(Path(found.path), why)
        except OSError:
            continue
    return out


def _importable(entry: os.DirEntry[str]) -> bool:
    name = entry.name
    try:
        if entry.is_dir(follow_symlinks=True):
            return name.isidentifier() and any(os.path.lexists(os.path.join(entry.path, f"__init__{suffix}"))
                                               for suffix in (".py", ".pyc"))
    except OSError:
        return False
    stem, dot, suffix = name.partition(".")
    return bool(dot) and stem.isidentifier() and name.endswith(_MODULE_SUFFIXES) and (
        "." + suffix in _MODULE_SUFFIXES or suffix.endswith(".so"))


RELATIVE_WHY = ("is named like a library of the system, and your LD_LIBRARY_PATH has an entry ({entry}) "
                "that names a folder by where a program runs: one you start here loads it instead of the "
                "system's, as you")


def relative_loader_why(path: str) -> str:
    """Why the file ``path``, at any depth, is loaded by the programs the user starts: an
    empty, ``.`` or relative ``LD_LIBRARY_PATH`` entry names the folder they are in, which
    may be any folder of the workspace, not only a root (:func:`loader_dirs`). "" when
    not (the walk asks this of every name it lists: a name without ``.so`` costs nothing)."""
    name = os.path.basename(path)
    if ".so" not in name:
        return ""
    entries = _relative_entries(os.environ.get(LOADER_VAR, ""))
    if not entries or name not in system_libraries():
        return ""
    folder = os.path.dirname(path)
    parts = folder.split("/")
    while len(parts) > 1 and (parts[-1] in LEGACY_SUBDIRS or parts[-2] == HWCAPS):
        parts = parts[:-2] if parts[-2] == HWCAPS else parts[:-1]  # the subfolders tried first
    folder = "/".join(parts)
    for entry in entries:
        if not entry or folder.endswith("/" + entry):
            return RELATIVE_WHY.format(entry=entry or "an empty one, or .")
    return ""


@functools.lru_cache(maxsize=8)
def _relative_entries(value: str) -> tuple[str, ...]:
    """The relative entries of ``LD_LIBRARY_PATH`` (``""`` for an empty one or ``.``)."""
    out = [os.path.normpath(e).strip("/") if e not in ("", ".") else "" for e in _entries(value)
           if not os.path.isabs(e) and "$" not in e]
    return tuple(dict.fromkeys("" if e == "." else e for e in out))


def search_folders(folder: Path) -> list[Path]:
    """``folder`` and the subfolders of it the loader tries before it (bounded)."""
    out = [folder]
    hwcaps = folder / HWCAPS
    stack = [(folder, 0)]
    while stack and len(out) < 64:
        here, level = stack.pop()
        try:
            with os.scandir(here) as entries:
                subdirs = [e.name for e in entries if e.is_dir(follow_symlinks=False)]
        except OSError:
            continue
        for name in sorted(subdirs):
            if name in LEGACY_SUBDIRS and level < 3:
                out.append(here / name)
                stack.append((here / name, level + 1))
    try:
        with os.scandir(hwcaps) as entries:
            out += sorted(Path(e.path) for e in entries if e.is_dir(follow_symlinks=False))[:32]
    except OSError:
        pass
    return out


def shadowing(folder: Path, roots: Sequence[Path]) -> list[Path]:
    """The entries of the loader folder ``folder`` and of its :func:`search_folders`
    named as a library of the system (see the module's docstring)."""
    names = system_libraries(roots)
    out: list[Path] = []
    for place in search_folders(folder):
        try:
            with os.scandir(place) as entries:
                for count, entry in enumerate(entries):
                    if count >= MAX_ENTRIES:  # past the cap: each system library's name, looked up
                        out += [p for p in (place / n for n in sorted(names)) if os.path.lexists(p)]
                        break
                    if entry.name in names and not entry.is_dir(follow_symlinks=False):
                        out.append(Path(entry.path))
        except OSError:
            continue
    return list(dict.fromkeys(out))


def system_libraries(roots: Sequence[Path] = ()) -> frozenset[str]:
    """The names of the libraries the loader finds outside ``roots``: in its cache
    (``/etc/ld.so.cache``), its default folders and the absolute ``LD_LIBRARY_PATH``
    entries outside the roots, and what this process has loaded. Cached while the
    cache file and the variable stay as they are."""
    value = os.environ.get(LOADER_VAR, "")
    try:
        info = os.stat(LD_CACHE)
        stamp: tuple[object, ...] = (info.st_mtime_ns, info.st_size)
    except OSError:
        stamp = ()
    key = (*stamp, value, tuple(roots))
    with _lock:
        found = _names.get(key)
    if found is not None:
        return found
    names: set[str] = set()
    try:
        with open(LD_CACHE, "rb") as fh:
            names.update(_base_names(_LIBRARY.findall(fh.read(1 << 24))))
    except OSError:
        pass
    folders = [*_system_dirs(), *(e for e in _entries(value) if os.path.isabs(e))]
    for folder in folders:
        real = Path(os.path.realpath(folder))
        if any(paths.within(real, root) for root in roots):
            continue
        try:
            names.update(n for n in os.listdir(real) if ".so" in n)
        except OSError:
            continue
    names.update(_loaded())
    found = frozenset(n for n in names if _LIBRARY.fullmatch(n.encode("utf-8", "replace")))
    with _lock:
        if len(_names) > 8:
            _names.clear()
        _names[key] = found
    return found


def _system_dirs() -> list[str]:
    """:data:`SYSTEM_DIRS` and their multiarch subfolders (``/usr/lib/x86_64-linux-gnu``)."""
    out = list(SYSTEM_DIRS)
    for base in SYSTEM_DIRS:
        try:
            out += [os.path.join(base, n) for n in os.listdir(base) if n.endswith(("-gnu", "-musl"))]
        except OSError:
            continue
    return out


def _loaded() -> set[str]:
    """The libraries this process has mapped (its Python's ``libpython``, wherever it lives)."""
    try:
        with open("/proc/self/maps", "rb") as fh:
            text = fh.read(1 << 22)
    except OSError:
        return set()
    names = _base_names(re.findall(rb"/[^\s]+\.so[^\s/]*", text))
    return {n for n in names if n.startswith(("lib", "ld-"))}  # not Python's modules: loaded by path


def _base_names(found: Sequence[bytes]) -> set[str]:
    return {m.decode("utf-8", "replace").rsplit("/", 1)[-1] for m in found}


def launcher_overrides(environ: Mapping[str, str]) -> dict[str, str]:
    """The loader variables to set for our launcher in an editor's terminal (``sh``,
    ``rm``, ``env`` on the host, in the workspace, with the editor's environment, which
    a terminal request can only add to): each as :func:`.programs.host_environment` leaves it in
    ``environ``, empty when nothing is left (the loader ignores an empty one)."""
    kept = host_environment(environ)
    return {var: kept.get(var, "") for var in LOADER_VARS}


__all__ = ["FILE_WHY", "GCONV_WHY", "LOADER_WHY", "MODULE_WHY", "RELATIVE_WHY", "python_dirs",
           "python_modules", "launcher_overrides", "loader_dirs",
           "relative_loader_why",
           "preloaded",
           "search_folders", "shadowing", "system_libraries"]
