"""The simple commands of a shell command line, each with the folder it runs in.

A hook's ``cd scripts && ./check.sh``, pre-commit's ``entry: bash -c "cd frontend &&
./lint.sh"`` and an MCP server's ``bash -c "cd tools && exec node srv.js"`` run a file
relative to the folder the line moved into, not to where the line started. The readers
of "which files does this line run" (:mod:`.hookscripts`, :mod:`.mcpsources`,
:mod:`.editorruns`) resolved every word against the start folder, so the script that
really ran was neither guarded nor fingerprinted (tester findings D5, D6): a sandboxed
command rewrote it unasked, and the user's next commit or start ran it.

:func:`read_line` splits a line (several lines: a hook file is one script, its ``cd``
lasts) at the shell's operators (``&&``, ``||``, ``;``, ``|``, ``&``, a new line) and
follows ``cd DIR``, ``pushd DIR``/``popd`` and subshells (``(cd DIR && …)`` ends with
its parenthesis). A ``cd`` whose folder is not spelled out (``cd "$DIR"``, ``cd -``,
``cd $(…)``, a bare ``cd``) cannot be followed: the reading says so (:attr:`LineReading.unsure`)
and the commands after it keep the folder before, which is all a reader can know.
An unbalanced quote is read word by word on spaces instead (a hostile config must not
hide a path by breaking its quoting).

Two folders a hook spells through a command are knowable all the same, and
:func:`known_folders` writes them out before the line is read (finding D6):
``$(git rev-parse --show-toplevel)`` is the work tree git runs the hook in, and
``$(dirname "$0")`` (``${0%/*}``, ``$(dirname "${BASH_SOURCE[0]}")``, ``$(cd "DIR" && pwd)``)
the hook file's own folder.
"""

from __future__ import annotations

import os
import re
import shlex
from dataclasses import dataclass

MAX_PARTS = 256
"""Simple commands read of one line (the rest: not read, and said)."""
MAX_CHARS = 64 * 1024
OPERATORS = frozenset({"&&", "||", ";", ";;", "|", "&", "|&", "(", ")", "\n"})
_OPERATOR = re.compile(r"&&|\|\||;;|\|&|[;&|()]")
_LOOSE = re.compile(r"&&|\|\||[;&|()]|[^\s;&|()]+")
CD_WORDS = frozenset({"cd", "pushd", "chdir"})
_KEYWORDS = frozenset({"then", "do", "else", "elif", "if", "while", "until", "!", "time", "exec", "builtin",
                       "command"})
"""Words before a ``cd`` that do not stop it being one (``then cd x``, ``builtin cd x``)."""


@dataclass(frozen=True, slots=True)
class Part:
    """One simple command: its words (quotes removed) and the folder it runs in (absolute)."""

    words: tuple[str, ...]
    folder: str
    moved: bool
    """Whether the line moved into ``folder`` (a ``cd`` before it): what runs there may
    be more than the words name, and a careful reader says so."""
    lost: bool = False
    """Whether a ``cd`` before it went where the reader could not follow (``cd "$DIR"``):
    ``folder`` is then only where the line was; a careful reader guards more."""


@dataclass(frozen=True, slots=True)
class LineReading:
    """What :func:`read_line` found."""

    parts: tuple[Part, ...]
    folders: tuple[str, ...]
    """The folders the line moved into that it could follow, in order."""
    unsure: str = ""
    """Why part of the line could not be followed ("" when all of it was)."""


def read_line(text: str, folder: str) -> LineReading:
    """The simple commands of ``text`` (a command line or a script), each with the folder
    it runs in when the line starts in ``folder`` (absolute)."""
    unsure: list[str] = []
    if len(text) > MAX_CHARS:
        text = text[:MAX_CHARS]
        unsure.append(f"only its first {MAX_CHARS // 1024} KB were read")
    start = os.path.normpath(folder)
    here = start
    stack: list[str] = []
    pushed: list[str] = []
    parts: list[Part] = []
    moved: list[str] = []
    words: list[str] = []
    lost = False

    def end() -> None:
        nonlocal here, lost
        at = 0
        while at < len(words) and words[at] in _KEYWORDS:
            at += 1
        rest = words[at:]
        if rest and rest[0] in CD_WORDS:
            target = next((w for w in rest[1:] if not w.startswith("-") or w == "-"), None)
            if target is None or target == "-" or not _literal(target):
                shown = " ".join(rest[:2])[:60]
                unsure.append(f"it changes folder where the folder is not spelled out ({shown!r})")
                lost = True
            else:
                if rest[0] == "pushd":
                    pushed.append(here)
                here = os.path.normpath(os.path.join(here, target))
                moved.append(here)
        elif rest and rest[0] == "popd":
            here = pushed.pop() if pushed else start
        elif words and len(parts) < MAX_PARTS:
            parts.append(Part(tuple(words), here, here != start, lost))
        elif words and "more commands than are read" not in unsure:
            unsure.append("more commands than are read")
        words.clear()

    for token in _tokens(text):
        if token not in OPERATORS:
            words.append(token)
            continue
        end()
        if token == "(":
            stack.append(here)
        elif token == ")" and stack:
            here = stack.pop()
    end()
    return LineReading(tuple(parts), tuple(dict.fromkeys(moved)), "; ".join(dict.fromkeys(unsure)))


_TOPLEVEL = re.compile(r"""\$\(\s*git\s+rev-parse\s+--show-toplevel\s*\)"""
                       r"""|`\s*git\s+rev-parse\s+--show-toplevel\s*`""")
_SCRIPT_DIR = re.compile(
    r"""\$\(\s*dirname\s+(?:--\s+)?(?P<q>["']?)(?:\$0|\$\{0\}|\$\{BASH_SOURCE(?:\[0\])?\}|\$BASH_SOURCE)"""
    r"""(?P=q)\s*\)|`\s*dirname\s+(?:--\s+)?(?P<b>["']?)(?:\$0|\$\{0\}|\$\{BASH_SOURCE(?:\[0\])?\})(?P=b)\s*`|\$\{0%/\*\}""")
_CD_PWD = re.compile(r"""\$\(\s*cd\s+(?:--\s+)?(?P<q>["']?)(?P<dir>[\w./@+-]+)(?P=q)\s*"""
                     r"""(?:&&|;)\s*pwd(?:\s+-P)?\s*\)""")
_PLAIN_PATH = re.compile(r"[\w./@+-]+")


def known_folders(text: str, top: str = "", script: str = "") -> str:
    """``text`` with the folders it spells through a command written out: the work tree
    ``top`` for ``$(git rev-parse --show-toplevel)``, the folder of the hook file
    ``script`` for ``$(dirname "$0")`` and its kin (each only when given, and only a path
    of plain characters: anything else stays, and the ``cd`` stays unsure)."""
    if top and _PLAIN_PATH.fullmatch(top):
        text = _TOPLEVEL.sub(top, text)
    folder = os.path.dirname(script)
    if folder and _PLAIN_PATH.fullmatch(folder):
        text = _SCRIPT_DIR.sub(folder, text)
    return _CD_PWD.sub(lambda m: m.group("dir"), text)


def _literal(word: str) -> bool:
    """A folder named as it is: no expansion the shell would do at run time."""
    return bool(word) and not any(c in word for c in "$`*?[~\\") and "\0" not in word


def _tokens(text: str) -> list[str]:
    """The words and operators of ``text``, line by line (a new line ends a command);
    a line with an unbalanced quote is split on spaces and operators."""
    out: list[str] = []
    for line in text.splitlines():
        try:
            lexer = shlex.shlex(line, posix=True, punctuation_chars=";&|()")
            lexer.whitespace_split = True
            lexer.commenters = "#"
            found: list[str] = []
            for token in lexer:  # a run of operators comes as one token: `)&&`
                found += _OPERATOR.findall(token) if token and set(token) <= set(";&|()") else [token]
            out += found
        except ValueError:
            out += [w.strip("'\"") for w in _LOOSE.findall(line.split(" #", 1)[0])]
        out.append("\n")
    return out


def line_words(reading: LineReading) -> list[str]:
    """Every word of every part, in order (for a reader that only looks for names)."""
    return [w for part in reading.parts for w in part.words]


__all__ = ["CD_WORDS", "LineReading", "Part", "known_folders", "line_words", "read_line"]
