"""Submodules' history: not kept, so a command that removes it must say so (finding X13).

The history keep (:mod:`.gitkeep`) keeps the workspace repository's own git dir. A
submodule's git dir (``.git/modules/<name>``) holds that submodule's commits, and an
unpushed one there is as easy to lose: ``rm -rf .git/modules/sub/objects/??`` left
``git -C sub log`` at "bad object HEAD" and the result said nothing. Keeping every
submodule's objects would multiply the store; instead what each has (its objects'
fan-out folders, packs, refs, reflog sizes) is listed before a command, and what is
gone after it is said in the command's result, with that /rewind cannot put it back.
"""

from __future__ import annotations

import os
from pathlib import Path

MAX_MODULES = 32
"""Submodule git dirs looked at (a repository with more is looked at in part)."""
MAX_ENTRIES = 2_000
"""Refs and reflogs listed per submodule."""

Marks = dict[str, dict[str, int]]
"""Submodule (path under .git) to what it has: a name to its size (0: a name only)."""


def module_dirs(gitdir: Path) -> list[Path]:
    """The submodules' git dirs under ``gitdir/modules`` (a submodule ``a/b`` lives in
    ``modules/a/b``, and its own submodules under ``modules/a/b/modules``), no symlinks."""
    out: list[Path] = []
    stack = [gitdir / "modules"]
    while stack and len(out) < MAX_MODULES:
        here = stack.pop()
        try:
            entries = sorted(os.scandir(here), key=lambda e: e.name, reverse=True)
        except OSError:
            continue
        for entry in entries:
            if not entry.is_dir(follow_symlinks=False):
                continue
            path = Path(entry.path)
            if os.path.lexists(path / "HEAD"):
                out.append(path)
                stack.append(path / "modules")
            else:
                stack.append(path)
    return out[:MAX_MODULES]


def marks(gitdir: Path) -> Marks:
    """What each submodule's history holds now."""
    return {path.relative_to(gitdir).as_posix(): _marks_of(path) for path in module_dirs(gitdir)}


def _marks_of(moddir: Path) -> dict[str, int]:
    out: dict[str, int] = {}
    objects = moddir / "objects"
    for name in _names(objects):
        if len(name) == 2:
            out[f"objects/{name}"] = 0
    for name in _names(objects / "pack"):
        if name.endswith(".pack"):
            out[f"pack/{name}"] = 0
    try:
        for line in (moddir / "packed-refs").read_bytes()[: 1 << 20].splitlines():
            if line and not line.startswith((b"#", b"^")):
                out[f"packed/{line.decode('utf-8', 'replace')}"] = 0
    except OSError:
        pass
    count = 0
    for tree in ("refs", "logs"):
        if (moddir / tree).is_symlink():
            continue
        for folder, dirs, files in os.walk(moddir / tree):
            dirs.sort()
            for name in sorted(files):
                count += 1
                if count > MAX_ENTRIES:
                    return out
                path = Path(folder) / name
                try:
                    size = os.lstat(path).st_size
                except OSError:
                    continue
                out[path.relative_to(moddir).as_posix()] = size if tree == "logs" else 0
    return out


def removed_note(before: Marks, gitdir: Path) -> str:
    """The result's line when a command removed part of a submodule's history (empty: none)."""
    if not before:
        return ""
    now = marks(gitdir)
    hit = []
    for name, had in before.items():
        has = now.get(name, {})
        if any(has.get(key, -1) < size for key, size in had.items()):
            hit.append(name)
    if not hit:
        return ""
    shown = ", ".join(hit[:5]) + (f" and {len(hit) - 5} more" if len(hit) > 5 else "")
    return (f"[this command removed git history of a submodule ({shown}: objects, refs or reflog entries). "
            "A submodule's history is not kept before a command, so /rewind cannot put it back; only a "
            "remote that has its commits can (git fetch in the submodule). Tell the user]")


def _names(folder: Path) -> list[str]:
    try:
        return [e.name for e in os.scandir(folder)]
    except OSError:
        return []
