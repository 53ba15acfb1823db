"""Users' own middleware: found in installed packages and in the config dir, then
built into a stack from the configuration.

Two sources, so both a packaged plugin and a quick local experiment work:

- the entry-point group ``agent_shell.middleware`` (a package declares
  ``[project.entry-points."agent_shell.middleware"] name = "pkg.module:Class"``,
  or points at a module, whose Middleware subclasses are all taken);
- ``<config_dir>/middleware/*.py``: each file is imported by path under a unique
  module name (``agent_shell_plugin_<stem>_<hash of path>``), so two files with
  the same stem never collide and nothing needs to be on ``sys.path``. Files
  starting with ``_`` are skipped (helpers the others may import by path).

A plugin is someone else's code running inside the shell: a syntax error, a
failed import or an exception in its module body is reported (file, line, what
went wrong) and that plugin is skipped; loading never fails as a whole. The same
goes for ``build_stack``: an unknown name or a bad option in the config becomes a
problem line for the user to read, and the rest of the stack is built.
"""

from __future__ import annotations

import difflib
import hashlib
import importlib.util
import inspect
import re
import sys
import traceback
import types
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .base import Middleware

if TYPE_CHECKING:
    from importlib.metadata import EntryPoint

ENTRY_POINT_GROUP = "agent_shell.middleware"
MODULE_PREFIX = "agent_shell_plugin"

Found = dict[str, type[Middleware]]


def entry_points(group: str) -> list[EntryPoint]:
    """The installed packages' entry points in ``group``.

    ``importlib.metadata`` costs ~10 ms to import (it brings ``email`` and
    ``zipfile``) on the way to every start, and almost no one has a plugin
    installed; so a quick look comes first (:func:`may_declare`) and the real
    lookup runs only when some package may declare the group."""
    if not may_declare(group):
        return []
    from importlib.metadata import entry_points as installed

    return list(installed(group=group))


def may_declare(group: str, path: Sequence[str] | None = None) -> bool:
    """False only when no distribution on ``path`` (``sys.path``) can have entry
    points in ``group``: no ``*.dist-info`` / ``*.egg-info`` folder there has an
    ``entry_points.txt`` naming the section ``[group]``. Whatever this look cannot
    read as a folder (a zip on the path, a finder of its own that lists
    distributions) answers True, and ``importlib.metadata`` decides."""
    import os

    if any(hasattr(finder, "find_distributions") and finder.__module__ != "_frozen_importlib_external"
           for finder in sys.meta_path):
        return True
    header = f"[{group}]"
    for entry in sys.path if path is None else path:
        try:
            with os.scandir(entry or ".") as children:
                folders = [c.path for c in children if c.name.lower().endswith((".dist-info", ".egg-info"))]
        except NotADirectoryError:
            return True  # a zip file or an egg: only importlib.metadata reads those
        except OSError:
            continue  # a path entry that does not exist (or cannot be read: no more can importlib's)
        for folder in folders:
            try:
                declared = os.path.join(folder, "entry_points.txt")
                with open(declared, encoding="utf-8", errors="replace") as file:
                    if header in file.read():
                        return True
            except OSError:
                continue  # no entry points there (or an ``.egg-info`` file, which has none)
    return False


def load_plugins(
    config_dir: Path, entry_point_group: str = ENTRY_POINT_GROUP
) -> tuple[Found, list[str]]:
    """Name → class of every plugin middleware, and human-readable problems."""
    found: Found = {}
    origins: dict[str, str] = {}
    problems: list[str] = []

    def register(classes: Iterable[type[Middleware]], origin: str) -> None:
        for cls in classes:
            if cls.name in found and found[cls.name] is not cls:
                taken = origins[cls.name]
                problems.append(f"{origin}: middleware {cls.name!r} skipped: the name is taken by {taken}.")
                continue
            found[cls.name] = cls
            origins[cls.name] = origin

    try:
        points = list(entry_points(group=entry_point_group))
    except Exception as exc:  # a broken installed distribution's metadata
        points = []
        problems.append(f"Entry points {entry_point_group!r} could not be read: {_describe(exc)}")
    for point in points:
        origin = f"entry point {point.name!r} ({point.value})"
        try:
            value = point.load()
        except (Exception, SystemExit) as exc:
            problems.append(f"{origin} could not be loaded: {_describe(exc)}")
            continue
        classes = _middleware_in(value)
        if not classes:
            problems.append(f"{origin} is not a Middleware subclass or a module that defines one.")
        register(classes, origin)

    folder = Path(config_dir).expanduser() / "middleware"
    if folder.is_dir():
        for path in sorted(folder.glob("*.py")):
            if path.name.startswith("_"):
                continue
            module, problem = import_file(path)
            if module is None:
                problems.append(problem or f"{path}: could not be imported.")
                continue
            classes = _middleware_in(module)
            if not classes:
                problems.append(f"{path}: defines no Middleware subclass (subclass middleware.Middleware).")
            register(classes, str(path))
    return found, problems


def import_file(path: Path) -> tuple[types.ModuleType | None, str | None]:
    """Import one plugin file by path: the module, or None and what went wrong."""
    digest = hashlib.sha1(str(path.resolve()).encode()).hexdigest()[:10]
    stem = re.sub(r"\W", "_", path.stem)
    name = f"{MODULE_PREFIX}_{stem}_{digest}"
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        return None, f"{path}: not an importable Python file."
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # dataclasses and typing look the module up while it runs
    try:
        spec.loader.exec_module(module)
    except SyntaxError as exc:
        sys.modules.pop(name, None)
        return None, f"{path}:{exc.lineno}: syntax error: {exc.msg}"
    except (Exception, SystemExit) as exc:
        sys.modules.pop(name, None)
        return None, f"{path}{_line_in(exc, path)}: {_describe(exc)}"
    return module, None


def _middleware_in(value: Any) -> list[type[Middleware]]:
    """A Middleware subclass itself, or the public ones a module defines."""
    if isinstance(value, type):
        return [value] if issubclass(value, Middleware) and value is not Middleware else []
    if isinstance(value, types.ModuleType):
        return [
            v
            for k, v in vars(value).items()
            if isinstance(v, type)
            and issubclass(v, Middleware)
            and v is not Middleware
            and v.__module__ == value.__name__
            and not k.startswith("_")
        ]
    return []


def _describe(exc: BaseException) -> str:
    text = str(exc)
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


def _line_in(exc: BaseException, path: Path) -> str:
    """``:line`` of the deepest frame of ``exc`` inside the plugin file, if any."""
    target = str(path)
    lines = [f.lineno for f in traceback.extract_tb(exc.__traceback__) if f.filename == target]
    return f":{lines[-1]}" if lines else ""


def build_stack(
    names_in_order: Sequence[str],
    options: Mapping[str, Mapping[str, Any]],
    available: Mapping[str, type[Middleware]],
) -> tuple[list[Middleware], list[str]]:
    """Instantiate the configured middleware in order, each with its options.

    Unknown names, repeated names, options that are not a table, options the class
    does not take and constructors that raise are reported and that middleware is
    left out; the others are built.
    """
    built: list[Middleware] = []
    problems: list[str] = []
    seen: set[str] = set()
    for name in names_in_order:
        if name in seen:
            problems.append(f"Middleware {name!r} is listed twice; the first one is used.")
            continue
        seen.add(name)
        cls = available.get(name)
        if cls is None:
            close = difflib.get_close_matches(name, list(available), n=1)
            hint = f" Did you mean {close[0]!r}?" if close else ""
            known = ", ".join(sorted(available)) or "none"
            problems.append(f"Unknown middleware {name!r}.{hint} Available: {known}.")
            continue
        opts: Any = options.get(name, {})  # from a config file: check, do not trust the type
        if not isinstance(opts, Mapping):
            problems.append(f"Options of {name} must be a table of name = value, not {type(opts).__name__}.")
            continue
        problem = _check_options(name, cls, opts)
        if problem:
            problems.append(problem)
            continue
        try:
            built.append(cls(**opts))
        except Exception as exc:
            problems.append(f"{name} could not be created with {dict(opts)!r}: {_describe(exc)}")
    return built, problems


def _check_options(name: str, cls: type[Middleware], opts: Mapping[str, Any]) -> str | None:
    """Why ``cls(**opts)`` cannot bind (unknown or missing option), or None."""
    try:
        signature = inspect.signature(cls)
    except (TypeError, ValueError):
        return None  # no signature to check against: let the constructor decide
    try:
        signature.bind(**opts)
    except TypeError as exc:
        accepted = [
            p.name
            for p in signature.parameters.values()
            if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)
        ]
        listing = ", ".join(accepted) or "none"
        return f"Bad options for {name}: {exc}. Options it takes: {listing}."
    return None


def available_middleware(
    config_dir: Path, entry_point_group: str = ENTRY_POINT_GROUP
) -> tuple[Found, list[str]]:
    """Built-ins and plugins together. A plugin cannot silently replace a built-in:
    one with a built-in's name is reported and left out (give it another name)."""
    from .registry import builtin_middleware

    problems: list[str] = []
    found: Found = dict(builtin_middleware(problems))
    plugins, plugin_problems = load_plugins(config_dir, entry_point_group)
    problems.extend(plugin_problems)
    for name, cls in plugins.items():
        if name in found:
            problems.append(
                f"Plugin middleware {name!r} ({cls.__module__}) has the name of a built-in; "
                "it was left out. Set a different `name` on the class."
            )
            continue
        found[name] = cls
    return found, problems
