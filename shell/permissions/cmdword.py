"""What command a simple command really runs, for deny and ask rules.

Why: ``deny run_shell(rm:*)`` matched against the words as written lets
``/bin/rm``, ``\\rm``, ``r''m``, ``env rm``, ``command rm``, ``nice rm``,
``xargs rm``, ``sudo rm``, ``bash -c 'rm …'`` and ``eval rm …`` through, and a
model writes some of these with no malice at all. So before a deny or ask rule
is matched, each part of a command line (see :mod:`.shellsplit`) is also read
the way the shell would: quotes and backslashes removed, a path reduced to its
base name, leading ``NAME=value`` assignments and wrappers (``env``,
``command``, ``builtin``, ``exec``, ``nice``, ``nohup``, ``time``, ``timeout``,
``sudo``, ``doas``, ``xargs``, ``stdbuf``, ``setsid``, ``ionice``) stepped over,
and the string of ``sh|bash|… -c`` or ``eval`` split again. Every reading is a
candidate the rule is matched against.

What cannot be read this way (a command word that is a ``$VAR`` or ``$(…)``, a
quote that does not close, a line the splitter is unsure of) is *not
understood*: the caller then treats a deny or ask rule whose command word appears
anywhere in the line as matching (fail closed). Allow rules never use these
readings: they match the words as written, confidently split, as before.
"""

from __future__ import annotations

import re
import shlex

from .shellsplit import split_command

__all__ = ["Reading", "read_part"]

_ASSIGN = re.compile(r"[A-Za-z_][A-Za-z0-9_]*=.*", re.DOTALL)
_SHELLS = frozenset({"sh", "bash", "dash", "zsh", "ksh", "mksh", "ash", "busybox"})
_WRAPPERS: dict[str, frozenset[str]] = {
    # wrapper -> its options that take the next word as their value
    "env": frozenset({"-u", "--unset", "-C", "--chdir", "-S", "--split-string"}),
    "command": frozenset(),
    "builtin": frozenset(),
    "exec": frozenset({"-a"}),
    "nice": frozenset({"-n", "--adjustment"}),
    "nohup": frozenset(),
    "time": frozenset({"-f", "--format", "-o", "--output"}),
    "timeout": frozenset({"-s", "--signal", "-k", "--kill-after"}),
    "sudo": frozenset({"-u", "--user", "-g", "--group", "-C", "-h", "--host", "-p", "--prompt",
                       "-r", "--role", "-t", "--type", "-U", "--other-user", "-D", "--chdir"}),
    "doas": frozenset({"-u", "-C"}),
    "xargs": frozenset({"-I", "-i", "-n", "--max-args", "-L", "-l", "-P", "--max-procs", "-s",
                        "--max-chars", "-d", "--delimiter", "-E", "-e", "-a", "--arg-file"}),
    "stdbuf": frozenset({"-i", "-o", "-e"}),
    "setsid": frozenset(),
    "ionice": frozenset({"-c", "--class", "-n", "--classdata", "-p", "--pid"}),
}
_MAX_DEPTH = 8


class Reading:
    """The readings of one part: each a command line of plain words joined by one
    space; ``understood`` is False when some of it could not be read."""

    __slots__ = ("texts", "understood")

    def __init__(self) -> None:
        self.texts: list[str] = []
        self.understood = True


def read_part(text: str) -> Reading:
    """Every way ``text`` (one simple command, as written) may name what it runs."""
    reading = Reading()
    _read(text, reading, 0)
    return reading


def _read(text: str, reading: Reading, depth: int) -> None:
    if depth > _MAX_DEPTH:
        reading.understood = False
        return
    try:
        words = shlex.split(text, posix=True)
    except ValueError:
        reading.understood = False
        return
    while words:
        while words and _ASSIGN.fullmatch(words[0]):
            words = words[1:]
        if not words:
            return
        head = words[0]
        if any(c in head for c in "$`*?[") or not head:
            reading.understood = False  # the command word is only known when it runs
            return
        base = head.rsplit("/", 1)[-1] or head
        words = [base, *words[1:]]
        reading.texts.append(" ".join(words))
        rest = words[1:]
        if base in _SHELLS:
            inner = _dash_c(rest)
            if inner is not None:
                _read_line(inner, reading, depth + 1)
            return
        if base == "eval":
            _read_line(" ".join(rest), reading, depth + 1)
            return
        if base == "command" and any(w in ("-v", "-V") for w in rest):
            return  # `command -v rm` asks where rm is; it runs nothing
        if base not in _WRAPPERS:
            return
        words = _after_wrapper(base, rest)


def _read_line(line: str, reading: Reading, depth: int) -> None:
    split = split_command(line)
    if not split.confident:
        reading.understood = False
    for part in split.parts:
        if part.text:
            _read(part.text, reading, depth)


def _dash_c(words: list[str]) -> str | None:
    """The string a shell runs with ``-c`` (``bash -lc 'rm x'`` too), or None."""
    for i, word in enumerate(words):
        if word == "--" or not word.startswith("-"):
            return None
        if not word.startswith("--") and "c" in word[1:]:
            return words[i + 1] if i + 1 < len(words) else None
    return None


def _after_wrapper(name: str, words: list[str]) -> list[str]:
    """The command a wrapper runs: its options (and their values) and, for ``env``,
    assignments, and for ``timeout``, the duration, stepped over."""
    takes = _WRAPPERS[name]
    i = 0
    while i < len(words):
        word = words[i]
        if word == "--":
            i += 1
            break
        if name == "env" and _ASSIGN.fullmatch(word):
            i += 1
        elif word.startswith("-") and (word != "-" or name == "env"):
            i += 2 if word in takes else 1
        elif name == "nice" and word.lstrip("-").isdigit():
            i += 1
        else:
            break
    if name == "timeout" and i < len(words):
        i += 1  # the duration
    return words[i:]
