"""What the file tools do, on paths the workspace already resolved and allowed.

Plain synchronous functions (the tools run them in a worker thread) that return a
:class:`ToolResult` or raise :class:`FileToolError` whose message tells the model
what went wrong and what to do next. Reading is bounded (line window, per-line and
total caps), binary files are recognised instead of dumped, and every change
returns a unified diff, also in ``details["diff"]`` for the TUI to render.
"""

from __future__ import annotations

import contextlib
import difflib
import mimetypes
import os
import stat
import tempfile
from pathlib import Path

from shell.core.messages import DataBlock, TextBlock, ToolResult

MAX_LINES = 2000
"""Lines ``read_file`` returns when no ``limit`` is given."""
MAX_LINE_CHARS = 2000
MAX_OUTPUT_CHARS = 100_000
MAX_IMAGE_BYTES = 5 * 1024 * 1024
MAX_LIST_ENTRIES = 1000
MAX_DIFF_CHARS = 50_000
SNIFF_BYTES = 8192
IMAGE_TYPES = {"image/png", "image/jpeg", "image/gif", "image/webp"}


class FileToolError(Exception):
    """A file tool could not do what was asked; the message says how to recover."""


def read_text_window(path: Path, shown: str, offset: int, limit: int) -> ToolResult:
    """Lines ``offset`` .. ``offset + limit - 1`` (1-based), numbered like ``cat -n``."""
    _require_file(path, shown)
    if offset < 1:
        raise FileToolError(f"offset must be 1 or more (the first line is 1), not {offset}.")
    if limit < 1:
        raise FileToolError(f"limit must be 1 or more, not {limit}.")
    size = path.stat().st_size
    with path.open("rb") as fh:
        head = fh.read(SNIFF_BYTES)
    media = sniff_media_type(path, head)
    if media in IMAGE_TYPES:
        if size > MAX_IMAGE_BYTES:
            raise FileToolError(
                f"{shown} is a {media} image of {size} bytes, over the {MAX_IMAGE_BYTES} byte limit."
            )
        note = TextBlock(f"{shown}: {media} image, {size} bytes.")
        return ToolResult((note, DataBlock(media, path.read_bytes())), details={"path": shown})
    if media is not None:
        raise FileToolError(
            f"{shown} is a binary file ({media}, {size} bytes); read_file shows text only. "
            "Use run_shell with a suitable tool (e.g. `file`, `xxd | head`) to inspect it."
        )
    if size == 0:
        return ToolResult(f"{shown} is empty (0 bytes).", details={"path": shown, "lines": 0})
    out: list[str] = []
    used = 0
    last = offset - 1
    total = 0
    capped = False
    with path.open("r", encoding="utf-8", errors="replace", newline="") as fh:
        for total, line in enumerate(fh, start=1):
            if total < offset or total >= offset + limit or capped:
                continue
            text = line.rstrip("\r\n")
            if len(text) > MAX_LINE_CHARS:
                text = f"{text[:MAX_LINE_CHARS]}… [line cut at {MAX_LINE_CHARS} of {len(text)} characters]"
            entry = f"{total:>6}\t{text}"
            if used + len(entry) > MAX_OUTPUT_CHARS and out:
                capped = True
                continue
            out.append(entry)
            used += len(entry) + 1
            last = total
    if offset > total:
        raise FileToolError(f"offset {offset} is past the end of {shown}, which has {total} lines.")
    body = "\n".join(out)
    if last < total:
        why = f"output capped at {MAX_OUTPUT_CHARS} characters; " if capped else ""
        body += (
            f"\n[{why}showed lines {offset}-{last} of {total}; "
            f"call read_file with offset={last + 1} to read on]"
        )
    return ToolResult(body, details={"path": shown, "lines": total, "first": offset, "last": last})


def sniff_media_type(path: Path, head: bytes) -> str | None:
    """``None`` for text; a media type for images and other binary content."""
    signatures = {
        b"\x89PNG\r\n\x1a\n": "image/png",
        b"\xff\xd8\xff": "image/jpeg",
        b"GIF87a": "image/gif",
        b"GIF89a": "image/gif",
        b"%PDF-": "application/pdf",
    }
    for magic, media in signatures.items():
        if head.startswith(magic):
            return media
    if head[:4] == b"RIFF" and head[8:12] == b"WEBP":
        return "image/webp"
    if b"\x00" in head:
        return mimetypes.guess_type(path.name)[0] or "application/octet-stream"
    try:
        head.decode("utf-8")
    except UnicodeDecodeError as exc:
        if exc.start < len(head) - 4:  # not just a character cut at the sniff boundary
            return mimetypes.guess_type(path.name)[0] or "application/octet-stream (not UTF-8 text)"
    return None


def list_directory(path: Path, shown: str) -> ToolResult:
    """Entries of a directory: directories end in ``/``, symlinks show their target."""
    if not path.exists():
        raise FileToolError(f"No such directory: {shown}. Use list_dir on a parent or glob to find it.")
    if not path.is_dir():
        raise FileToolError(f"{shown} is a file, not a directory; use read_file to read it.")
    entries = sorted(os.scandir(path), key=lambda e: (not e.is_dir(), e.name))
    lines = []
    for entry in entries[:MAX_LIST_ENTRIES]:
        if entry.is_symlink():
            lines.append(f"{entry.name}@ -> {os.readlink(entry.path)}")
        elif entry.is_dir():
            lines.append(entry.name + "/")
        else:
            try:
                size = entry.stat().st_size
            except OSError:
                size = 0
            lines.append(f"{entry.name}  ({_human(size)})")
    if len(entries) > MAX_LIST_ENTRIES:
        lines.append(f"[{len(entries) - MAX_LIST_ENTRIES} more entries not shown]")
    body = "\n".join(lines) if lines else "(empty directory)"
    return ToolResult(f"{shown}/\n{body}", details={"path": shown, "entries": len(entries)})


def write_text(path: Path, shown: str, content: str) -> ToolResult:
    """Create or overwrite a file with ``content``; parent directories are created."""
    if path.is_dir():
        raise FileToolError(f"{shown} is a directory; give a file path to write.")
    old = _read_for_edit(path, shown) if path.exists() else None
    path.parent.mkdir(parents=True, exist_ok=True)
    _atomic_write(path, content)
    diff = unified_diff(old or "", content, shown, new_file=old is None)
    lines = content.count("\n") + (0 if content.endswith("\n") or not content else 1)
    verb = "Created" if old is None else "Overwrote"
    text = f"{verb} {shown} ({len(content.encode())} bytes, {lines} line{'' if lines == 1 else 's'})."
    if old is not None and diff:
        text += "\n" + _cap(diff)
    return ToolResult(text, details={"path": shown, "diff": diff, "created": old is None})


def edit_text(path: Path, shown: str, old_string: str, new_string: str, replace_all: bool) -> ToolResult:
    """Replace ``old_string`` exactly once (or everywhere with ``replace_all``)."""
    if not path.exists():
        raise FileToolError(f"No such file: {shown}. To create a file use write_file.")
    _require_file(path, shown)
    text = _read_for_edit(path, shown)
    new_text, n = replace_text(text, old_string, new_string, replace_all, shown)
    _atomic_write(path, new_text)
    return edit_result(text, new_text, n, shown)


def replace_text(
    text: str, old_string: str, new_string: str, replace_all: bool, shown: str
) -> tuple[str, int]:
    """``text`` with ``old_string`` replaced (exactly once, or everywhere with
    ``replace_all``) and the number of replacements; :class:`FileToolError` says
    how to fix an edit that does not apply. Shared by every ``edit_file``
    (the editor-backed one of ``agent-shell acp`` too)."""
    if old_string == "":
        raise FileToolError("old_string is empty. To create or overwrite a whole file use write_file.")
    if old_string == new_string:
        raise FileToolError("old_string and new_string are the same; there is nothing to change.")
    count = text.count(old_string)
    if count == 0:
        raise FileToolError(_not_found_message(text, old_string, shown))
    if count > 1 and not replace_all:
        where = _lines_of(text, old_string)
        raise FileToolError(
            f"old_string matches {count} times in {shown} (at lines {', '.join(map(str, where[:10]))}). "
            "Add surrounding lines to old_string so it matches exactly once, "
            "or set replace_all=true to change every occurrence."
        )
    return text.replace(old_string, new_string, -1 if replace_all else 1), count if replace_all else 1


def edit_result(text: str, new_text: str, n: int, shown: str) -> ToolResult:
    """What ``edit_file`` tells the model: the count and the diff."""
    diff = unified_diff(text, new_text, shown)
    summary = f"Edited {shown}: {n} replacement{'s' if n != 1 else ''}.\n{_cap(diff)}"
    return ToolResult(summary, details={"path": shown, "diff": diff, "replacements": n})


def unified_diff(old: str, new: str, shown: str, *, new_file: bool = False) -> str:
    """A ``git diff``-style unified diff; a missing final newline is marked as git does."""
    a = _diff_lines(old)
    b = _diff_lines(new)
    fromfile = "/dev/null" if new_file else f"a/{shown}"
    return "".join(difflib.unified_diff(a, b, fromfile=fromfile, tofile=f"b/{shown}"))


def _diff_lines(text: str) -> list[str]:
    lines = text.splitlines(keepends=True)
    if lines and not lines[-1].endswith(("\n", "\r")):
        lines[-1] += "\n\\ No newline at end of file\n"
    return lines


def _not_found_message(text: str, old_string: str, shown: str) -> str:
    base = f"old_string was not found in {shown}."
    squeezed = " ".join(old_string.split())
    if squeezed and squeezed in " ".join(text.split()):
        return (
            f"{base} A match exists if whitespace is ignored: copy the exact indentation and line "
            "breaks from read_file output (without the line-number prefix)."
        )
    return f"{base} Read the file again with read_file and copy the exact text, including whitespace."


def _lines_of(text: str, needle: str) -> list[int]:
    lines, start = [], 0
    while (i := text.find(needle, start)) != -1:
        lines.append(text.count("\n", 0, i) + 1)
        start = i + 1
    return lines


def _require_file(path: Path, shown: str) -> None:
    if not path.exists():
        raise FileToolError(f"No such file: {shown}. Use list_dir or glob to find the right path.")
    if path.is_dir():
        raise FileToolError(f"{shown} is a directory; use list_dir to see what is in it.")
    if not path.is_file():
        raise FileToolError(f"{shown} is not a regular file (a pipe, socket or device); it cannot be read.")


def _read_for_edit(path: Path, shown: str) -> str:
    data = path.read_bytes()
    if sniff_media_type(path, data[:SNIFF_BYTES]) is not None:
        raise FileToolError(f"{shown} is a binary file; the edit tools change text files only.")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        raise FileToolError(f"{shown} is not valid UTF-8; the edit tools change UTF-8 text only.") from None


def _atomic_write(path: Path, content: str) -> None:
    """Write through a temporary file and rename, so a crash never leaves half a file."""
    mode = stat.S_IMODE(path.stat().st_mode) if path.exists() else None
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="") as fh:
            fh.write(content)
        if mode is not None:
            os.chmod(tmp, mode)
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


def _cap(text: str) -> str:
    if len(text) <= MAX_DIFF_CHARS:
        return text
    return text[:MAX_DIFF_CHARS] + f"\n[diff cut at {MAX_DIFF_CHARS} of {len(text)} characters]"


def _human(size: int) -> str:
    value = float(size)
    for unit in ("B", "KB", "MB", "GB"):
        if value < 1024 or unit == "GB":
            return f"{int(value)} {unit}" if unit == "B" else f"{value:.1f} {unit}"
        value /= 1024
    return f"{size} B"
