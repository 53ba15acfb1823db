"""What the file tools do, on paths the workspace already resolved and allowed.

Plain synchronous functions (the tools run them in a worker thread) that return a
:class:`ToolResult` or raise :class:`FileToolError` whose message tells the model
what went wrong and what to do next. Reading is bounded (line window, per-line and
total caps; a 400 MB single line is read in pieces, never whole), binary files are
recognised instead of dumped, and every change returns a unified diff, also in
``details["diff"]`` for the TUI to render.

The paths come resolved (no symlink left in them) from the workspace check, but a
path can change between that check and the use: a directory swapped for a
symlink to ``/etc``. So every open walks the path one component at a time from
``/`` with ``O_NOFOLLOW`` (:func:`open_resolved`): a symlink that appeared since
is refused, never followed. Writes go through a temporary file created in the
parent directory's file descriptor and renamed there; a new file gets the mode
the umask gives (``0666 & ~umask``), an existing one keeps its own.
"""

from __future__ import annotations

import codecs
import contextlib
import errno
import os
import re
import secrets
import stat
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, BinaryIO

from shell.core import linediff
from shell.core.messages import DataBlock, TextBlock, ToolResult
from shell.core.secrets import is_secret_file
from shell.core.textsafety import path_text
from shell.permissions.gitcreds import is_git_config, scrub, scrub_note

from .sniff import legacy_encoding, sniff_media_type

MAX_LINES = 2000
"""Lines ``read_file`` returns when no ``limit`` is given."""
MAX_LINE_CHARS = 2000
MAX_OUTPUT_CHARS = 100_000
MAX_IMAGE_BYTES = 5 * 1024 * 1024
MAX_LIST_ENTRIES = 1000
MAX_DIFF_CHARS = 50_000
SNIFF_BYTES = 8192
IMAGE_TYPES = {"image/png", "image/jpeg", "image/gif", "image/webp"}

Denied = Callable[[str], str]
"""The deny rule that keeps the model from reading a path (``deny read_file(secrets/**)``),
or empty: the permission policy's answer (:meth:`Workspace.read_denied`)."""

Keep = Callable[[Path, "bytes | None"], None]
"""Told a file's content just before a tool changes it (None: it does not exist yet),
so a checkpoint can put it back (see :mod:`shell.tools.changes`)."""


SKIP_CHUNK = 1 << 20
"""Bytes read at a time while skipping the rest of an over-long line."""
READ_FLAGS = os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC  # NONBLOCK: a FIFO must not hang the open


class FileToolError(Exception):
    """A file tool could not do what was asked; the message says how to recover."""


class PathChanged(FileToolError):
    """A symlink appeared in a path between the workspace check and its use."""


def open_resolved(path: Path, flags: int = READ_FLAGS, mode: int = 0o666, *, shown: str = "") -> int:
    """Open the resolved, absolute ``path`` without following any symlink in it.

    Walks from ``/`` one component at a time (``openat`` with ``O_NOFOLLOW``);
    since ``path`` had no symlink when it was checked, one found now was swapped
    in meanwhile and the open is refused with :class:`PathChanged`."""
    parts = path.parts
    if path.is_absolute() and len(parts) == 1:  # "/" itself (a workspace at the root): no link in it
        return os.open(parts[0], flags | os.O_CLOEXEC, mode)
    if not path.is_absolute() or len(parts) < 2:
        raise FileToolError(f"{shown or path} is not a file path.")
    fd = os.open(parts[0], os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    last = False
    try:
        for part in parts[1:-1]:
            step = os.open(part, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC, dir_fd=fd)
            os.close(fd)
            fd = step
        last = True
        return os.open(parts[-1], flags | os.O_NOFOLLOW | os.O_CLOEXEC, mode, dir_fd=fd)
    except OSError as exc:
        if exc.errno == errno.ENOTDIR and last:
            raise  # the file itself is not a directory: the caller says so
        if exc.errno in (errno.ELOOP, errno.ENOTDIR, errno.EMLINK):
            raise PathChanged(
                f"{shown or path} changed while it was being opened (a symlink appeared in its path); "
                "it was not opened. Check the path with list_dir and try again."
            ) from None
        if exc.errno == errno.ENOENT:
            raise FileToolError(
                f"No such file: {shown or path}. Use list_dir or glob to find the right path."
            ) from None
        raise
    finally:
        os.close(fd)


def open_parent(path: Path, shown: str = "") -> int:
    """The directory holding ``path``, opened as :func:`open_resolved` opens files."""
    return open_resolved(path.parent, os.O_RDONLY | os.O_DIRECTORY, shown=shown)


def model_view(path: Path, text: str) -> tuple[str, str]:
    """``text`` of the file ``path`` as the model may read it, and a line saying what
    was taken out: a git config without its credentials; anything else as it is."""
    if not is_git_config(path):
        return text, ""
    clean = scrub(text)
    changed = sum(a != b for a, b in zip(text.splitlines(), clean.splitlines(), strict=False))
    return clean, scrub_note(changed) if changed else ""


def read_text_window(path: Path, shown: str, offset: int, limit: int) -> ToolResult:
    """Lines ``offset`` .. ``offset + limit - 1`` (1-based), numbered like ``cat -n``."""
    if offset < 1:
        raise FileToolError(f"offset must be 1 or more (the first line is 1), not {offset}.")
    if limit < 1:
        raise FileToolError(f"limit must be 1 or more, not {limit}.")
    with _open_file(path, shown) as fh:
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
        return _window(fh, shown, offset, limit, scrub if is_git_config(path) else None, legacy or "utf-8")


def _open_file(path: Path, shown: str) -> BinaryIO:
    """A regular file, opened without following a swapped symlink (see the module docstring)."""
    fd = open_resolved(path, shown=shown)
    info = os.fstat(fd)
    if stat.S_ISDIR(info.st_mode):
        os.close(fd)
        raise FileToolError(f"{shown} is a directory; use list_dir to see what is in it.")
    if not stat.S_ISREG(info.st_mode):
        os.close(fd)
        raise FileToolError(f"{shown} is not a regular file (a pipe, socket or device); it cannot be read.")
    return os.fdopen(fd, "rb")


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
    fh: Any, shown: str, offset: int, limit: int, clean: Callable[[str], str] | None = None,
    encoding: str = "utf-8",
) -> ToolResult:
    """The lines asked for, each through ``clean`` when given (a git config's
    credentials: see :mod:`shell.permissions.gitcreds`)."""
    out: list[str] = []
    scrubbed = 0
    used = 0
    last = offset - 1
    total = 0
    capped = False
    for total, (text, cut) in enumerate(_lines(fh, encoding), start=1):
        if total < offset or total >= offset + limit or capped:
            continue
        if clean is not None and (kept := clean(text)) != text:
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
    if scrubbed:
        body += "\n" + scrub_note(scrubbed)
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


def write_text(
    path: Path, shown: str, content: str, keep: Keep | None = None, denied: Denied | None = None
) -> ToolResult:
    """Create or overwrite a file with ``content``; parent directories are created.
    ``keep`` hears the old content first; ``denied``: see :func:`_model_diff`."""
    path.parent.mkdir(parents=True, exist_ok=True)
    try:
        old: str | None = _read_for_edit(path, shown)
    except _Missing:
        old = None
    if keep is not None:
        keep(path, None if old is None else old.encode("utf-8"))
    _atomic_write(path, content, shown)
    text, diff = write_summary(path, shown, old, content, denied)
    return ToolResult(text, details={"path": shown, "diff": diff, "created": old is None})


def write_summary(
    path: Path, shown: str, old: str | None, content: str, denied: Denied | None = None
) -> tuple[str, str]:
    """What ``write_file`` tells the model (what it did, the diff as :func:`_model_diff`
    lets it read) and the whole diff (for the user's view). Shared by every
    ``write_file`` (the editor-backed one of ``agent-shell acp`` too)."""
    diff = unified_diff(old or "", content, shown, new_file=old is None)
    lines = content.count("\n") + (0 if content.endswith("\n") or not content else 1)
    verb = "Created" if old is None else "Overwrote"
    text = f"{verb} {shown} ({len(content.encode())} bytes, {lines} line{'' if lines == 1 else 's'})."
    if old is not None and diff:
        text += "\n" + _model_diff(path, old, content, shown, diff, denied)
    return text, diff


def edit_text(
    path: Path,
    shown: str,
    old_string: str,
    new_string: str,
    replace_all: bool,
    keep: Keep | None = None,
    denied: Denied | None = None,
) -> ToolResult:
    """Replace ``old_string`` exactly once (or everywhere with ``replace_all``);
    ``keep`` hears the old content first; ``denied``: see :func:`_model_diff`."""
    try:
        text = _read_for_edit(path, shown)
    except _Missing:
        raise FileToolError(f"No such file: {shown}. To create a file use write_file.") from None
    new_text, n = replace_text(text, old_string, new_string, replace_all, shown)
    if keep is not None:
        keep(path, text.encode("utf-8"))
    _atomic_write(path, new_text, shown)
    return edit_result(text, new_text, n, shown, path, denied)


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
    if "\r\n" in text and text.count("\n") == text.count("\r\n"):  # a CRLF file stays CRLF
        if _crlf(old_string) in text:
            old_string = _crlf(old_string)
        new_string = _crlf(new_string)
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


def _crlf(text: str) -> str:
    """``text`` with its bare ``\n`` line ends as ``\r\n``: the model writes ``\n``
    whatever the file uses, and a Windows file must not end up with mixed endings."""
    return re.sub(r"(?<!\r)\n", "\r\n", text)


def edit_result(
    text: str, new_text: str, n: int, shown: str, path: Path, denied: Denied | None = None
) -> ToolResult:
    """What ``edit_file`` tells the model: the count and the diff (see :func:`_model_diff`)."""
    diff = unified_diff(text, new_text, shown)
    told = _model_diff(path, text, new_text, shown, diff, denied)
    summary = f"Edited {shown}: {n} replacement{'s' if n != 1 else ''}.\n{told}"
    return ToolResult(summary, details={"path": shown, "diff": diff, "replacements": n})


def _model_diff(
    path: Path, old: str, new: str, shown: str, diff: str, denied: Denied | None = None
) -> str:
    """The diff as the model reads it. Of a file that usually holds secrets, none:
    its old lines are the secrets (an edit of ``.env`` would hand every key to the
    provider; the user's view keeps the diff, in ``details``). None either of a file
    a deny rule keeps from the model (``denied``: ``deny read_file(secrets/**)``): its
    old lines are what the rule is there to keep. Of a git config, the diff of the two
    versions without credentials."""
    if is_secret_file(shown) or is_secret_file(str(path)):
        return (f"[the diff is not shown: {shown} usually holds secrets, and its old lines would go to "
                "the model's provider]")
    rule = denied(str(path)) if denied is not None else ""
    if rule:
        return f"[the diff is not shown: {rule} denies reading {shown}]"
    if is_git_config(path):
        return _cap(unified_diff(scrub(old), scrub(new), shown))
    return _cap(diff)


def unified_diff(old: str, new: str, shown: str, *, new_file: bool = False) -> str:
    """A ``git diff``-style unified diff; a missing final newline is marked as git does.
    Computed in bounded work and cut past :data:`~shell.core.linediff.MAX_DIFF_LINES`
    lines (a 100 000-line rewrite would otherwise keep the tool busy for minutes)."""
    a = _diff_lines(old)
    b = _diff_lines(new)
    fromfile = "/dev/null" if new_file else f"a/{shown}"
    return "".join(linediff.unified_diff(a, b, fromfile, f"b/{shown}"))  # bounded in time and size


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


class _Missing(FileToolError):
    """The file does not exist (yet)."""


def _read_for_edit(path: Path, shown: str) -> str:
    try:
        fh = _open_file(path, shown)
    except FileToolError as exc:
        if isinstance(exc, PathChanged) or not str(exc).startswith("No such file"):
            raise
        raise _Missing(str(exc)) from None
    with fh:
        data: bytes = fh.read()
    if sniff_media_type(path, data[:SNIFF_BYTES]) is not None:
        if (legacy := legacy_encoding(data[:SNIFF_BYTES])) is not None:
            raise FileToolError(
                f"{shown} is {legacy} (Windows-1252 / Latin-1) text, not UTF-8; the edit tools change "
                "UTF-8 files only, so it was left as it is. Convert it first (run_shell: "
                f"iconv -f {legacy} -t utf-8), or rewrite it whole with write_file (which writes UTF-8)."
            )
        raise FileToolError(f"{shown} is a binary file; the edit tools change text files only.")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        raise FileToolError(f"{shown} is not valid UTF-8; the edit tools change UTF-8 text only.") from None


def read_back(path: Path) -> bytes | None:
    """What a tool just wrote at the resolved ``path`` (None: it is not a regular file
    now, or it cannot be read), without following a symlink."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError:
        return None
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return None
        with os.fdopen(os.dup(fd), "rb") as fh:
            return fh.read()
    except OSError:
        return None
    finally:
        os.close(fd)


def restore_file(path: Path, data: bytes, mode: int | None, shown: str = "") -> None:
    """Put ``data`` back at the resolved ``path`` (a rewind): missing parent
    directories are made and every component is opened without following a
    symlink, so a link planted since cannot redirect the write outside; written
    through a temporary file and renamed, with ``mode`` when given."""
    make_parents(path, shown)
    _atomic_write(path, data, shown, mode=mode)


def remove_file(path: Path, shown: str = "") -> bool:
    """Delete the file (or symlink) at the resolved ``path``, through its parent's
    descriptor (a rewind of a file the agent created). False: it was not there."""
    try:
        parent = open_parent(path, shown)
    except FileToolError:
        return False
    try:
        info = os.stat(path.name, dir_fd=parent, follow_symlinks=False)
        if stat.S_ISDIR(info.st_mode):
            raise FileToolError(f"{shown or path} is a directory now; it was left as it is.")
        os.unlink(path.name, dir_fd=parent)
        return True
    except FileNotFoundError:
        return False
    finally:
        os.close(parent)


def make_parents(path: Path, shown: str = "") -> None:
    """Create the missing directories above the resolved ``path``, one component
    at a time from ``/`` without following symlinks (:class:`PathChanged` if one is
    in the way)."""
    parts = path.parts[:-1]
    fd = os.open(parts[0], os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    try:
        for part in parts[1:]:
            flags = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
            try:
                step = os.open(part, flags, dir_fd=fd)
            except FileNotFoundError:
                with contextlib.suppress(FileExistsError):
                    os.mkdir(part, 0o777, dir_fd=fd)
                try:
                    step = os.open(part, flags, dir_fd=fd)
                except OSError:
                    raise PathChanged(f"{shown or path}: a directory in its path could not be made") from None
            except OSError as exc:
                if exc.errno in (errno.ELOOP, errno.ENOTDIR):
                    raise PathChanged(
                        f"{shown or path} changed (a symlink or a file is in its path); it was not written."
                    ) from None
                raise
            os.close(fd)
            fd = step
    finally:
        os.close(fd)


def _atomic_write(path: Path, content: str | bytes, shown: str = "", *, mode: int | None = None) -> None:
    """Write through a temporary file and rename, both inside the parent directory's
    file descriptor, so a crash never leaves half a file and a swapped symlink is
    replaced, never written through. A new file gets ``0666 & ~umask`` (the kernel
    applies the umask), an existing one keeps its mode (``mode`` overrides both)."""
    parent = open_parent(path, shown)
    try:
        if mode is None:
            try:
                mode = stat.S_IMODE(os.stat(path.name, dir_fd=parent, follow_symlinks=False).st_mode)
            except FileNotFoundError:
                mode = None
        tmp = f".{path.name}.{secrets.token_hex(4)}.tmp"
        flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC
        fd = os.open(tmp, flags, 0o666, dir_fd=parent)
        try:
            with os.fdopen(fd, "wb") as fh:
                if mode is not None:
                    os.fchmod(fh.fileno(), mode)
                fh.write(content.encode("utf-8") if isinstance(content, str) else content)
            os.replace(tmp, path.name, src_dir_fd=parent, dst_dir_fd=parent)
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(tmp, dir_fd=parent)
            raise
    finally:
        os.close(parent)


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
