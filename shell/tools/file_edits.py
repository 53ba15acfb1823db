"""What ``write_file`` and ``edit_file`` do and tell the model, on paths the workspace
already resolved and allowed.

Plain synchronous functions (the tools run them in a worker thread) that return a
:class:`ToolResult` or raise :class:`FileToolError` whose message tells the model
what went wrong and what to do next. Every change returns a unified diff, also in
``details["diff"]`` for the TUI to render; the model's copy of that diff leaves out
what it must not read (a secret file's old lines, a denied file's, a git config's
credentials). Writes go through :mod:`.nofollow` (atomic, no symlink followed).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

from shell.core import linediff
from shell.core.messages import ToolResult
from shell.core.secrets import is_secret_file
from shell.permissions.configcreds import scrubber

from .files import SNIFF_BYTES
from .nofollow import FileToolError, PathChanged, open_regular, write_atomically
from .sniff import legacy_encoding, sniff_media_type

MAX_DIFF_CHARS = 50_000

Denied = Callable[[str], str]
"""The deny rule that keeps the model from reading a path (``deny read_file(secrets/**)``),
or empty: the permission policy's answer (:meth:`Workspace.read_denied`)."""


Keep = Callable[[Path, "bytes | None"], None]
"""Told a file's content just before a tool changes it (None: it does not exist yet),
so a checkpoint can put it back (see :mod:`shell.tools.changes`)."""


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
    write_atomically(path, content, shown)
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
    write_atomically(path, new_text, shown)
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
    how = scrubber(path, (old, new))
    if how is not None:
        return _cap(unified_diff(how.clean(old), how.clean(new), shown))
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
    lines = linediff.text_lines(text)
    if lines and not lines[-1].endswith("\n"):
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
    """The UTF-8 text an edit starts from; a binary or legacy-encoded file is refused
    (an edit through a lossy decode would rewrite every byte it did not understand)."""
    try:
        fh = open_regular(path, shown)
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


def _cap(text: str) -> str:
    if len(text) <= MAX_DIFF_CHARS:
        return text
    return text[:MAX_DIFF_CHARS] + f"\n[diff cut at {MAX_DIFF_CHARS} of {len(text)} characters]"
