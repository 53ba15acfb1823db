"""The folders mise puts first on the PATH: ``[env] _.path = ["./tools/bin"]``.

mise (like direnv) changes the user's shell when they enter the directory, and its
``_.path`` puts the project's folders before their own programs: a ``tools/bin/git``
planted there runs, as the user, at their next ``git`` in that directory. The config
files themselves are guarded by name (:mod:`.laternames`); the folders they name are
guarded as an ``.envrc``'s ``PATH_add`` folders are (:mod:`.pathdirs`), through
:func:`.envrcsources.envrc_runs`. Read with ``tomllib``, bounded, never an error.
"""

from __future__ import annotations

import os
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


def _path_entries(config: Path) -> list[str]:
    try:
        info = os.stat(config)
        if not stat.S_ISREG(info.st_mode) or info.st_size > MAX_BYTES:
            return []
        with open(config, "rb") as handle:
            data = tomllib.loads(handle.read(MAX_BYTES).decode("utf-8", "replace"))
    except (OSError, tomllib.TOMLDecodeError, RecursionError, ValueError):
        return []
    env = data.get("env")
    special = env.get("_") if isinstance(env, dict) else None
    value = special.get("path") if isinstance(special, dict) else None
    items = [value] if isinstance(value, str) else value if isinstance(value, list) else []
    return [item.replace("{{config_root}}", ".") for item in items[:64] if isinstance(item, str)]


__all__ = ["CONFIGS", "mise_path_dirs"]
