"""Which package launcher a server's command line runs, read as :mod:`.mcp_launch` needs
it: the one reading it acts on (finding C8).

A launcher run in a start folder holding ``node_modules`` prefers that folder's
package to the registry's. :mod:`.mcp_launch` gives ``npx``/``npm exec`` ``--prefix``
and refuses ``bunx`` while the package is planted; both looked at the command word
alone, so ``npm --yes exec srv``, ``npm -y x -- srv``, ``env [VAR=…] npx srv``,
``sh -c "npx -y srv"`` got no ``--prefix`` and ``bun --bun x srv`` / ``bun run srv``
were not refused. Here the launcher is found as :mod:`shell.permissions.mcpsources`
finds a server's script: through ``env`` (read by :mod:`shell.permissions.envwords`),
``VAR=value`` words and a shell's ``-c`` string (:func:`.gitcommands.command_words`,
the shells of :mod:`.hookscripts`), with npm's and bun's global flags stepped over
before their ``exec``/``x``/``run``. A launcher inside a string cannot be given a
flag (``at`` is -1): :mod:`.mcp_launch` treats it as it treats ``bunx``.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass

from shell.permissions.envwords import ASSIGNMENT, read_env
from shell.permissions.gitcommands import command_words
from shell.permissions.hookscripts import MAX_NESTING, SHELL_C, SHELLS

NPX = "npx"
"""The kind of launcher npm's ``--prefix`` turns away from the start folder (``npx``, ``npm exec|x``)."""
BUNX = "bunx"
"""The kind with no such switch (``bunx``, ``bun x``, ``bun run``)."""
_NPM_TAKES = frozenset({"--registry", "--cache", "--userconfig", "--globalconfig", "--prefix", "-C",
                        "--workspace", "-w", "--loglevel", "--node-options", "--script-shell", "--otp",
                        "--scope", "--tag"})
"""npm's global options whose value is the next word (an unknown ``--option`` may take one too)."""
_BUN_TAKES = frozenset({"--cwd", "--env-file", "-c", "--config", "-r", "--preload", "--require", "--import",
                        "--tsconfig-override", "-d", "--define", "-l", "--loader", "--conditions",
                        "--main-fields", "--install", "--smol-heap"})
"""bun's options whose value is the next word."""


@dataclass(frozen=True, slots=True)
class Launch:
    """A package launcher in a command line: its ``kind`` (:data:`NPX`, :data:`BUNX`),
    where its word is in the argv (``command`` is 0; -1 inside a string), and the words
    after it (for ``bun``, after its ``x``/``run``), where the package is named."""

    kind: str
    at: int
    args: tuple[str, ...]


def launches(command: str, args: Sequence[str]) -> list[Launch]:
    """The package launchers ``command args`` runs (see the module docstring)."""
    return _argv([command, *args], 0)


def _argv(words: list[str], depth: int) -> list[Launch]:
    at = 0
    while at < len(words):
        word, name = words[at], os.path.basename(words[at])
        if ASSIGNMENT.match(word):
            at += 1
        elif name == "env":  # read as env reads it (finding C12), with the files a server runs
            reading = read_env(words[at + 1:])
            if reading.at is None:  # out of a `-S` string: no flag can be put in it
                return _string(" ".join(reading.command), depth)
            at += 1 + reading.at
        elif name in SHELLS:
            return [found for i, part in enumerate(words[at + 1:-1], at + 1) if SHELL_C.fullmatch(part)
                    for found in _string(words[i + 1], depth)]
        else:
            launch = _launch(words, at)
            return [launch] if launch else []
    return []


def _string(line: str, depth: int) -> list[Launch]:
    """The launchers a shell string runs, wherever in it (``cd x && npx srv``): none can be given a flag."""
    if depth >= MAX_NESTING:
        return []
    words = [w.strip(",;&|()<>'\"") for w in command_words(line)]
    words = [w for w in words if w]
    found: list[Launch] = []
    for at, word in enumerate(words):
        if os.path.basename(word) in SHELLS or os.path.basename(word) == "env":
            found += [Launch(launch.kind, -1, launch.args) for launch in _argv(words[at:], depth + 1)]
            continue
        launch = _launch(words, at)
        if launch:
            found.append(Launch(launch.kind, -1, launch.args))
    return found


def _launch(words: list[str], at: int) -> Launch | None:
    name, rest = os.path.basename(words[at]), words[at + 1:]
    if name == "npx":
        return Launch(NPX, at, tuple(rest))
    if name == "bunx":
        return Launch(BUNX, at, tuple(rest))
    if name == "npm":
        sub, after = _subcommand(rest, _NPM_TAKES, frozenset({"exec", "x"}))
        return Launch(NPX, at, tuple(rest[after:])) if sub else None
    if name == "bun":
        sub, after = _subcommand(rest, _BUN_TAKES, frozenset({"x", "run"}))
        return Launch(BUNX, at, tuple(rest[after:])) if sub else None
    return None


def _subcommand(words: list[str], takes: frozenset[str], wanted: frozenset[str]) -> tuple[str, int]:
    """The first word after the global options, if one of ``wanted`` (and where its
    arguments start): a word after an unknown ``--option`` may be that option's value,
    so the next one is looked at too."""
    at, maybe_value = 0, False
    while at < len(words):
        word = words[at]
        if word == "--":
            return "", at
        if word.startswith("-"):
            at += 2 if word in takes else 1
            maybe_value = word.startswith("--") and "=" not in word and word not in takes
            continue
        if word in wanted:
            return word, at + 1
        if not maybe_value:
            return "", at
        maybe_value = False
        at += 1
    return "", at


__all__ = ["BUNX", "NPX", "Launch", "launches"]
