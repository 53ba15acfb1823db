"""A git subcommand's words read against the options it is allowed to have (findings S1,
S6, S8): anything not on the list fails the reading.

The quiet list (:mod:`.gitquiet`) once took a subcommand as quiet "whatever its options"
unless one was on a list of known readers, and each round found another reader's
spelling (``commit -v``, ``diff --stat -U0``, ``config --blob``). An allow-list is only as
good as its option parsing, so the parsing lives here and fails closed: an option not
named, a short option cluster with one unknown letter, or a value-taking option glued to
a letter it does not know makes the words unreadable, and the caller treats the command
as one that may print contents.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass


@dataclass(frozen=True)
class Options:
    """What a subcommand may be given and still be quiet: ``flags`` take no value
    (``-q``, ``--all``), ``valued`` take one (``-m MSG``, ``--message=MSG``, ``-mMSG``),
    ``optional`` take one only after ``=`` (``--porcelain=v2``)."""

    flags: frozenset[str]
    valued: frozenset[str] = frozenset()
    optional: frozenset[str] = frozenset()


def options(flags: str, valued: str = "", optional: str = "") -> Options:
    """An :class:`Options` from space-separated names (the lists read as git's manual does)."""
    return Options(frozenset(flags.split()), frozenset(valued.split()), frozenset(optional.split()))


@dataclass(frozen=True)
class Operands:
    """The words that are not options: those before ``--`` (revisions or paths, git
    decides) and those after it (paths only)."""

    before: tuple[str, ...]
    after: tuple[str, ...]


def operands(rest: Sequence[str], allowed: Options) -> Operands | None:
    """The operands of ``rest`` when every option in it is ``allowed``, else None."""
    before: list[str] = []
    i = 0
    while i < len(rest):
        word = rest[i]
        if word == "--":
            return Operands(tuple(before), tuple(rest[i + 1:]))
        if word.startswith("--"):
            name, eq, _ = word.partition("=")
            if name in allowed.valued:
                i += 1 if eq else 2
                continue
            if not (name in allowed.optional or (name in allowed.flags and not eq)):
                return None
        elif word.startswith("-") and len(word) > 1:
            taken = _short_cluster(word, allowed)
            if taken is None:
                return None
            i += taken
            continue
        else:
            before.append(word)
        i += 1
    if i > len(rest):
        return None  # a value-taking option with no value: git refuses it, the line is odd
    return Operands(tuple(before), ())


def _short_cluster(word: str, allowed: Options) -> int | None:
    """How many words ``-abc`` (one word) or ``-m MSG`` (two) take, or None when one of its
    letters is not allowed."""
    for j in range(1, len(word)):
        letter = f"-{word[j]}"
        if letter in allowed.valued:
            return 1 if j + 1 < len(word) else 2
        if letter not in allowed.flags:
            return None
    return 1


__all__ = ["Operands", "Options", "operands", "options"]
