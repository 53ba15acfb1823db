"""``env``'s words read as GNU ``env`` reads them: one reader for every place that must
know what an ``env …`` line runs (finding C12).

:mod:`.mcpsources` (which files a ``.mcp.json`` server runs) and
:mod:`shell.tools.package_launchers` (which launcher it starts) both look past ``env``.
Each read its options its own way, and both missed spellings env accepts:
``--split-string=…`` (nothing named), ``-vS '…'`` (the command after the string
dropped), ``-C dir`` (relative paths read from the wrong folder). Here, as in
coreutils' ``env``: short options cluster (``-iS``, ``-uNAME``, ``-CDIR``), long ones
take ``=value`` or the next word and may be shortened to a unique prefix, ``-S``'s
string is split into words that are read again as options, assignments and command,
option reading stops at the first word that is not an option (``--`` included), and
the ``NAME=value`` words that follow are assignments until the command.

An option env does not know makes env refuse to run, yet another ``env`` might run
something: the reading is marked (:attr:`EnvReading.unknown`) so that a caller deciding
what is safe can say the line could not be read instead of trusting a partial one.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from .gitcommands import command_words

ASSIGNMENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*=")
"""A ``NAME=value`` word (an environment assignment, not a command)."""
_FLAGS = frozenset("i0v")
_VALUED = frozenset("uCS")
_LONG_FLAGS = frozenset({"ignore-environment", "null", "debug", "list-signal-handling"})
_LONG_VALUED = {"unset": "u", "chdir": "C", "split-string": "S"}
_LONG_OPTIONAL = frozenset({"block-signal", "default-signal", "ignore-signal"})
_LONG_EXITS = frozenset({"help", "version"})
_LONG = sorted(_LONG_FLAGS | set(_LONG_VALUED) | _LONG_OPTIONAL | _LONG_EXITS)
MAX_SPLITS = 16
"""``-S`` strings read in one line (each may hold another): more, and the line is not read."""


@dataclass(frozen=True, slots=True)
class EnvReading:
    """What ``env WORDS`` does: the variables it sets, the folder it changes to
    (``""``: none), the command line it runs (empty: none), where that command is among
    the words given (``None`` when it came out of a ``-S`` string), and the first option
    env does not know (``""``: every word was read)."""

    assignments: tuple[tuple[str, str], ...]
    chdir: str
    command: tuple[str, ...]
    at: int | None
    unknown: str = ""


def read_env(words: list[str]) -> EnvReading:
    """Read the words after ``env`` (see the module docstring)."""
    words = list(words)
    chdir, unknown, split, splits = "", "", False, 0
    at = 0
    while at < len(words):
        word = words[at]
        if word == "--":
            at += 1
            break
        if word == "-":  # an old spelling of -i
            at += 1
            continue
        if not word.startswith("-"):
            break
        name, value, taken = _option(word, words[at + 1] if at + 1 < len(words) else None)
        if name == "?":
            unknown = unknown or word
            at += 1
            continue
        if name in ("exit", "missing"):  # --help, --version, or a value missing: env runs nothing
            return EnvReading((), chdir, (), None, unknown)
        if name == "C":
            chdir = value
        elif name == "S":
            splits += 1
            if splits > MAX_SPLITS:
                return EnvReading((), chdir, (), None, unknown or word)
            words = [*words[:at], *command_words(value), *words[at + taken:]]
            split = True
            continue
        at += taken
    assignments: list[tuple[str, str]] = []
    while at < len(words) and ASSIGNMENT.match(words[at]):
        name, value = words[at].split("=", 1)
        assignments.append((name, value))
        at += 1
    return EnvReading(tuple(assignments), chdir, tuple(words[at:]), None if split else at, unknown)


def _option(word: str, following: str | None) -> tuple[str, str, int]:
    """One option word: its letter (``"?"`` unknown, ``"exit"``, ``"missing"`` value),
    the value of the last valued option in it, and how many words it took."""
    if word.startswith("--"):
        return _long(word[2:], following)
    letter, value = "", ""
    for i, char in enumerate(word[1:], 1):
        if char in _FLAGS:
            letter = char
            continue
        if char not in _VALUED:
            return "?", "", 1
        rest = word[i + 1:]
        if rest:
            return char, rest, 1
        return (char, following, 2) if following is not None else ("missing", "", 1)
    return letter, value, 1


def _long(body: str, following: str | None) -> tuple[str, str, int]:
    given, has_value, value = body.partition("=")[0], "=" in body, body.partition("=")[2]
    matches = [name for name in _LONG if name == given] or [name for name in _LONG if name.startswith(given)]
    if len(matches) != 1 or not given:
        return "?", "", 1
    name = matches[0]
    if name in _LONG_VALUED:
        if has_value:
            return _LONG_VALUED[name], value, 1
        return (_LONG_VALUED[name], following, 2) if following is not None else ("missing", "", 1)
    if has_value and name not in _LONG_OPTIONAL:
        return "?", "", 1
    return ("exit", "", 1) if name in _LONG_EXITS else ("flag", "", 1)


__all__ = ["ASSIGNMENT", "MAX_SPLITS", "EnvReading", "read_env"]
