"""The diff a file edit would make, shown before it is approved.

"What is approved is what is seen": for ``write_file`` and ``edit_file`` the
dialog shows the change (old → new) as a unified diff, computed the way the tool
will apply it. When the edit cannot apply (``old_string`` missing or not unique),
the preview says so instead of guessing.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from ..core import linediff
from . import paths

MAX_PREVIEW_BYTES = 2 * 1024 * 1024
"""Larger files are not diffed (the arguments are still shown whole)."""


def _read(path: Path) -> tuple[str | None, str]:
    """``(text, "")``, ``("", "")`` for a missing file, or ``(None, why)``."""
    try:
        if not path.exists():
            return "", ""
        if not path.is_file():
            return None, f"{path} is not a regular file"
        if path.stat().st_size > MAX_PREVIEW_BYTES:
            return None, f"{path} is too large to preview"
        data = path.read_bytes()
    except OSError as exc:
        return None, f"cannot read {path}: {exc.strerror or exc}"
    if b"\0" in data[:8192]:
        return None, f"{path} is a binary file"
    return data.decode("utf-8", errors="replace"), ""


def edit_preview(tool_name: str, args: Mapping[str, Any], root: Path) -> str:
    """A unified diff for ``write_file`` / ``edit_file`` (or a line saying why there
    is none); ``""`` for other tools."""
    path = args.get("path")
    if tool_name not in ("write_file", "edit_file") or not isinstance(path, str):
        return ""
    try:
        real = paths.resolve(path, root)
    except paths.BadPath as exc:
        return f"(no preview: {exc})"
    old, why = _read(real)
    if old is None:
        return f"(no preview: {why})"
    if tool_name == "write_file":
        new = args.get("content")
        if not isinstance(new, str):
            return ""
    else:
        old_string, new_string = args.get("old_string"), args.get("new_string")
        if not isinstance(old_string, str) or not isinstance(new_string, str):
            return ""
        count = old.count(old_string) if old_string else 0
        if count == 0:
            return "(no preview: old_string is not in the file; the edit will fail)"
        if count > 1 and not args.get("replace_all"):
            return f"(no preview: old_string occurs {count} times; the edit will fail without replace_all)"
        new = old.replace(old_string, new_string) if args.get("replace_all") else old.replace(
            old_string, new_string, 1
        )
    shown = path
    if old == new:
        return "(no change: the file already has this content)"
    outside = os.path.isabs(os.path.expanduser(shown))  # git's a/ b/ prefixes mean "in the repository"
    label_old = "/dev/null" if not real.exists() else shown if outside else f"a/{shown}"
    lines = linediff.unified_diff(  # bounded: a huge file with many changes is a cut diff, quickly
        linediff.text_lines(old), linediff.text_lines(new), label_old,
        shown if outside else f"b/{shown}", n=3,
    )
    out = []
    for line in lines:
        out.append(line if line.endswith("\n") else line + "\n\\ No newline at end of file\n")
    return "".join(out).rstrip("\n")
