"""The folders mise puts first on the PATH: ``[env] _.path = ["./tools/bin"]``.

mise (like direnv) changes the user's shell when they enter the directory, and its
``_.path`` puts the project's folders before their own programs: a ``tools/bin/git``
planted there runs, as the user, at their next ``git`` in that directory. The config
files themselves are guarded by name (:mod:`.laternames`); the folders they name are
guarded as an ``.envrc``'s ``PATH_add`` folders are (:mod:`.pathdirs`), through
:func:`.envrcsources.envrc_runs`. The scripts it runs are guarded as what an ``.envrc``
sources is (:func:`mise_runs`): ``_.source`` (bash, at every prompt in that tree),
``_.file`` (dotenv files loaded into the shell) and the scripts ``[hooks]`` commands
name (``enter = "bash ./tools/enter.sh"``); a command appended to them unasked ran as
the user (finding M7). Read with ``tomllib``, bounded, never an error.
"""

from __future__ import annotations

import os
import shlex
import stat
import tomllib
from collections.abc import Sequence
from pathlib import Path

from . import paths

CONFIGS = ("mise.toml", ".mise.toml", "mise.local.toml", ".mise.local.toml", ".config/mise.toml",
           ".config/mise/config.toml", ".mise/config.toml", "mise/config.toml")
"""Where mise reads a project's config, relative to the project's folder."""
MAX_BYTES = 1 << 20
WHY = ("is in a folder mise puts first on your PATH (_.path in {config}): a program there runs instead of "
       "yours of the same name (git, ls …) at every command you type in that directory")


def mise_path_dirs(roots: Sequence[Path]) -> list[tuple[Path, str]]:
    """The folders (real paths, inside ``roots``) that the roots' mise configs put on the PATH."""
    out: list[tuple[Path, str]] = []
    for root in roots:
        for name in CONFIGS:
            config = root / name
            for entry in _path_entries(config):
                folder = Path(os.path.realpath(root / os.path.expanduser(entry))) if entry else None
                if folder is not None and any(paths.within(folder, r) for r in roots):
                    out.append((folder, WHY.format(config=name)))
    return out


RUNS_WHY = "mise runs as you when you are in that directory ({key} in {config})"
MAX_ITEMS = 64


def mise_runs(roots: Sequence[Path]) -> list[tuple[Path, str]]:
    """The files (real paths, inside ``roots``, existing or not for ``_.source`` and
    ``_.file``) that the roots' mise configs run or load into the user's shell."""
    out: list[tuple[Path, str]] = []
    for root in roots:
        for name in CONFIGS:
            data = _load(root / name)
            env = data.get("env")
            special = env.get("_") if isinstance(env, dict) else None
            for key in ("source", "file"):
                value = special.get(key) if isinstance(special, dict) else None
                for item in _strings(value, "path"):
                    out += _inside(root, item, roots, RUNS_WHY.format(key=f"_.{key}", config=name))
            hooks = data.get("hooks")
            for hook, value in (hooks.items() if isinstance(hooks, dict) else ()):
                why = RUNS_WHY.format(key=f"hooks.{hook}", config=name)
                for command in _strings(value, "script"):
                    for word in _words(command):
                        out += [(p, w) for p, w in _inside(root, word, roots, why) if os.path.isfile(p)]
    return out


def _strings(value: object, key: str) -> list[str]:
    """A string, a list of them, or tables holding one under ``key`` (``{path = "x"}``)."""
    items = value if isinstance(value, list) else [value]
    out = [item.get(key) if isinstance(item, dict) else item for item in items[:MAX_ITEMS]]
    return [item for item in out if isinstance(item, str)]


def _words(command: str) -> list[str]:
    try:
        words = shlex.split(command[:4096])
    except ValueError:
        words = command[:4096].split()
    return [w for w in words[:MAX_ITEMS] if w and not w.startswith("-")]


def _inside(root: Path, item: str, roots: Sequence[Path], why: str) -> list[tuple[Path, str]]:
    entry = item.replace("{{config_root}}", ".")
    try:
        path = Path(os.path.realpath(root / os.path.expanduser(entry)))
    except (OSError, ValueError):
        return []
    if os.path.isdir(path) or not any(paths.within(path, r) for r in roots):
        return []
    return [(path, why)]


def _load(config: Path) -> dict[str, object]:
    try:
        info = os.stat(config)
        if not stat.S_ISREG(info.st_mode) or info.st_size > MAX_BYTES:
            return {}
        with open(config, "rb") as handle:
            data = tomllib.loads(handle.read(MAX_BYTES).decode("utf-8", "replace"))
    except (OSError, tomllib.TOMLDecodeError, RecursionError, ValueError):
        return {}
    return data


def _path_entries(config: Path) -> list[str]:
    data = _load(config)
    env = data.get("env")
    special = env.get("_") if isinstance(env, dict) else None
    value = special.get("path") if isinstance(special, dict) else None
    items = [value] if isinstance(value, str) else value if isinstance(value, list) else []
    return [item.replace("{{config_root}}", ".") for item in items[:64] if isinstance(item, str)]


__all__ = ["CONFIGS", "mise_path_dirs", "mise_runs"]
