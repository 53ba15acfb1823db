"""New Python modules in the workspace named like a standard or installed one (finding A14).

``python -m pip``, ``python -m pytest``, ``python -m venv``, ``python -c …`` and the REPL put
the folder the user runs them in first on ``sys.path``: a ``pip.py`` or a ``json/`` package
there is what Python imports instead of the real one, as the user, outside any sandbox. The
user may ``cd`` into any folder of the workspace first, so the walk of the workspace
(:mod:`.secretfiles`) notes, at any depth, the entries whose :func:`module_name` is one of
:func:`shadowed_names` (:func:`noted_in`), from the listings it keeps anyway (only a folder
that changed is listed again: the after-command walk names what a command created); the
guard (:mod:`.runslater`) keeps those Python would import (:func:`shadowing`), and the check
after a command moves out the ones made since it started into the quarantine and says so.
What was there before the command stays, edited or not (it is the project's own module), and
so do names no standard or installed module has (the project's own ``app.py``). A module in
a ``site-packages`` folder is pip's (``pip install --prefix``); one of a folder
``pip install --target`` fills (``vendor/six.py``) is moved out too, as one the user may not
know of.

Which names: :data:`sys.stdlib_module_names` (but the few no tool imports) and the top-level
names of the host's ``site-packages`` folders (this Python's, the system's and the user's:
pip, pytest, black, mypy …) and of the workspace's own virtualenvs' (:mod:`.workspacevenvs`:
``.venv/bin/python -m doctool`` imports the venv-only ``click`` or ``zzlib`` a planted
``click.py`` beside the user takes the place of, finding D8), with :data:`TOOL_MODULES`,
whether installed or not. A folder
that is itself a package (holds ``__init__.py``) is not where anyone runs ``python -m``:
the modules in it (``src/app/types.py``) are the package's own and stay. A folder named like
an installed namespace package (``opentelemetry/``, no ``__init__``) is a portion Python merges
first: what it holds that the installed namespace has too (``opentelemetry/context/``) is
listed as well (:func:`_portions`), so one a command adds to such a folder the project had is
new and moved out (it was not: only new top-level folders were).
"""

from __future__ import annotations

import functools
import glob
import itertools
import os
import site
import sys
import threading
from collections.abc import Collection, Iterable, Mapping, Sequence
from pathlib import Path

from .laternames import SITE_DIRS, Reason
from .workspacevenvs import venv_site_dirs

SHADOW_WHY = ("a Python module named like the standard or installed module {name!r}: python -m, "
              "python -c and the REPL started in its folder import it instead, as you (python -m pip, "
              "python -m pytest)")

TOOL_MODULES = frozenset({
    "pip", "setuptools", "wheel", "pytest", "_pytest", "pluggy", "black", "mypy", "ruff", "flake8",
    "pylint", "isort", "coverage", "tox", "nox", "virtualenv", "pipx", "poetry", "twine", "build", "uv",
    "IPython", "jupyter", "notebook", "pre_commit", "pkg_resources", "_distutils_hack", "packaging",
    "sitecustomize", "usercustomize",
})
"""Tool modules the user runs with ``python -m``: counted even where not installed; and the
two every interpreter imports at start from any ``PYTHONPATH`` folder (with an empty or
relative entry, any folder the user starts Python in: finding C15)."""
HARMLESS = frozenset({"this", "antigravity", "idlelib", "turtledemo", "__main__"})
"""Standard names nothing imports at a tool's start (``__main__.py`` is a project's own)."""
STRAY_NAMES = frozenset({"tests", "docs", "doc", "examples", "example", "benchmarks", "scripts"})
"""Top-level folders packages install into ``site-packages`` by mistake (a ``tests`` package
beside their own): nothing imports them, and a project's own ``tests/`` made by a command is
no planted module (a virtualenv holds many such packages, finding D8)."""
MAX_SITE_ENTRIES = 20_000
"""Entries of one ``site-packages`` folder read for its names."""
SITE_GLOBS = ("/usr/lib/python3*/site-packages", "/usr/lib/python3/dist-packages",
              "/usr/local/lib/python3*/site-packages", "/usr/local/lib/python3*/dist-packages",
              "~/.local/lib/python3*/site-packages")
_SKIP_SUFFIXES = (".dist-info", ".egg-info", ".pth", ".data")
_lock = threading.Lock()


def _site_dirs() -> list[str]:
    """This Python's ``site-packages`` (and its base's) and the system's and the user's."""
    found: list[str] = []
    try:
        found += site.getsitepackages()
    except AttributeError:  # an old virtualenv's site module
        pass
    found.append(site.getusersitepackages())
    for pattern in SITE_GLOBS:
        found += sorted(glob.glob(os.path.expanduser(pattern)))
    return list(dict.fromkeys(d for d in found if os.path.isdir(d)))


def _stamp(dirs: Iterable[str]) -> tuple[tuple[str, int], ...]:
    out = []
    for folder in dirs:
        try:
            out.append((folder, os.stat(folder).st_mtime_ns))
        except OSError:
            continue
    return tuple(out)


def shadowed_names(roots: Sequence[Path] = (), envs: Iterable[Path] = ()) -> frozenset[str]:
    """The module names a new workspace module must not take (see the module's docstring):
    the host's, and those of the virtualenvs in the workspace ``roots`` (and of ``envs``,
    the ones the walk saw deeper); read again when a ``site-packages`` folder changed (a
    ``pip install``)."""
    sites = _site_dirs() + venv_site_dirs(roots, envs)
    with _lock:
        return _installed(_stamp(dict.fromkeys(sites)))[0]


def noted_again(directory: str, files: Sequence[str], others: Iterable[str],
                names: Collection[str]) -> tuple[str, ...]:
    """:func:`noted_in` for a folder listed before, its entries (``files`` and the ``others``)
    judged against new ``names`` (a package the project's venv installed since)."""
    return noted_in(directory, files, [e for e in (*files, *others) if module_name(e) in names])


def namespace_names(roots: Sequence[Path] = ()) -> frozenset[str]:
    """Installed top-level names that are namespace packages (a folder with no
    ``__init__``: ``opentelemetry``, ``google``, ``azure``): Python merges every
    portion of such a name in path order, so a workspace folder of that name, with or
    without ``__init__``, puts its submodules before the installed ones (finding C6); the
    workspace ``roots``' virtualenvs' too (D8)."""
    sites = _site_dirs() + venv_site_dirs(roots)
    with _lock:
        return _installed(_stamp(dict.fromkeys(sites)))[1]


@functools.lru_cache(maxsize=4)
def _installed(stamp: tuple[tuple[str, int], ...]) -> tuple[frozenset[str], frozenset[str]]:
    """One read of the ``site-packages`` folders: the names, and those of namespaces."""
    names = (set(sys.stdlib_module_names) - HARMLESS) | TOOL_MODULES
    namespaces: set[str] = set()
    for folder, _ in stamp:
        try:
            with os.scandir(folder) as entries:
                for count, entry in enumerate(entries):
                    if count >= MAX_SITE_ENTRIES:
                        break
                    name = module_name(entry.name)
                    if not name or entry.name.endswith(_SKIP_SUFFIXES) or name.startswith("__") \
                            or name in STRAY_NAMES:
                        continue
                    names.add(name)
                    if entry.name == name and entry.is_dir(follow_symlinks=False) and _portion(entry.path):
                        namespaces.add(name)
        except OSError:
            continue
    return frozenset(names), frozenset(namespaces)


def _portion(folder: str) -> bool:
    """A folder with no ``__init__`` that holds modules: a namespace package's portion
    (not a folder of data files a package dropped beside its own)."""
    if any(os.path.exists(os.path.join(folder, init)) for init in ("__init__.py", "__init__.pyc")):
        return False
    try:
        with os.scandir(folder) as entries:
            for count, entry in enumerate(entries):
                if count >= 200:
                    break
                if module_name(entry.name) and (not entry.is_dir(follow_symlinks=False)
                                                or os.path.exists(os.path.join(entry.path, "__init__.py"))):
                    return True
    except OSError:
        pass
    return False


def module_name(entry: str) -> str:
    """The name ``import`` finds ``entry`` by (``pip.py``, ``pip``, ``_x.cpython-312-….so``), or ""."""
    stem, dot, suffix = entry.partition(".")
    if not stem.isidentifier():
        return ""
    if not dot or suffix == "py" or suffix == "so" or (suffix.endswith(".so") and "." in suffix):
        return stem
    return ""


def noted_in(directory: str, files: Sequence[str], candidates: Sequence[str]) -> tuple[str, ...]:
    """The entries of ``directory`` named like such a module that the walk keeps: none in a package (one
    holding ``__init__.py``: its modules are its own) or in a ``site-packages`` folder (where
    pip installs, ``pip install --prefix``; the start-up files there are :mod:`.laternames`')."""
    if "__init__.py" in files or os.path.basename(directory) in SITE_DIRS:
        return ()
    return tuple(candidates)


def shadowing(found: Iterable[Path], roots: Sequence[Path] = ()) -> dict[Path, str]:
    """Of the walk's noted paths, those Python imports (a module file, or a folder holding
    ``__init__.py``), each with why: the guard's own list of modules. A folder without
    ``__init__.py`` (a namespace, which the real module comes before) is listed with no why:
    when an ``__init__.py`` makes it a package later, only that file is new, and only it goes
    (the folder and what it held are the project's)."""
    out: dict[Path, str] = {}
    namespaces = namespace_names(roots)
    for path in found:
        name = module_name(path.name)
        plain = path.name == name and not os.path.lexists(path / "__init__.py") and name not in namespaces
        out[path] = "" if plain else SHADOW_WHY.format(name=name)
        if name in namespaces and path.name == name and not plain and _portion_folder(path):
            out.update(_portions(path, (name,)))
    return out


MAX_NAMESPACE_DEPTH = 4
"""Levels of a namespace looked into (``google.cloud.storage`` is three)."""


def _portions(folder: Path, dotted: tuple[str, ...]) -> dict[Path, str]:
    """The entries of ``folder``, a workspace portion of the installed namespace ``dotted``,
    that Python finds before the installed modules of their names (a module, a package, or a
    portion of a namespace installed there too, looked into in turn), with why; one with no
    ``__init__`` beside an installed regular package is listed with no why (it comes after
    it: a new ``__init__.py`` in it is what moves out). The guard lists them before and after
    a command, so one a command adds to a namespace folder the project had is new
    (:func:`new_modules`); one named like nothing installed there is the project's own."""
    installed = _namespace_entries(_stamp(_site_dirs()), dotted)
    out: dict[Path, str] = {}
    try:
        with os.scandir(folder) as entries:
            found = [(e.name, Path(e.path)) for e in itertools.islice(entries, MAX_PORTION_ENTRIES)]
    except OSError:
        return out
    for entry, path in found:
        name = module_name(entry)
        if not name or name not in installed or (entry != name and path.is_dir()):
            continue
        why = SHADOW_WHY.format(name=".".join((*dotted, name)))
        if not (entry == name and _portion_folder(path)):
            out[path] = why
        elif installed[name] and len(dotted) < MAX_NAMESPACE_DEPTH:  # both namespaces: merged again
            out[path] = why
            out.update(_portions(path, (*dotted, name)))
        else:
            out[path] = ""
    return out


MAX_PORTION_ENTRIES = 200
"""Entries of one workspace namespace folder looked at."""


def _portion_folder(path: Path) -> bool:
    """A folder with no ``__init__``: a namespace portion, where Python imports from it at all."""
    return path.is_dir() and not any(os.path.lexists(path / f"__init__{s}") for s in (".py", ".pyc"))


@functools.lru_cache(maxsize=64)
def _namespace_entries(stamp: tuple[tuple[str, int], ...], dotted: tuple[str, ...]) -> dict[str, bool]:
    """The modules the installed namespace ``dotted`` holds, in every ``site-packages``
    folder: name, and whether it is a namespace itself."""
    out: dict[str, bool] = {}
    for site_dir, _ in stamp:
        folder = os.path.join(site_dir, *dotted)
        try:
            with os.scandir(folder) as entries:
                for entry in itertools.islice(entries, MAX_SITE_ENTRIES):
                    name = module_name(entry.name)
                    if not name or name.startswith("__") or entry.name.endswith(_SKIP_SUFFIXES):
                        continue
                    plain = entry.name == name and entry.is_dir(follow_symlinks=False)
                    out[name] = out.get(name, False) or (plain and _portion(entry.path))
        except OSError:
            continue
    return out


def new_modules(before: Mapping[Path, str], after: Mapping[Path, str], watched: Collection[Path],
                since: int) -> list[tuple[Path, str]]:
    """What the check after a command moves out of the guard's modules (:func:`shadowing`,
    and :func:`.loaderdirs.python_modules`'), with why: one made since ``since`` (ctime, ns)
    that was not there before (not one of the other walls' ``watched`` paths), and of a
    namespace folder there before, the ``__init__.py`` that made it a package."""
    out: list[tuple[Path, str]] = []
    for path, reason in after.items():
        if not reason:
            continue
        init = path / "__init__.py"
        if before.get(path) == "" and _made_since(init, since):
            out.append((init, reason))
        elif path not in before and path not in watched and _made_since(path, since):
            out.append((path, reason))
    return out


def _made_since(path: Path, since: int) -> bool:
    try:
        return os.lstat(path).st_ctime_ns >= since
    except OSError:
        return False


NEW_MODULE_WHY = Reason(
    "is a new Python module named like the standard or installed module {name!r}: python -m, python -c "
    "and the REPL started in its folder import it instead, as you (python -m pip, python -m pytest)",
    "python -m, python -c and the REPL started in its folder would import instead of the standard or "
    "installed module {name!r}, as you (python -m pip, python -m pytest): it does not exist yet")


def new_module_why(target: Path, roots: Sequence[Path] = ()) -> Reason | None:
    """Why a file edit that creates ``target`` (a real path) plants such a module: a new
    ``pip.py``, or the ``__init__.py`` that makes a ``json/`` folder a package, in a folder
    that is no package; None otherwise (an existing module is the project's: edits go on).
    ``roots``: the workspace's, whose virtualenvs' names count too."""
    if os.path.lexists(target):
        return None
    folder = target.parent
    if module_name(target.name) == "__init__":  # the folder becomes the package ``folder.name``
        target, folder = folder, folder.parent
    name = module_name(target.name)
    if not name or name not in shadowed_names(roots) or os.path.lexists(folder / "__init__.py"):
        return None
    if folder.name in SITE_DIRS:
        return None
    return Reason(NEW_MODULE_WHY.alone.format(name=name), NEW_MODULE_WHY.which.format(name=name))


__all__ = ["NEW_MODULE_WHY", "SHADOW_WHY", "TOOL_MODULES", "module_name", "new_module_why", "new_modules",
           "noted_again", "noted_in", "shadowed_names", "shadowing"]
