"""What pixi's activation and devbox's ``init_hook`` run in the user's shell (finding D14).

An ``.envrc`` that evals ``pixi shell-hook`` or ``devbox generate direnv`` runs, at every
``cd`` into the folder, the scripts pixi's ``[activation] scripts`` list (of the manifest,
a ``[target.X]``, a ``[feature.X]``) and devbox.json's ``shell.init_hook`` lines; ``pixi
shell``/``pixi run`` and ``devbox shell``/``devbox run`` do too. The manifest keys are
:mod:`.codekeys`' (pixi's ``activation`` tables are set back when a command changes them);
what they name is here: each script file (relative to the manifest's folder, where pixi and
devbox run them) read-only, existing or not, and ``devbox.json`` itself when it has an
``init_hook`` (its lines are the code: JSON no key-level reader keeps apart).
"""

from __future__ import annotations

import json
import os
import tomllib
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

from . import paths
from .hookscripts import line_files

PIXI_WHY = ("pixi runs as you in your shell (an [activation] script of pixi.toml: pixi shell, pixi run, "
            "and an .envrc's eval \"$(pixi shell-hook)\" at every cd)")
DEVBOX_WHY = ("devbox runs as you in your shell (devbox.json's shell.init_hook or scripts name it: devbox "
              "shell, devbox run, and an .envrc's devbox direnv hook at every cd)")
DEVBOX_FILE_WHY = ("holds the shell.init_hook devbox runs as you in your shell (devbox shell, devbox run, "
                   "and an .envrc's devbox direnv hook at every cd)")
MAX_BYTES = 256 * 1024
MAX_ENTRIES = 64


def activation_runs(roots: Sequence[Path]) -> list[tuple[Path, str]]:
    """The files pixi's activation and devbox's hooks of each root run (real paths inside
    the roots, existing or not for pixi's scripts), with why."""
    out: list[tuple[Path, str]] = []
    for root in roots:
        for manifest, placed in ((root / "pixi.toml", ()), (root / "pyproject.toml", ("tool", "pixi"))):
            data: Any = _load(manifest, tomllib.loads)
            for node in placed:
                data = data.get(node) if isinstance(data, dict) else None
            for script in _activation_scripts(data):
                out += _inside(root, script, roots, PIXI_WHY)
        devbox = root / "devbox.json"
        shell = _load(devbox, json.loads).get("shell")
        if not isinstance(shell, dict):
            continue
        hook = shell.get("init_hook")
        if hook:
            out.append((devbox, DEVBOX_FILE_WHY))
        scripts = shell.get("scripts")
        lines = [*_strings(hook), *(s for v in (scripts.values() if isinstance(scripts, dict) else ())
                                    for s in _strings(v))]
        for line in lines[:MAX_ENTRIES]:
            out += [(p, DEVBOX_WHY) for p in line_files(line, root) if paths.within(p, root) and p != root]
    return out


def _activation_scripts(data: Any) -> Iterator[str]:
    """``activation.scripts`` of the manifest, of each ``target.X`` and ``feature.X`` (and a
    feature's targets)."""
    if not isinstance(data, dict):
        return
    tables = [data]
    for key in ("target", "feature"):
        inner = data.get(key)
        tables += [v for v in (inner.values() if isinstance(inner, dict) else ()) if isinstance(v, dict)]
    for table in list(tables[1:]):
        targets = table.get("target")
        tables += [v for v in (targets.values() if isinstance(targets, dict) else ()) if isinstance(v, dict)]
    for table in tables[:MAX_ENTRIES]:
        activation = table.get("activation")
        scripts = activation.get("scripts") if isinstance(activation, dict) else None
        yield from _strings(scripts)


def _strings(value: Any) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, list):
        return [v for v in value[:MAX_ENTRIES] if isinstance(v, str)]
    return []


def _inside(root: Path, word: str, roots: Sequence[Path], why: str) -> list[tuple[Path, str]]:
    try:
        path = Path(paths.real(word, root, expand_user=False))
    except paths.BadPath:
        return []
    return [(path, why)] if any(paths.within(path, r) for r in roots) and path not in roots else []


def _load(path: Path, parse: Any) -> dict[str, Any]:
    """A small regular file parsed, or {} (missing, too big, not parsing)."""
    try:
        if not path.is_file() or path.is_symlink() or os.path.getsize(path) > MAX_BYTES:
            return {}
        data = parse(path.read_text(encoding="utf-8", errors="replace"))
    except (OSError, ValueError, RecursionError):
        return {}
    return data if isinstance(data, dict) else {}


__all__ = ["activation_runs"]
