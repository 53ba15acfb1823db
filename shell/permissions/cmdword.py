"""What command a simple command really runs, for deny and ask rules.

Why: ``deny run_shell(rm:*)`` matched against the words as written lets
``/bin/rm``, ``\\rm``, ``r''m``, ``$'\\x72m'``, ``{rm,-rf,x}``, ``env rm``,
``flock /tmp/l rm``, ``find . -exec rm {} +``, ``bash -c 'rm …'``, ``eval rm …`` and
``git -C . push`` (for ``git push:*``) through, and a model writes some of these
with no malice at all. So before a deny or ask rule is matched, each part of a
command line (see :mod:`.shellsplit`) is also read the way the shell would
(:mod:`.shellwords`: quotes removed, ``$'…'`` decoded, braces expanded), a path
reduced to its base name, leading ``NAME=value`` assignments and wrappers
(:mod:`.wrappers`) stepped over, and the strings that other programs run as
commands (``sh -c``, ``eval``, ``find -exec``, ``git -c alias.x=!…``, ``watch``,
``su -c``, …) read again. Every reading is a candidate the rule is matched against.

Two ways a line can escape this reading, and what the caller does about them:

* *not understood* (a quote that does not close, a line the splitter is unsure
  of): a deny or ask rule whose command word appears anywhere in the line matches;
* *known only at run time* (a command word built from ``$VAR``/``$(…)``/a glob, a
  shell or ``source`` fed by a pipe, a here-string or ``<(…)``, a git ``include``):
  every deny or ask rule for the tool matches, since the text cannot say what runs.

Allow rules never use these readings: they match the words as written.
"""

from __future__ import annotations

import re
from functools import lru_cache

from .shellsplit import split_command
from .shellwords import Word, read_words
from .wrappers import (
    EXECS,
    RUNTIME_ONLY,
    WRAPPERS,
    LineOrWords,
    after_wrapper,
    exec_commands,
    git_readings,
    runs_at_run_time,
)

__all__ = ["Reading", "read_part"]

_ASSIGN = re.compile(r"[A-Za-z_][A-Za-z0-9_]*=.*", re.DOTALL)
_SHELLS = frozenset({"sh", "bash", "dash", "zsh", "ksh", "mksh", "ash", "yash", "posh", "fish"})
_APPLETS = frozenset({"busybox", "toybox"})
_SOURCES = frozenset({"source", "."})
_STDIN = ("/dev/stdin", "/dev/fd/", "/proc/self/fd/")
_SHELL_TAKES = frozenset({"-o", "+o", "-O", "+O", "--rcfile", "--init-file"})
_COMMAND_VARS = frozenset({
    "GIT_SSH_COMMAND", "GIT_SSH", "GIT_EXTERNAL_DIFF", "GIT_PAGER", "GIT_EDITOR", "GIT_SEQUENCE_EDITOR",
    "GIT_ASKPASS", "SSH_ASKPASS", "PAGER", "EDITOR", "VISUAL", "PROMPT_COMMAND",
})
"""Variables whose value a program runs as a command line: the value is read too."""
_RUNTIME_VARS = frozenset({"BASH_ENV", "ENV", "LD_PRELOAD", "GIT_CONFIG_PARAMETERS", "GIT_CONFIG_GLOBAL",
                           "GIT_CONFIG_SYSTEM", "GIT_EXEC_PATH"})
"""Variables that make the command run code named elsewhere: known only at run time."""
_MAX_DEPTH = 8


class Reading:
    """The readings of one part: each a command line of plain words joined by one
    space; ``understood`` is False when some of it could not be read, ``runtime``
    True when what it runs is known only when it runs."""

    __slots__ = ("commands", "redirects", "runtime", "texts", "understood")

    def __init__(self) -> None:
        self.texts: list[str] = []
        self.understood = True
        self.runtime = False
        self.commands: list[list[Word]] = []
        """Each reading as words (the command word reduced to its base name): what
        :mod:`.cmdwrites` looks at for the files a command writes."""
        self.redirects: list[str] = []
        """Output redirections of the lines read inside this part (``bash -c 'x > f'``)."""

    def at_runtime(self) -> None:
        self.understood = False
        self.runtime = True


@lru_cache(maxsize=1024)
def read_part(text: str) -> Reading:
    """Every way ``text`` (one simple command, as written) may name what it runs.
    Cached (deny rules and write rules read the same parts): callers only read it."""
    reading = Reading()
    _read(text, reading, 0)
    return reading


def _read(text: str, reading: Reading, depth: int) -> None:
    words = read_words(text)
    if words is None:
        reading.understood = False
        return
    _read_words(words, reading, depth)


def _read_line(line: str, reading: Reading, depth: int) -> None:
    if depth > _MAX_DEPTH:
        reading.understood = False
        return
    split = split_command(line)
    if not split.confident:
        reading.understood = False
    for part in split.parts:
        reading.redirects.extend(part.writes)
        if part.text:
            _read(part.text, reading, depth + 1)


def _follow(found: LineOrWords | None, reading: Reading, depth: int) -> list[Word]:
    """What a wrapper or a program's option runs: a line is read; words go on."""
    if isinstance(found, str):
        _read_line(found, reading, depth)
        return []
    return found or []


def _read_words(words: list[Word], reading: Reading, depth: int) -> None:
    if depth > _MAX_DEPTH:
        reading.understood = False
        return
    while words:
        while words and _ASSIGN.fullmatch(words[0].text):
            _assignment(words[0], reading, depth)
            words = words[1:]
        if not words:
            return
        head = words[0]
        if head.dynamic or not head.text:
            reading.at_runtime()  # the command word is only known when it runs
            return
        base = head.text.rsplit("/", 1)[-1] or head.text
        rest = words[1:]
        reading.texts.append(" ".join([base, *(w.text for w in rest)]))
        reading.commands.append([Word(base), *rest])
        if _runs_its_own(base, rest, reading, depth):
            return
        if base in _APPLETS:
            words = rest if rest and not rest[0].text.startswith("-") else []
            continue
        if base not in WRAPPERS:
            return
        assign = lambda w: _assignment(w, reading, depth)  # noqa: E731
        words = _follow(after_wrapper(base, rest, assign, reading.at_runtime), reading, depth)


def _runs_its_own(base: str, rest: list[Word], reading: Reading, depth: int) -> bool:
    """Programs that run a command of their own making (a shell's script, ``eval``,
    ``find -exec``, git's aliases): read it; True when ``base`` was one of them."""
    if base in _SHELLS:
        _shell(rest, reading, depth)
    elif base in _SOURCES:
        _source(rest, reading)
    elif base == "eval":
        if any(w.dynamic for w in rest):
            reading.at_runtime()
        else:
            _read_line(" ".join(w.text for w in rest), reading, depth)
    elif base in RUNTIME_ONLY:
        if runs_at_run_time(base, rest):
            reading.at_runtime()
    elif base == "command" and any(w.text in ("-v", "-V") for w in rest):
        pass  # `command -v rm` asks where rm is; it runs nothing
    elif base in ("alias", "trap"):
        # `alias r='rm -rf'` (a later line may use it), `trap 'rm …' EXIT`: each a line it runs
        lines = [w.text.partition("=")[2] for w in rest] if base == "alias" else [w.text for w in rest[:1]]
        for line in lines:
            _read_line(line, reading, depth)
    elif base in EXECS:
        for command in exec_commands(base, rest):
            _read_words(command, reading, depth + 1)
    elif base == "git":
        for line_or_words in git_readings(rest, reading.texts, reading.at_runtime):
            _read_words(_follow(line_or_words, reading, depth), reading, depth + 1)
    else:
        return False
    return True


def _assignment(word: Word, reading: Reading, depth: int) -> None:
    """``NAME=value`` before a command: a value some program runs is read as a line."""
    name, _, value = word.text.partition("=")
    if name in _RUNTIME_VARS or (word.dynamic and (name in _COMMAND_VARS or name.startswith("GIT_CONFIG"))):
        reading.at_runtime()
    elif name in _COMMAND_VARS:
        _read_line(value, reading, depth)
    elif name.startswith("GIT_CONFIG_VALUE"):
        _read_line(value.removeprefix("!"), reading, depth)
        reading.texts.append(f"git {value}")
    elif name.startswith("GIT_CONFIG_KEY") and value.lower().startswith("include"):
        reading.at_runtime()


def _stdin(word: Word) -> bool:
    """A script operand whose text arrives at run time: ``<(…)``, ``/dev/stdin``, ``-``
    (``source "$VENV/bin/activate"`` is a file: out of view, like any script)."""
    text = word.text
    return text == "-" or text.startswith(_STDIN) or (word.dynamic and text.startswith(("<(", ">(")))


def _shell(words: list[Word], reading: Reading, depth: int) -> None:
    """``sh -c STRING`` reads STRING; ``sh``/``sh -s``/``sh <(…)``/``sh /dev/stdin``
    run what arrives at run time; ``sh script`` runs a file (out of view)."""
    i = 0
    while i < len(words):
        text = words[i].text
        if text == "--":
            i += 1
            break
        if text in ("--version", "--help"):
            return
        if text in _SHELL_TAKES:
            i += 2
            continue
        if not text.startswith(("-", "+")) or text in ("-", "+"):
            break
        if not text.startswith("--") and "c" in text[1:]:
            if i + 1 >= len(words) or words[i + 1].dynamic:
                reading.at_runtime()
            else:
                _read_line(words[i + 1].text, reading, depth)
            return
        if not text.startswith("--") and "s" in text[1:]:
            reading.at_runtime()  # -s: the script comes from stdin
            return
        i += 1
    if i >= len(words) or _stdin(words[i]):
        reading.at_runtime()  # the script comes from stdin (a pipe, a here-string) or <(…)


def _source(words: list[Word], reading: Reading) -> None:
    if words and words[0].text == "--":
        words = words[1:]
    if words and _stdin(words[0]):
        reading.at_runtime()

