"""Set back only the code-naming keys of a config file a sandboxed command changed.

When a command changes the keys of ``pyproject.toml`` or ``package.json`` that name code
a linter runs (:mod:`.codekeys`), :mod:`.laterconfigs` sets the file back. Setting back
the whole file loses the command's other edits of it (``uv add`` bumping a dependency,
``npm version`` the version), which then live only in the quarantine copy, where a user
does not look. So where it can be done exactly, only those keys are set back and the rest
of the command's version kept:

- TOML (``pyproject.toml``): the command's text with its ``[tool.pylint…]``,
  ``[tool.mypy…]``, ``[[tool.uv.index]]`` … tables (:data:`.codekeys.TOML_CODE_PATHS`)
  swapped for those of the file as it was, text for text, so its
  comments and layout stay;
- JSON (``package.json``, ``.eslintrc.json``, ``.babelrc`` …) that round-trips through
  :func:`json.dumps` in the layout it has (npm's own): the keys set back in the parsed
  data, written in that layout.

Either result is checked by parsing it: its code-naming keys must be those from before
the command and everything else what the command wrote; anything else (a dotted
``tool.pylint.init-hook =`` line, comments in JSON, YAML, INI) is not merged, and
:func:`other_edits` names what the command changed besides those keys, for the tool
result to say what is only in the quarantine copy.
"""

from __future__ import annotations

import configparser
import difflib
import json
import re
import tomllib
from typing import Any

from shell.core.textsafety import sanitize_line

from .codekeys import (
    FILES_KEY,
    HOOK_KEYS,
    INI_NAMES,
    JS_KEYS,
    JS_NAMES,
    LIFECYCLE_SCRIPTS,
    NESTED_HOOK_KEYS,
    PACKAGE_KEYS,
    PUBLISH_KEYS,
    SKIPPED,
    TOML_NAMES,
    code_keys,
    listed_scripts,
    toml_code,
    toml_header_is_code,
    toml_without_code,
)
from .npmkeys import secret_entries

_HEADER = re.compile(r"[ \t]*\[\[?([^\]\n]*)\]\]?[ \t]*(?:#.*)?\n?")
_MISSING: Any = object()
MAX_NAMED = 8
"""Edits named in a tool result (more: "and N more")."""
MAX_DIFF_LINES = 5000
"""Lines compared to say which changed, when the keys cannot be read."""


def merged(name: str, was: str, now: str, hooked: frozenset[str] = frozenset()) -> str | None:
    """``now`` (the command's version of a file named ``name``) with its code-naming keys
    as in ``was``, or None when that cannot be done exactly (see the module)."""
    lower = name.casefold()
    if lower in TOML_NAMES:
        text = _toml(was, now)
    elif lower == "package.json" or (lower in JS_NAMES and not lower.endswith((".yml", ".yaml", ".toml"))):
        text = _json(lower, was, now, hooked)
    else:
        return None
    if text is None or code_keys(name, text, hooked) != code_keys(name, was, hooked):
        return None
    return text


def other_edits(name: str, was: str, now: str, hooked: frozenset[str] = frozenset()) -> list[str]:
    """What the command changed in the file besides its code-naming keys: the keys' places
    (``project.version``) when both versions parse, else the lines of ``now`` that differ."""
    before, after = _flat_without_code(name, was, hooked), _flat_without_code(name, now, hooked)
    if before is not None and after is not None:
        changed = sorted(k for k in before.keys() | after.keys() if before.get(k) != after.get(k))
    else:
        changed = _changed_lines(was, now)
    shown = [sanitize_line(c[:60]) for c in changed[:MAX_NAMED]]
    if len(changed) > MAX_NAMED:
        shown.append(f"and {len(changed) - MAX_NAMED} more")
    return shown


def _toml(was: str, now: str) -> str | None:
    try:
        old, new = tomllib.loads(was), tomllib.loads(now)
    except (tomllib.TOMLDecodeError, RecursionError):
        return None
    kept = [text for code, text in _tables(was) if code]
    out: list[str] = []
    placed = False
    for code, text in _tables(now):
        if not code:
            out.append(text)
        elif not placed:
            out += kept
            placed = True
    if not placed and kept:
        out.append("\n" if out and not out[-1].endswith("\n\n") else "")
        out += kept
    text = "".join(t if t.endswith("\n") else t + "\n" for t in out) if out else ""
    try:
        result = tomllib.loads(text)
    except (tomllib.TOMLDecodeError, RecursionError):
        return None
    if toml_without_code(result) != toml_without_code(new) or toml_code(result) != toml_code(old):
        return None
    return text


def _tables(text: str) -> list[tuple[bool, str]]:
    """``text`` cut before each table header (the comments and blank lines just above a
    header go with it), each piece marked when its table names code."""
    lines = text.splitlines(keepends=True)
    cuts: list[tuple[int, bool]] = [(0, False)]
    for number, line in enumerate(lines):
        match = _HEADER.fullmatch(line)
        if match is None:
            continue
        start = number
        while start > cuts[-1][0] and lines[start - 1].strip()[:1] in ("", "#"):
            start -= 1
        cuts.append((start, _is_code_table(match.group(1))))
    pieces = []
    for (start, code), (end, _) in zip(cuts, [*cuts[1:], (len(lines), False)], strict=True):
        if end > start or code:
            pieces.append((code, "".join(lines[start:end])))
    return pieces


def _is_code_table(inside: str) -> bool:
    try:
        data: Any = tomllib.loads(f"[{inside}]")
    except (tomllib.TOMLDecodeError, RecursionError):
        return False
    path: list[str] = []
    while isinstance(data, dict) and len(data) == 1:
        key = next(iter(data))
        path.append(key)
        data = data[key]
    return toml_header_is_code(tuple(path))


def _json(name: str, was: str, now: str, hooked: frozenset[str]) -> str | None:
    try:
        old = json.loads(was) if was.strip() else {}
        new = json.loads(now)
    except (ValueError, RecursionError):
        return None
    layout = _layout(now, new)
    if layout is None:
        return None
    result = _json_restored(name, new, old, hooked)
    if result is _MISSING:
        return None
    indent, end = layout
    try:
        return json.dumps(result, indent=indent, ensure_ascii=False) + end
    except (ValueError, RecursionError):
        return None


def _layout(text: str, data: Any) -> tuple[int | str | None, str] | None:
    """The ``json.dumps`` indent and ending that give ``text`` back, or None."""
    for indent in (2, 4, "\t", None):
        try:
            dumped = json.dumps(data, indent=indent, ensure_ascii=False)
        except (ValueError, RecursionError):
            return None
        for end in ("\n", ""):
            if dumped + end == text:
                return indent, end
    return None


def _json_restored(name: str, now: Any, was: Any, hooked: frozenset[str] = frozenset()) -> Any:
    """``now`` with the code-naming keys of ``was`` (a :data:`_MISSING` ``was``: without any);
    in a package.json its hook keys whole and the ``scripts`` a hook runs (``hooked``) too."""
    if name != "package.json":
        return _top(now, was)
    if not isinstance(now, dict):
        return _MISSING
    old: dict[str, Any] = was if isinstance(was, dict) else {}
    hooked = hooked | listed_scripts(old) | listed_scripts(now) | LIFECYCLE_SCRIPTS
    out: dict[str, Any] = {}
    for key, value in now.items():
        if key in PACKAGE_KEYS:
            kept = _top(value, old.get(key, _MISSING))
            if kept is not _MISSING:
                out[key] = kept
        elif key in (*HOOK_KEYS, *PUBLISH_KEYS):
            if key in old:
                out[key] = old[key]
        elif key == FILES_KEY and isinstance(value, list):
            out[key] = _files_restored(value, old.get(key))
        elif key in NESTED_HOOK_KEYS:
            out[key] = _nested_restored(value, old.get(key, _MISSING), NESTED_HOOK_KEYS[key])
        elif key == "scripts" and isinstance(value, dict) and hooked:
            listed = old.get("scripts")
            before: dict[str, Any] = listed if isinstance(listed, dict) else {}
            out[key] = {n: v for n, v in value.items() if n not in hooked or n in before}
            out[key].update({n: before[n] for n in hooked if n in before})
        else:
            out[key] = value
    whole = (*PACKAGE_KEYS, *HOOK_KEYS, *PUBLISH_KEYS)
    out.update({k: v for k, v in old.items() if k in whole and k not in now})
    for key, inner in NESTED_HOOK_KEYS.items():
        if key not in now and isinstance(old.get(key), dict) and inner in old[key]:
            out[key] = {inner: old[key][inner]}
    return out


def _files_restored(now: list[Any], was: Any) -> list[Any]:
    """package.json's ``files`` as the command left it, but for its secret-looking entries,
    which are those of ``was``: a new one dropped, a removed one put back at the end."""
    before = set(secret_entries(was))
    added = set(secret_entries(now)) - before
    return [e for e in now if e not in added] + [e for e in sorted(before) if e not in now]


def _nested_restored(now: Any, was: Any, inner: str) -> Any:
    """``now`` (npm's ``config``) with ``was``'s ``inner`` key (``ghooks``) as it was: the
    rest is data, kept as the command left it."""
    old = was.get(inner, _MISSING) if isinstance(was, dict) else _MISSING
    if not isinstance(now, dict):
        return was if old is not _MISSING else now
    kept = {k: v for k, v in now.items() if k != inner}
    if old is not _MISSING:
        kept[inner] = old
    return kept


def _top(now: Any, was: Any) -> Any:
    """A tool's whole config: one that is a string names a shared config (code)."""
    if isinstance(now, str) or isinstance(was, str):
        return was
    return _restore(now, was)


def _restore(now: Any, was: Any) -> Any:
    if isinstance(now, dict):
        old: dict[str, Any] = was if isinstance(was, dict) else {}
        out: dict[str, Any] = {}
        for key, value in now.items():
            if key in JS_KEYS:
                if key in old:
                    out[key] = old[key]
            elif key in SKIPPED:
                out[key] = value
            else:
                out[key] = _restore(value, old.get(key, _MISSING))
        out.update({k: v for k, v in old.items() if k in JS_KEYS and k not in now})
        return out
    if isinstance(now, list):
        old_list: list[Any] = was if isinstance(was, list) else []
        return [_restore(v, old_list[i] if i < len(old_list) else _MISSING) for i, v in enumerate(now)]
    return now


def _flat_without_code(name: str, text: str, hooked: frozenset[str] = frozenset()) -> dict[str, str] | None:
    """The file's keys outside the code-naming ones, flattened (``project.version``), or
    None when it does not parse."""
    lower = name.casefold()
    try:
        if lower in TOML_NAMES:
            return _flatten(toml_without_code(tomllib.loads(text)))
        if lower in INI_NAMES:
            parser = configparser.RawConfigParser(strict=False, interpolation=None)
            parser.read_string(text)
            return {f"{s}.{k}": v for s in parser.sections() if code_keys(name, f"[{s}]\n") == {}
                    for k, v in parser.items(s)}
        if lower == "package.json" or lower in JS_NAMES:
            data = json.loads(text) if text.strip() else {}
            stripped = _json_restored(lower, data, _MISSING, hooked)
            return None if stripped is _MISSING else _flatten(stripped)
    except (ValueError, RecursionError, configparser.Error):
        return None
    return None


def _flatten(data: Any, place: str = "", depth: int = 0) -> dict[str, str]:
    if isinstance(data, dict) and data and depth < 4:
        out: dict[str, str] = {}
        for key, value in data.items():
            out.update(_flatten(value, f"{place}.{key}" if place else str(key), depth + 1))
        return out
    try:
        return {place or "(whole file)": json.dumps(data, sort_keys=True, default=str)}
    except (ValueError, RecursionError):
        return {place or "(whole file)": repr(data)}


def _changed_lines(was: str, now: str) -> list[str]:
    """The lines of ``now`` that differ from ``was`` (``line 3``, ``lines 7-9``)."""
    old, new = was.splitlines(), now.splitlines()
    if len(old) > MAX_DIFF_LINES or len(new) > MAX_DIFF_LINES:
        return []
    out = []
    for tag, _, _, start, end in difflib.SequenceMatcher(None, old, new, autojunk=False).get_opcodes():
        if tag == "equal":
            continue
        if tag == "delete":
            out.append(f"lines removed before line {start + 1}")
        else:
            out.append(f"line {start + 1}" if end - start == 1 else f"lines {start + 1}-{end}")
    return out


__all__ = ["merged", "other_edits"]
