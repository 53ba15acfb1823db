"""Changing one rule list of a TOML file by editing only its own line (findings E14, E15).

Re-rendering the whole ``[permissions]`` table from the parsed data deleted the user's
comments in it (``# team rules``, ``allow = [...]  # status is fine``), and a config
written with dotted keys (``permissions.allow = [...]``) got a second ``[permissions]``
table, which TOML refuses. Here the list's line is replaced (its trailing comment kept),
a new list goes in after the table's last line, and a removed list's line is deleted:
every other line stays as written. What cannot be edited that way (an inline table, a
list over several lines with comments in it) raises :class:`LineEditError`; the caller
checks the result parses to what it meant before writing anything.
"""

from __future__ import annotations

import re
import tomllib
from typing import Any

from shell.core.filedata import toml_loads

_HEADER = re.compile(r"^\s*\[\s*([^\]]+?)\s*\]\s*(#.*)?$")
_QUOTES = "\"'"


class LineEditError(Exception):
    """The list cannot be changed by a line edit; the message says why, for the user."""


def _name(line: str) -> str | None:
    """The key a ``KEY = value`` line sets (dotted parts joined, quotes and spaces gone)."""
    text = line.strip()
    if not text or text.startswith(("#", "[")) or "=" not in text:
        return None
    left = text.split("=", 1)[0]
    return ".".join(part.strip().strip(_QUOTES) for part in left.split("."))


def _sections(lines: list[str]) -> list[tuple[str, int, int]]:
    """``(table, first line, end)`` of the top level (``""``) and each ``[table]``."""
    out: list[tuple[str, int, int]] = []
    current, start = "", 0
    for i, line in enumerate(lines):
        if line.lstrip().startswith("[[") or (m := _HEADER.match(line)) is None:
            continue
        out.append((current, start, i))
        current, start = (m.group(1).replace(" ", ""), i + 1)
    out.append((current, start, len(lines)))
    return out


def _extent(lines: list[str], first: int) -> int:
    """The end (exclusive) of the value that starts on line ``first``."""
    for end in range(first + 1, len(lines) + 1):
        try:
            toml_loads("\n".join(lines[first:end]))
        except tomllib.TOMLDecodeError:
            continue
        return end
    raise LineEditError("a value that does not end")


def _trailing_comment(line: str) -> str:
    """The ``# …`` after a one-line value (a ``#`` inside a string is not one)."""
    for at in (i for i, ch in enumerate(line) if ch == "#"):
        try:
            toml_loads(line[:at])
        except tomllib.TOMLDecodeError:
            continue
        return "  " + line[at:].strip()
    return ""


def _array(values: list[str]) -> str:
    """``["a", "b"]``, quoted as the config's own writer quotes."""
    from shell.config import to_toml

    return to_toml({"x": values}).strip().split(" = ", 1)[1]


def _render(name: str, values: list[str]) -> str:
    return f"{name} = {_array(values)}"


def set_list(text: str, key: str | None, effect: str, values: list[str]) -> str:
    """``text`` with the list ``effect`` of table ``key`` (``None``: the top level) set to
    ``values`` (empty: the key is taken out), every other line as it was."""
    lines = text.splitlines()
    sections = _sections(lines)
    full = effect if key is None else f"{key}.{effect}"
    top = next(s for s in sections if s[0] == "")
    where: list[tuple[int, str]] = []  # (line, the name written there)
    for table, start, end in sections:
        for i in range(start, end):
            name = _name(lines[i])
            if (table == "" and name == full) or (key is not None and table == key and name == effect):
                where.append((i, lines[i].split("=", 1)[0].rstrip()))
    if key is not None and any(_name(lines[i]) == key for i in range(top[1], top[2])):
        raise LineEditError(f"`{key}` is written as an inline table")
    if where:
        i, left = where[0]
        end = _extent(lines, i)
        if end - i > 1 and any("#" in line for line in lines[i:end]):
            raise LineEditError(f"`{full}` spans several lines with comments in it")
        new = [f"{left} = {_array(values)}{_trailing_comment(lines[end - 1])}"]
        return _joined([*lines[:i], *(new if values else []), *lines[end:]])
    if not values:
        return text
    if key is None:
        return _joined(_insert(lines, top[1], top[2], _render(effect, values)))
    own = next((s for s in sections if s[0] == key), None)
    if own is not None:
        return _joined(_insert(lines, own[1], own[2], _render(effect, values)))
    dotted = [i for i in range(top[1], top[2]) if (_name(lines[i]) or "").startswith(f"{key}.")]
    if dotted:
        return _joined(_insert(lines, dotted[0], _extent(lines, dotted[-1]), _render(full, values)))
    block = [f"[{key}]", _render(effect, values)]
    return _joined([*lines, *([""] if lines and lines[-1].strip() else []), *block])


def _insert(lines: list[str], start: int, end: int, line: str) -> list[str]:
    """``line`` after the last key line of ``lines[start:end]`` (at ``start`` if none): a
    comment at a table's end is left to the table after it, which it most likely names."""
    at = next((i + 1 for i in range(end - 1, start - 1, -1)
               if lines[i].strip() and not lines[i].lstrip().startswith("#")), start)
    return [*lines[:at], line, *lines[at:]]


def _joined(lines: list[str]) -> str:
    return "\n".join(lines).rstrip("\n") + "\n"


def parsed(text: str) -> dict[str, Any]:
    """``text`` parsed; a :class:`LineEditError` when the edit broke it."""
    try:
        return toml_loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise LineEditError(f"the edit would not be valid TOML ({exc})") from None
