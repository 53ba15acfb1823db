"""What ``read_file`` and ``list_dir`` do, on paths the workspace already resolved and
allowed.

Plain synchronous functions (the tools run them in a worker thread) that return a
:class:`ToolResult` or raise :class:`FileToolError` whose message tells the model
what went wrong and what to do next. Reading is bounded (line window, per-line and
total caps; a 400 MB single line is read in pieces, never whole) and binary files are
recognised instead of dumped. Files are opened through :mod:`.nofollow` (no symlink
swapped in since the check is followed); changes are :mod:`.file_edits`' part.
"""

from __future__ import annotations

import codecs
import errno
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from shell.core.messages import DataBlock, TextBlock, ToolResult
from shell.core.textsafety import path_text
from shell.permissions.configcreds import Scrubber, scrubber

from .nofollow import FileToolError, PathChanged, open_regular, open_resolved
from .sniff import legacy_encoding, sniff_media_type

MAX_LINES = 2000
"""Lines ``read_file`` returns when no ``limit`` is given."""
MAX_LINE_CHARS = 2000
MAX_OUTPUT_CHARS = 100_000
MAX_IMAGE_BYTES = 5 * 1024 * 1024
MAX_LIST_ENTRIES = 1000
SNIFF_BYTES = 8192
IMAGE_TYPES = {"image/png", "image/jpeg", "image/gif", "image/webp"}
SKIP_CHUNK = 1 << 20
"""Bytes read at a time while skipping the rest of an over-long line."""


def model_view(path: Path, text: str) -> tuple[str, str]:
    """``text`` of the file ``path`` as the model may read it, and a line saying what
    was taken out: a git config or an MCP servers' file without its credentials
    (:mod:`shell.permissions.configcreds`); anything else as it is."""
    how = scrubber(path)
    if how is None:
        return text, ""
    clean = how.clean(text)
    changed = sum(a != b for a, b in zip(text.splitlines(), clean.splitlines(), strict=False))
    return clean, how.note(changed) if changed else ""


def read_text_window(path: Path, shown: str, offset: int, limit: int) -> ToolResult:
    """Lines ``offset`` .. ``offset + limit - 1`` (1-based), numbered like ``cat -n``."""
    if offset < 1:
        raise FileToolError(f"offset must be 1 or more (the first line is 1), not {offset}.")
    if limit < 1:
        raise FileToolError(f"limit must be 1 or more, not {limit}.")
    with open_regular(path, shown) as fh:
        size = os.fstat(fh.fileno()).st_size
        head = fh.read(SNIFF_BYTES)
        media = sniff_media_type(path, head)
        if media in IMAGE_TYPES:
            if size > MAX_IMAGE_BYTES:
                raise FileToolError(
                    f"{shown} is a {media} image of {size} bytes, over the {MAX_IMAGE_BYTES} byte limit."
                )
            note = TextBlock(f"{shown}: {media} image, {size} bytes.")
            image = head + fh.read(MAX_IMAGE_BYTES)
            return ToolResult((note, DataBlock(media, image)), details={"path": shown})
        legacy = legacy_encoding(head) if media is not None else None
        if media is not None and legacy is None:
            raise FileToolError(
                f"{shown} is a binary file ({media}, {size} bytes); read_file shows text only. "
                "Use run_shell with a suitable tool (e.g. `file`, `xxd | head`) to inspect it."
            )
        if size == 0:
            return ToolResult(f"{shown} is empty (0 bytes).", details={"path": shown, "lines": 0})
        fh.seek(0)
        return _window(fh, shown, offset, limit, scrubber(path), legacy or "utf-8")


def _lines(fh: Any, encoding: str = "utf-8") -> Iterator[tuple[str, int | None]]:
    """Each line's text (its end of line stripped), with ``None``, or, for a line of
    more than ``MAX_LINE_CHARS`` characters, its first ``MAX_LINE_CHARS`` and its
    whole length in bytes. The rest of a long line is read on in pieces of
    ``SKIP_CHUNK`` bytes and never held whole."""
    limit = MAX_LINE_CHARS * 4 + 4  # bytes enough for MAX_LINE_CHARS characters of UTF-8
    while True:
        piece: bytes = fh.readline(limit)
        if not piece:
            return
        size = len(piece)
        if not piece.endswith(b"\n"):
            while True:  # the rest of an over-long line: counted, not kept
                rest: bytes = fh.readline(SKIP_CHUNK)
                size += len(rest)
                if not rest or rest.endswith(b"\n"):
                    break
        ending = len(piece) - len(piece.rstrip(b"\r\n")) if size == len(piece) else 0
        text = codecs.decode(piece, encoding, "replace").rstrip("\r\n")
        if size > len(piece) or len(text) > MAX_LINE_CHARS:
            yield text[:MAX_LINE_CHARS], size - (ending or (1 if size > len(piece) else 0))
        else:
            yield text, None


def _window(
    fh: Any, shown: str, offset: int, limit: int, clean: Scrubber | None = None,
    encoding: str = "utf-8",
) -> ToolResult:
    """The lines asked for, each through ``clean`` when given (a config's credentials:
    see :mod:`shell.permissions.configcreds`)."""
    out: list[str] = []
    scrubbed = 0
    used = 0
    last = offset - 1
    total = 0
    capped = False
    for total, (text, cut) in enumerate(_lines(fh, encoding), start=1):
        if total < offset or total >= offset + limit or capped:
            continue
        if clean is not None and (kept := clean.clean(text)) != text:
            text, scrubbed = kept, scrubbed + 1
        if cut is not None:
            text = f"{text}… [line cut at {MAX_LINE_CHARS} characters; the whole line is {cut:,} bytes]"
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
    if scrubbed and clean is not None:
        body += "\n" + clean.note(scrubbed)
    if encoding != "utf-8":
        body += (f"\n[{shown} is not UTF-8: read as {encoding} (Windows-1252 / Latin-1 text); "
                 "edit_file changes UTF-8 files only]")
    return ToolResult(body, details={"path": shown, "lines": total, "first": offset, "last": last})


def list_directory(path: Path, shown: str) -> ToolResult:
    """Entries of a directory: directories end in ``/``, symlinks show their target
    (a symlink loop says so; it never fails the listing)."""
    try:
        fd = open_resolved(path, os.O_RDONLY | os.O_DIRECTORY | os.O_NONBLOCK, shown=shown)
    except FileToolError as exc:
        if isinstance(exc, PathChanged):
            raise
        raise FileToolError(
            f"No such directory: {shown}. Use list_dir on a parent or glob to find it."
        ) from None
    except NotADirectoryError:
        raise FileToolError(f"{shown} is a file, not a directory; use read_file to read it.") from None
    try:
        with os.scandir(fd) as it:
            found = [(path_text(entry.name), _kind(entry, fd)) for entry in it]
    finally:
        os.close(fd)
    found.sort(key=lambda e: (e[1][0] != "dir", e[0]))
    lines = []
    for name, (kind, detail) in found[:MAX_LIST_ENTRIES]:
        if kind == "link":
            lines.append(f"{name}@ -> {path_text(detail)}")
        elif kind == "dir":
            lines.append(name + "/")
        else:
            lines.append(f"{name}  ({detail})")
    if len(found) > MAX_LIST_ENTRIES:
        lines.append(f"[{len(found) - MAX_LIST_ENTRIES} more entries not shown]")
    body = "\n".join(lines) if lines else "(empty directory)"
    return ToolResult(f"{shown}/\n{body}", details={"path": shown, "entries": len(found)})


def _kind(entry: os.DirEntry[str], dir_fd: int) -> tuple[str, str]:
    """``(dir|link|file, detail)`` without following symlinks; a loop is named as one."""
    try:
        if entry.is_symlink():
            target = os.readlink(entry.name, dir_fd=dir_fd)
            try:
                os.stat(entry.name, dir_fd=dir_fd)
            except OSError as exc:
                if exc.errno == errno.ELOOP:
                    return "link", f"{target} (a symlink loop)"
                return "link", f"{target} (broken)"
            return "link", target
        if entry.is_dir(follow_symlinks=False):
            return "dir", ""
        return "file", _human(entry.stat(follow_symlinks=False).st_size)
    except OSError:
        return "file", "unreadable"


def _human(size: int) -> str:
    value = float(size)
    for unit in ("B", "KB", "MB", "GB"):
        if value < 1024 or unit == "GB":
            return f"{int(value)} {unit}" if unit == "B" else f"{value:.1f} {unit}"
        value /= 1024
    return f"{size} B"
