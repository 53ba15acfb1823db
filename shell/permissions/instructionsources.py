"""The files an instruction file imports, guarded as the instruction file is.

``AGENTS.md`` and ``CLAUDE.md`` go into every later session's system prompt, so an
edit there always asks and a sandboxed command cannot change them
(:mod:`.laternames`). A line that is only ``@docs/conventions.md`` imports that file
in its place (Claude Code's way, common in real repositories): the imported file is
the same thing under another name (tester finding K5). What is imported is what the
``ProjectInstructions`` middleware reads (:func:`middleware.project_instructions.load_instructions`,
the one resolver: relative to the importing file, transitively, inside the
repository), and a file an ``@`` line names that is missing counts too (once made,
it is read). The file tools' policy asks before an edit there (:mod:`.laterhit`), the
sandbox keeps them read-only and quarantines one a command creates (:mod:`.runslater`).
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Sequence
from pathlib import Path

from middleware.project_instructions import FILE_NAMES, load_instructions

from .laternames import Reason

Key = tuple[tuple[str, int, int, int], ...]
_cache: dict[tuple[Path, ...], tuple[Key, dict[Path, Reason]]] = {}


def _why(by: str) -> Reason:
    reads = ("agent-shell reads it into every later session's instructions, and what it says the model "
             "then does unasked where no question is needed")
    return Reason(f"{by} imports it (an @ line): {reads}", f"{by} imports (an @ line): {reads}")


def _stamp(paths: Iterable[Path]) -> Key:
    out = []
    for path in paths:
        try:
            info = os.stat(path)
            out.append((str(path), info.st_mtime_ns, info.st_size, info.st_ino))
        except OSError:
            out.append((str(path), -1, -1, -1))
    return tuple(out)


def _inside(path: Path, roots: Sequence[Path]) -> bool:
    return any(root in path.parents for root in roots)


def instruction_imports(roots: Sequence[Path], nested: Iterable[Path] = ()) -> dict[Path, Reason]:
    """What the instruction files of each root (and of the folders of ``nested``
    ones the walk found) import inside the roots, with why; read again only when one
    of the files involved changed, appeared or went away."""
    named = {name.casefold() for name in FILE_NAMES}  # Agents.md is AGENTS.md on macOS (finding L10)
    places = tuple(dict.fromkeys([*roots, *(p.parent for p in nested if p.name.casefold() in named)]))
    candidates = [place / name for place in places for name in FILE_NAMES]
    cached = _cache.get(places)
    if cached is not None and _stamp([*candidates, *cached[1]]) == cached[0]:
        return cached[1]
    found: dict[Path, Reason] = {}
    for place in places:
        loaded = load_instructions(place)
        for read in loaded.files:
            if read.origin == "import" and read.imported_by is not None and _inside(read.path, roots):
                found.setdefault(read.path, _why(read.imported_by))
        for path in map(Path, map(os.path.abspath, loaded.missing)):
            if _inside(path, roots):
                found.setdefault(path, _why("an instruction file"))
    _cache.clear()
    _cache[places] = (_stamp([*candidates, *found]), found)
    return found


__all__ = ["instruction_imports"]
