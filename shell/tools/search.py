"""``glob`` and ``grep``: finding files and lines, skipping what git ignores.

Both walk the tree with :func:`shell.tools.ignore.walk_entries`, so ``.gitignore``d
files and ``.git`` never show up, and both cap what they return and say how much
more there was, so one broad search cannot flood the model's context.

A search cannot freeze the shell. ``grep`` patterns come from a model, and
Python's backtracking engine takes exponential time on some (``(-+)+x`` over a
line of dashes) while holding the GIL, so nothing else runs, not even Esc or the
tool's timeout. grep therefore matches with RE2, whose time is linear in the
text: one pass over each file's bytes. RE2 has no look-around and no
backreferences; such a pattern is refused with a message saying so. A symlink
loop is skipped and said, never fatal; files are opened through their
directory's file descriptor without following a symlink swapped in.
"""

from __future__ import annotations

import errno
import os
import stat
from collections.abc import Callable, Iterator
from pathlib import Path, PurePosixPath
from typing import Any

from shell.core.messages import ToolResult
from shell.core.secretcontent import secret_content_why
from shell.core.secrets import BY_FOLDER, is_secret_file
from shell.permissions.configcreds import Scrubber, scrubber

from .files import SNIFF_BYTES
from .ignore import Found, WalkStats, glob_to_regex, walk_entries
from .nofollow import READ_FLAGS, FileToolError, PathChanged, open_resolved
from .sniff import as_utf8

MAX_GLOB_RESULTS = 500
MAX_GREP_MATCHES = 200
MAX_MATCH_CHARS = 300
MAX_GREP_FILE_BYTES = 20 * 1024 * 1024
RE2_MEMORY = 64 << 20


def glob_files(base: Path, pattern: str, ignore_root: Path, show: Callable[[Path], str]) -> ToolResult:
    """Files below ``base`` whose path relative to ``base`` matches ``pattern``."""
    _check_pattern(pattern)
    if not base.is_dir():
        raise FileToolError(f"{show(base)} is not a directory; give glob a directory as path.")
    regex = glob_to_regex(pattern.removeprefix("./"))
    stats = WalkStats()
    found = [f.path for f in _walk(base, ignore_root, stats) if regex.match(f.rel)]
    lines = [show(f) for f in found[:MAX_GLOB_RESULTS]]
    if len(found) > MAX_GLOB_RESULTS:
        lines.append(f"[{len(found) - MAX_GLOB_RESULTS} more files not shown; use a narrower pattern]")
    if not found:
        hint = f" Use '**/{pattern}' to search subdirectories too." if "/" not in pattern else ""
        lines.append(f"No files match {pattern!r} in '{show(base)}'.{hint}")  # not "in .."
    notes = stats.notes()
    if stats.ignored:
        notes.append(f"{stats.ignored} paths ignored by .gitignore were not searched")
    if notes:
        lines.append(f"({'; '.join(notes)})")
    return ToolResult("\n".join(lines), details={"count": len(found)})


def compile_pattern(pattern: str) -> Any:
    """``pattern`` as an RE2 expression over UTF-8 bytes, line by line (``^`` and
    ``$`` at each line's ends, nothing matches across a line break);
    :class:`FileToolError` with what to change when RE2 cannot take it."""
    import re2  # type: ignore[import-untyped]  # at the first search: ~3-4 ms off the start

    options = re2.Options()
    options.log_errors = False  # RE2 would write to the terminal under the TUI
    options.never_nl = True
    options.max_mem = RE2_MEMORY
    try:
        return re2.compile(("(?m)" + pattern).encode("utf-8"), options=options)
    except UnicodeEncodeError:
        raise FileToolError("The pattern has a lone surrogate in it; it cannot be searched for.") from None
    except re2.error as exc:
        raise FileToolError(_pattern_message(pattern, exc)) from None


def _pattern_message(pattern: str, exc: Exception) -> str:
    why = exc.args[0].decode("utf-8", "replace") if exc.args and isinstance(exc.args[0], bytes) else str(exc)
    lookaround = "invalid perl operator" in why and any(s in pattern for s in ("(?=", "(?!", "(?<"))
    backreference = "invalid escape sequence" in why and any(f"\\{d}" in pattern for d in "123456789")
    unsupported = lookaround or backreference
    if unsupported:
        return (
            f"grep cannot use {pattern!r}: look-around ((?=, (?!, (?<=, (?<!) and backreferences (\\1) are "
            "not supported, because grep uses RE2 syntax, which always finishes in time linear in the "
            "text. Rewrite the pattern without them (e.g. search for the wider text and read the "
            "matching lines), or use run_shell with `grep -P` for a one-off."
        )
    if "pattern too large" in why:
        return f"The pattern {pattern!r} is too large to search with; make it shorter or simpler."
    return (
        f"Invalid regular expression {pattern!r}: {why}. grep uses RE2 syntax (much like Python's `re`); "
        "escape characters such as ( [ { . * + ? with a backslash to match them literally."
    )


def grep_files(
    base: Path,
    pattern: str,
    file_glob: str | None,
    ignore_root: Path,
    show: Callable[[Path], str],
    allowed: Callable[[Path], bool] = lambda _: True,
    denied: Callable[[str], str] = lambda _: "",
) -> ToolResult:
    """Lines matching the RE2 ``pattern`` in files below ``base`` (or in the file ``base``).

    ``allowed(real_path)`` guards symlinked files found on the way: one that points
    out of the workspace is skipped, so a search cannot read past the fence.
    ``denied(path)`` names the deny rule that keeps a file from the model (``deny
    read_file(secrets/**)``: the permission policy's answer); such files are not
    searched, and counted, so a grep does not read what read_file may not.
    """
    regex = compile_pattern(pattern)
    if not base.exists():
        raise FileToolError(f"No such file or directory: {show(base)}.")
    stats = WalkStats()
    shown: list[str] = []
    total = searched = skipped = outside = scrubbed = 0
    how: Scrubber | None = None  # the last file's credentials taken out, for the note
    left_out = {"secret": 0, "denied": 0}
    if base.is_dir():
        files: Iterator[Found] = _walk(base, ignore_root, stats)
        if file_glob:
            _check_pattern(file_glob)
            name_only = "/" not in file_glob
            g = glob_to_regex(file_glob)
            files = (f for f in files if g.match(f.name if name_only else f.rel))
    else:
        _refuse_denied(base, show, denied)
        files = iter([Found(base, "", -1, str(base), False)])
    walking = base.is_dir()
    for found in files:
        why = _left_out(found, denied) if walking else ""
        if why:
            left_out[why] += 1
            continue
        data = _read(found, allowed, stats)
        if data is None or isinstance(data, str):
            if data == "outside":
                outside += 1
            elif data == "skipped":
                skipped += 1
            continue
        searched += 1
        real = os.path.realpath(found.path) if found.is_symlink else None
        config = (scrubber(real) if real is not None else None) or scrubber(found.path)
        for number, line in _matching_lines(regex, data):
            total += 1
            if config is not None and (clean := config.clean(line)) != line:  # a token in a remote URL
                line, scrubbed, how = clean, scrubbed + 1, config
            if len(shown) < MAX_GREP_MATCHES:
                text = line if len(line) <= MAX_MATCH_CHARS else line[:MAX_MATCH_CHARS] + "…"
                shown.append(f"{show(found.path)}:{number}: {text}")
    out = shown or [f"No matches for {pattern!r} in {show(base)} ({searched} files searched)."]
    if total > len(shown):
        out.append(f"[{total - len(shown)} more matches not shown; narrow the search with path or glob]")
    outside += sum(1 for rel in stats.dir_links if _leads_out(base / rel, allowed))  # folders: not entered
    notes = _grep_notes(skipped, outside, left_out, stats)
    if notes:
        out.append(f"({'; '.join(notes)})")
    if scrubbed and how is not None:
        out.append(how.note(scrubbed))
    return ToolResult("\n".join(out), details={"matches": total, "files_searched": searched})


def _refuse_denied(base: Path, show: Callable[[Path], str], denied: Callable[[str], str]) -> None:
    """A file named alone that a deny rule keeps from the model is not searched (the
    policy denies such a call before it runs; this holds without it too)."""
    rule = denied(str(base))
    if rule:
        raise FileToolError(f"{show(base)} was not searched: {rule} denies reading it.")


def _left_out(found: Found, denied: Callable[[str], str]) -> str:
    """Why a file found in a tree is not searched: ``secret`` (named alone, the policy
    asks for such a file; in a tree it is left out, and counted), ``denied`` (a deny
    rule keeps it from the model; named alone, grep of it is denied), or empty."""
    where = str(found.path) if found.name.lower() in BY_FOLDER else found.name  # .idea/workspace.xml
    if is_secret_file(where) or _links_to_secret(found) or secret_content_why(str(found.path)):
        return "secret"  # by name, or by content: a key in notes.txt, a service account's JSON
    return "denied" if denied(str(found.path)) else ""


def _grep_notes(skipped: int, outside: int, left_out: dict[str, int], stats: WalkStats) -> list[str]:
    """What a search left out, and why."""
    secret, refused = left_out["secret"], left_out["denied"]
    notes = []
    if skipped:
        notes.append(f"{skipped} binary or oversized files skipped")
    if stats.ignored:
        notes.append(f"{stats.ignored} paths ignored by .gitignore")
    if outside:
        notes.append(f"{outside} symlink{'s' if outside != 1 else ''} leading out of the workspace skipped")
    if secret:
        what = "1 file that usually holds" if secret == 1 else f"{secret} files that usually hold"
        notes.append(f"{what} secrets (.env, keys) not searched; grep or read one by name and the user "
                     "is asked")
    if refused:
        what = "1 file a deny rule keeps" if refused == 1 else f"{refused} files deny rules keep"
        notes.append(f"{what} from being read not searched (/permissions lists the rules)")
    return notes + stats.notes()


def _walk(base: Path, ignore_root: Path, stats: WalkStats) -> Iterator[Found]:
    """The walk, from ``base`` opened without following a swapped symlink."""
    fd = open_resolved(base, os.O_RDONLY | os.O_DIRECTORY | os.O_NONBLOCK)
    try:
        yield from walk_entries(base, ignore_root, stats, start_fd=fd)
    finally:
        os.close(fd)


def _leads_out(link: Path, allowed: Callable[[Path], bool]) -> bool:
    """Whether a symlinked folder the walk did not enter leads out of the workspace
    (one that cannot be resolved, ``/proc/1/cwd``, counts as leading out)."""
    try:
        return not allowed(Path(os.path.realpath(link)))
    except OSError:
        return True


def _links_to_secret(found: Found) -> bool:
    """A link (``notes.txt -> .env``) whose target's name says it holds secrets."""
    return found.is_symlink and is_secret_file(os.path.realpath(found.path))


def _read(found: Found, allowed: Callable[[Path], bool], stats: WalkStats) -> bytes | str | None:
    """The file's bytes; ``"outside"``, ``"skipped"`` (binary, oversized, special) or
    None (gone, a loop: already counted) when it is not searched."""
    try:
        if found.is_symlink:
            try:
                real = found.path.resolve(strict=True)
            except RuntimeError:  # a loop the walk could not see (it changed meanwhile)
                stats.loops.append(found.name)
                return None
            if not allowed(real):
                return "outside"
            fd = open_resolved(real, READ_FLAGS)
        elif found.dir_fd >= 0:
            fd = os.open(found.name, READ_FLAGS | os.O_NOFOLLOW, dir_fd=found.dir_fd)
        else:
            fd = open_resolved(found.path, READ_FLAGS)
    except PathChanged:
        return "skipped"
    except (FileToolError, OSError) as exc:
        if isinstance(exc, OSError) and exc.errno == errno.ELOOP:
            stats.loops.append(found.name)
            return None
        return "skipped" if isinstance(exc, FileToolError) else None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode) or info.st_size > MAX_GREP_FILE_BYTES:
            return "skipped"  # a FIFO would block the read forever
        with os.fdopen(os.dup(fd), "rb") as fh:
            data = fh.read(MAX_GREP_FILE_BYTES + 1)
    except OSError:
        return None
    finally:
        os.close(fd)
    if b"\x00" in data[:SNIFF_BYTES] or len(data) > MAX_GREP_FILE_BYTES:
        return "skipped"
    return as_utf8(data, SNIFF_BYTES)  # a cp1252 file is searched and shown as read_file reads it


def _matching_lines(regex: Any, data: bytes) -> Iterator[tuple[int, str]]:
    """``(line number, line)`` for each line of ``data`` with a match, in one pass
    (CRLF line ends count as LF, so ``$`` works on Windows files too)."""
    if b"\r\n" in data:
        data = data.replace(b"\r\n", b"\n")
    pos, line_no, counted_to = 0, 1, 0
    end = len(data)
    while pos <= end:
        match = regex.search(data, pos)
        if match is None:
            return
        start = match.start()
        line_start = data.rfind(b"\n", 0, start) + 1
        if line_start == end:
            return  # an empty match after the final line break: no line there
        line_end = data.find(b"\n", start)
        if line_end == -1:
            line_end = end
        line_no += data.count(b"\n", counted_to, line_start)
        counted_to = line_start
        yield line_no, data[line_start:line_end].decode("utf-8", "replace").rstrip("\r")
        pos = line_end + 1


def _check_pattern(pattern: str) -> None:
    if not pattern.strip():
        raise FileToolError("The glob pattern is empty; try '**/*.py' or '*.md'.")
    if pattern.startswith("/") or ".." in PurePosixPath(pattern).parts:
        raise FileToolError(
            f"The glob pattern {pattern!r} must be relative and stay below path: "
            "no leading '/' and no '..'. Put the directory in the path argument instead."
        )
