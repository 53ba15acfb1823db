"""The workspace scripts a commit-hook framework runs at the next ``git commit``
(tester finding N7).

The frameworks' configs are guarded by name (:mod:`.laternames`: ``.pre-commit-config.yaml``,
``.husky/``, ``lefthook.yml`` …), and so is a script a git hook links to
(:mod:`.gitruns`). The scripts those configs *name* were not: with
``entry: ./scripts/lint.sh`` in ``.pre-commit-config.yaml``, ``./scripts/hk.sh`` in
``.husky/pre-commit`` or ``run: ./scripts/lh.sh`` in ``lefthook.yml``, a changed
``scripts/lint.sh`` runs as the user at their next commit, before any review a commit
implies. So the files they name inside the work tree are guarded like a hook's link
target: an edit asks, a sandboxed command cannot change them.

The configs are read line by line (no YAML parser is a dependency): ``entry:``,
``args:`` (pre-commit) and ``run:``/``script:`` (lefthook) values, and every line of a
husky hook; a word counts when it looks like a file (holds a ``/``, not a URL or an
option). A config too big to read names nothing more (the config itself is guarded).
"""

from __future__ import annotations

import os
import re
import shlex
from pathlib import Path

from . import paths
from .laternames import LEFTHOOK

PRE_COMMIT = (".pre-commit-config.yaml", ".pre-commit-config.yml")
HUSKY = ".husky"
MAX_BYTES = 256 * 1024
MAX_HUSKY_FILES = 64
MAX_SCRIPTS = 256
"""Files named in all (each is looked at before and after every command)."""
_KEYS = re.compile(r"^\s*-?\s*(?:entry|args|run|script)\s*:\s*(.+?)\s*$", re.M)


def framework_configs(base: Path) -> list[Path]:
    """The hook frameworks' config files of the work tree ``base`` (existing ones)."""
    found = [base / name for name in PRE_COMMIT if (base / name).is_file()]
    try:
        with os.scandir(base) as entries:
            found += [Path(e.path) for e in entries if LEFTHOOK.fullmatch(e.name) and e.is_file()]
    except OSError:
        pass
    husky = base / HUSKY
    if husky.is_dir() and not husky.is_symlink():
        try:
            with os.scandir(husky) as entries:
                found += [Path(e.path) for e in list(entries)[:MAX_HUSKY_FILES]
                          if e.is_file(follow_symlinks=False)]
        except OSError:
            pass
    return found


def hook_scripts(base: Path) -> tuple[list[Path], list[Path]]:
    """The files the hook frameworks of work tree ``base`` name (resolved against
    ``base``), and the configs read (whose times key the caller's cache)."""
    configs = framework_configs(base)
    out: list[Path] = []
    for config in configs:
        try:
            with open(config, encoding="utf-8", errors="replace") as f:
                text = f.read(MAX_BYTES)
        except OSError:
            continue
        husky = config.parent.name == HUSKY
        values = text.splitlines() if husky else _KEYS.findall(text)
        for value in values:
            out += _files(value, base)
    return list(dict.fromkeys(out))[:MAX_SCRIPTS], configs


def _files(value: str, base: Path) -> list[Path]:
    value = value.strip().strip("[]")
    try:
        words = shlex.split(value, comments=True)
    except ValueError:
        words = value.split()
    out: list[Path] = []
    for word in (w.strip(",;&|()<>'\"") for w in words):
        if "/" not in word or "://" in word or word.startswith(("-", "$")):
            continue
        try:
            out.append(paths.resolve(word, base))
        except paths.BadPath:
            continue
    return out


__all__ = ["framework_configs", "hook_scripts"]
