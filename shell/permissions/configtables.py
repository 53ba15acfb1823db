"""Edits of the tables in shared config files that name code a linter runs.

``pyproject.toml``, ``setup.cfg`` and ``tox.ini`` are edited all the time (a version, a
dependency, a test option), so asking before every edit would teach the user to say
yes. But their ``[tool.pylint.*]``/``[pylint.*]`` tables hold pylint's ``init-hook``
(Python, run at every lint, an editor's lint-on-save included) and ``load-plugins``,
and their ``[tool.mypy]``/``[mypy]`` tables mypy's ``plugins`` (imported at every
check, dmypy's and the editor's too): the same code as a ``.pylintrc`` or ``mypy.ini``,
which always ask (:mod:`.laternames`, finding L5). So a built-in file edit of one of
these files asks only when those tables differ before and after it: the file is
parsed as it is and as the edit would leave it. A file that does not parse either
way asks (what a linter would make of it cannot be told), and so does one too big to
read. Sandboxed commands are not judged this way: the sandbox cannot ask in the
middle of a command (README says so).
"""

from __future__ import annotations

import configparser
import os
import stat
import tomllib
from collections.abc import Mapping
from typing import Any

MAX_BYTES = 1 << 20
"""Bytes of a config file read to compare (larger: asks)."""

WHY = ("holds {tables} (pylint's init-hook and plugins, mypy's plugins: code that runs as you at every lint "
       "or check, an editor's check-on-save included), and this edit changes them")

_TOML = {"pyproject.toml"}
_INI = {"setup.cfg", "tox.ini"}


def config_edit_why(path: str, tool: str, args: Mapping[str, Any]) -> str:
    """Why the built-in edit ``tool`` with ``args`` of the real path ``path`` changes
    what a linter runs, or "" (see the module's docstring)."""
    name = os.path.basename(path).casefold()
    if name not in _TOML | _INI or tool not in ("write_file", "edit_file"):
        return ""
    tables = "[tool.pylint] or [tool.mypy]" if name in _TOML else "[pylint] or [mypy] sections"
    reason = WHY.format(tables=tables)
    try:
        info = os.stat(path)
        if not stat.S_ISREG(info.st_mode) or info.st_size > MAX_BYTES:
            return reason  # a FIFO would hang the read; a huge file is not worth parsing
        with open(path, encoding="utf-8", errors="replace") as f:
            before = f.read(MAX_BYTES)
    except FileNotFoundError:
        before = ""
    except OSError:
        return reason
    after = _after(before, tool, args)
    if after is None:
        return ""  # the edit cannot apply: the tool says so, nothing is written
    parse = _toml_tables if name in _TOML else _ini_sections
    old, new = parse(before), parse(after)
    if new is None:
        return reason
    if old is None:
        return reason if new else ""
    return reason if old != new else ""


def _after(text: str, tool: str, args: Mapping[str, Any]) -> str | None:
    if tool == "write_file":
        content = args.get("content")
        return content if isinstance(content, str) else None
    old, new = args.get("old_string"), args.get("new_string")
    if not isinstance(old, str) or not isinstance(new, str) or not old or old not in text:
        return None
    return text.replace(old, new, -1 if args.get("replace_all") is True else 1)


def _toml_tables(text: str) -> dict[str, Any] | None:
    try:
        data = tomllib.loads(text)
    except (tomllib.TOMLDecodeError, RecursionError):
        return None
    tool = data.get("tool")
    if not isinstance(tool, dict):
        return {}
    return {key: tool[key] for key in tool if key.casefold() in ("pylint", "mypy")}


def _ini_sections(text: str) -> dict[str, dict[str, str]] | None:
    parser = configparser.RawConfigParser(strict=False, interpolation=None)
    try:
        parser.read_string(text)
    except (configparser.Error, RecursionError):
        return None
    return {section: dict(parser.items(section)) for section in parser.sections()
            if section.casefold().startswith(("pylint", "mypy", "tool:pylint", "tool:mypy"))}


__all__ = ["config_edit_why"]
