"""``glob`` and ``grep``: finding files and lines, skipping what git ignores.

Both walk the tree with :func:`shell.tools.ignore.walk_files`, so ``.gitignore``d
files and ``.git`` never show up, and both cap what they return and say how much
more there was, so one broad search cannot flood the model's context.
"""

from __future__ import annotations

import re
import stat
from collections.abc import Callable
from pathlib import Path, PurePosixPath

from shell.core.messages import ToolResult

from .files import SNIFF_BYTES, FileToolError
from .ignore import WalkStats, glob_to_regex, walk_files

MAX_GLOB_RESULTS = 500
MAX_GREP_MATCHES = 200
MAX_MATCH_CHARS = 300
MAX_GREP_FILE_BYTES = 20 * 1024 * 1024


def glob_files(base: Path, pattern: str, ignore_root: Path, show: Callable[[Path], str]) -> ToolResult:
    """Files below ``base`` whose path relative to ``base`` matches ``pattern``."""
    _check_pattern(pattern)
    if not base.is_dir():
        raise FileToolError(f"{show(base)} is not a directory; give glob a directory as path.")
    regex = glob_to_regex(pattern.removeprefix("./"))
    stats = WalkStats()
    found = [f for f in walk_files(base, ignore_root, stats) if regex.match(f.relative_to(base).as_posix())]
    lines = [show(f) for f in found[:MAX_GLOB_RESULTS]]
    if len(found) > MAX_GLOB_RESULTS:
        lines.append(f"[{len(found) - MAX_GLOB_RESULTS} more files not shown; use a narrower pattern]")
    if not found:
        hint = f" Use '**/{pattern}' to search subdirectories too." if "/" not in pattern else ""
        lines.append(f"No files match {pattern!r} in {show(base)}.{hint}")
    if stats.ignored:
        lines.append(f"({stats.ignored} paths ignored by .gitignore were not searched)")
    return ToolResult("\n".join(lines), details={"count": len(found)})


def grep_files(
    base: Path,
    pattern: str,
    file_glob: str | None,
    ignore_root: Path,
    show: Callable[[Path], str],
    allowed: Callable[[Path], bool] = lambda _: True,
) -> ToolResult:
    """Lines matching the Python regex ``pattern`` in files below ``base`` (or in the file ``base``).

    ``allowed(real_path)`` guards symlinked files found on the way: one that points
    out of the workspace is skipped, so a search cannot read past the fence.
    """
    try:
        regex = re.compile(pattern)
    except re.error as exc:
        raise FileToolError(
            f"Invalid regular expression {pattern!r}: {exc}. grep uses Python `re` syntax; "
            "escape characters such as ( [ { . * + ? with a backslash to match them literally."
        ) from None
    if not base.exists():
        raise FileToolError(f"No such file or directory: {show(base)}.")
    stats = WalkStats()
    if base.is_dir():
        files = walk_files(base, ignore_root, stats)
        if file_glob:
            _check_pattern(file_glob)
            name_only = "/" not in file_glob
            g = glob_to_regex(file_glob)
            files = (f for f in files if g.match(f.name if name_only else f.relative_to(base).as_posix()))
    else:
        files = iter([base])
    shown: list[str] = []
    total = searched = skipped = 0
    outside = 0
    for file in files:
        if file.is_symlink() and not allowed(file.resolve()):
            outside += 1
            continue
        lines = _text_lines(file)
        if lines is None:
            skipped += 1
            continue
        searched += 1
        for number, line in enumerate(lines, start=1):
            if regex.search(line):
                total += 1
                if len(shown) < MAX_GREP_MATCHES:
                    text = line if len(line) <= MAX_MATCH_CHARS else line[:MAX_MATCH_CHARS] + "…"
                    shown.append(f"{show(file)}:{number}: {text}")
    out = shown or [f"No matches for {pattern!r} in {show(base)} ({searched} files searched)."]
    if total > len(shown):
        out.append(f"[{total - len(shown)} more matches not shown; narrow the search with path or glob]")
    notes = []
    if skipped:
        notes.append(f"{skipped} binary or oversized files skipped")
    if stats.ignored:
        notes.append(f"{stats.ignored} paths ignored by .gitignore")
    if outside:
        notes.append(f"{outside} symlinks leading out of the workspace skipped")
    if notes:
        out.append(f"({'; '.join(notes)})")
    return ToolResult("\n".join(out), details={"matches": total, "files_searched": searched})


def _text_lines(path: Path) -> list[str] | None:
    """The file's lines, or None for binary, unreadable, oversized or special files."""
    try:
        info = path.stat()
        if not stat.S_ISREG(info.st_mode) or info.st_size > MAX_GREP_FILE_BYTES:
            return None  # a FIFO would block the read forever
        data = path.read_bytes()
    except OSError:
        return None
    if b"\x00" in data[:SNIFF_BYTES]:
        return None
    return data.decode("utf-8", errors="replace").splitlines()


def _check_pattern(pattern: str) -> None:
    if not pattern.strip():
        raise FileToolError("The glob pattern is empty; try '**/*.py' or '*.md'.")
    if pattern.startswith("/") or ".." in PurePosixPath(pattern).parts:
        raise FileToolError(
            f"The glob pattern {pattern!r} must be relative and stay below path: "
            "no leading '/' and no '..'. Put the directory in the path argument instead."
        )
