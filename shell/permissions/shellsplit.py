"""Split a shell command line into the simple commands it runs.

Why: a rule such as ``run_shell(git status*)`` must allow ``git status --short``
and never ``git status; rm -rf ~``. Bash runs every command joined by ``&&``,
``||``, ``;``, ``|``, ``&`` or a newline, every command inside ``$(…)``, backticks,
``<(…)`` and subshells, and a redirection can write anywhere. So the policy judges
a command line part by part: it is allowed only when every part is, denied when
any part is.

This is not a shell: it is a careful tokenizer that knows where bash starts a new
command. Whatever it cannot read with confidence (an unclosed quote, a here-doc,
arithmetic, a function definition, compound commands such as ``if``/``for``/
``case``) makes the split *unconfident*, and an unconfident split is never
allowed by a rule: the user is asked.

Each part is the command's words as written (quotes kept, whitespace between
words collapsed to one space), without its redirections; output redirections to
anything but ``/dev/null`` (and the standard streams) are kept apart in
``Part.writes`` so an allow rule never covers them.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache

__all__ = ["Part", "Split", "split_command"]


@dataclass(frozen=True, slots=True)
class Part:
    """One simple command: its words as written, and the files it redirects output to."""

    text: str
    writes: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class Split:
    """The parts of a command line; ``confident`` is False when some of it could not
    be read for sure (``problems`` says what), and then no rule may allow it."""

    parts: tuple[Part, ...]
    confident: bool
    problems: tuple[str, ...] = ()


_PLAIN = re.compile(r"[^ \t\n\\'\"$`<>|&;()]+")
_SPACE = frozenset(" \t")
r"""Bash splits words at a space, a tab and a line break only: ``PWNED3\rls`` (a lone CR),
``a\u00a0b`` and ``a\x0bb`` are ONE word each (findings 15: the approval list showed
``touch PWNED3 ls -la``, an argument bash never sees)."""
_HARMLESS_TARGETS = frozenset({"/dev/null", "/dev/stdout", "/dev/stderr", "/dev/tty"})
_KEYWORDS = frozenset({
    "if", "then", "else", "elif", "fi", "do", "done", "while", "until", "for", "case", "esac",
    "function", "select", "[[", "]]", "!", "time", "coproc", "in",
})
_MAX_DEPTH = 20


class _Command:
    """The command being read: its words so far, the word being built, its writes."""

    __slots__ = ("in_word", "parser", "word", "words", "writes")

    def __init__(self, parser: _Parser) -> None:
        self.parser = parser
        self.words: list[str] = []
        self.writes: list[str] = []
        self.word: list[str] = []
        self.in_word = False

    def add(self, text: str) -> None:
        self.word.append(text)
        self.in_word = True

    def end_word(self) -> None:
        if self.in_word:
            self.words.append("".join(self.word))
            self.word.clear()
            self.in_word = False

    def end_command(self) -> None:
        self.end_word()
        words, writes, parser = self.words, self.writes, self.parser
        if words:
            if words[0] in _KEYWORDS:
                parser.problem(f"compound command ({words[0]})")
            parser.parts.append(Part(" ".join(words), tuple(writes)))
        elif writes:
            parser.parts.append(Part("", tuple(writes)))
        words.clear()
        writes.clear()


class _Parser:
    """One pass over the text; ``parts`` and ``problems`` collect as it goes."""

    __slots__ = ("n", "parts", "problems", "s")

    def __init__(self, text: str) -> None:
        self.s = text
        self.n = len(text)
        self.parts: list[Part] = []
        self.problems: list[str] = []

    def problem(self, text: str) -> None:
        if text not in self.problems:
            self.problems.append(text)

    # -- a list of commands, up to ``closer`` (")" for $( … ) and subshells) or the end
    def commands(self, i: int, closer: str | None, depth: int) -> int:
        if depth > _MAX_DEPTH:
            self.problem("nested too deeply")
            return self.n
        s, n = self.s, self.n
        cmd = _Command(self)
        while i < n:
            c = s[i]
            if c in _SPACE:
                cmd.end_word()
                i += 1
                continue
            m = _PLAIN.match(s, i)
            if m:
                i = self.plain(m, cmd)
            elif c == "\\":
                i = self.backslash(i, cmd)
            elif c == "'":
                i = self.single_quoted(i, cmd)
            elif c in _EXPANSIONS:
                i = _EXPANSIONS[c](self, i, cmd.word, depth)
                cmd.in_word = True
            elif c in "<>" and s.startswith("(", i + 1):  # <(…) / >(…): a word (a file name) that runs
                i = self.redirection(i, cmd.word, cmd.in_word, cmd.writes, depth)
                cmd.in_word = True
            elif c in "<>" or (c == "&" and s.startswith("&>", i)):
                i = self.redirection(i, cmd.word, cmd.in_word, cmd.writes, depth)
                if cmd.in_word and cmd.word and "".join(cmd.word).isdigit():  # "2>": the fd was no word
                    cmd.word.clear()
                    cmd.in_word = False
            elif c == ")":
                cmd.end_command()
                if closer == ")":
                    return i + 1
                self.problem("an unmatched )")
                i += 1
            else:
                i = self.operator(i, cmd, depth)
        cmd.end_command()
        if closer is not None:
            self.problem(f"an unclosed {'$(' if closer == ')' else closer}")
        return n

    def plain(self, m: re.Match[str], cmd: _Command) -> int:
        """Ordinary characters: part of a word (a comment, a group's brace on their own)."""
        s, n, i = self.s, self.n, m.start()
        text = m.group()
        if not cmd.in_word and text[0] == "#":  # a comment runs to the end of the line
            nl = s.find("\n", i)
            return n if nl < 0 else nl
        if not cmd.in_word and text in ("{", "}") and (i + 1 >= n or s[i + 1] in " \t\n;"):
            return i + 1  # a group's braces are words of their own; its commands are split anyway
        cmd.add(text)
        return m.end()

    def backslash(self, i: int, cmd: _Command) -> int:
        s, n = self.s, self.n
        if i + 1 < n and s[i + 1] == "\n":
            return i + 2  # a line continuation
        if i + 1 >= n:
            self.problem("a backslash at the end")
        cmd.add(s[i : i + 2])
        return i + 2

    def single_quoted(self, i: int, cmd: _Command) -> int:
        j = self.s.find("'", i + 1)
        if j < 0:
            self.problem("an unclosed quote")
            j = self.n - 1
        cmd.add(self.s[i : j + 1])
        return j + 1

    def operator(self, i: int, cmd: _Command, depth: int) -> int:
        """``(`` (a subshell), ``;``, ``&``, ``|``, a newline: the command ends here."""
        s, c = self.s, self.s[i]
        if c == "(":
            if cmd.in_word or cmd.words:
                self.problem("a parenthesis inside a command (function definition or array)")
                cmd.add("(")
                return i + 1
            if s.startswith("((", i):
                self.problem("arithmetic (( … ))")
            cmd.end_command()
            return self.commands(i + 1, ")", depth + 1)  # a subshell: its commands are parts
        if c in ";&|\n":
            if s.startswith(";;", i):
                self.problem("case syntax (;;)")
            cmd.end_command()
            return i + (2 if s.startswith(("&&", "||", "|&", ";;"), i) else 1)
        cmd.add(c)  # unreachable in practice: every other character is plain
        return i + 1

    def double_quoted(self, i: int, word: list[str], depth: int) -> int:
        """``"…"``: text, but ``$(…)`` and backticks inside still run commands."""
        s, n = self.s, self.n
        start = i
        i += 1
        while i < n:
            c = s[i]
            if c == "\\":
                i += 2
                continue
            if c == '"':
                word.append(s[start : i + 1])
                return i + 1
            if c == "$" and i + 1 < n and s[i + 1] in "({":  # $'…' is not special inside "…"
                word.append(s[start:i])
                i = self.dollar(i, word, depth)
                start = i
                continue
            if c == "`":
                word.append(s[start:i])
                i = self.backticks(i, word, depth)
                start = i
                continue
            i += 1
        self.problem("an unclosed quote")
        word.append(s[start:])
        return n

    def dollar(self, i: int, word: list[str], depth: int) -> int:
        s, n = self.s, self.n
        nxt = s[i + 1] if i + 1 < n else ""
        if nxt == "(":
            if s.startswith("$((", i):
                self.problem("arithmetic $(( … ))")
            end = self.commands(i + 2, ")", depth + 1)
            word.append(s[i:end])
            return end
        if nxt == "{":
            end = s.find("}", i + 2)
            inner = s[i + 2 : end] if end >= 0 else s[i + 2 :]
            if end < 0 or "$(" in inner or "`" in inner or "{" in inner:
                self.problem("a parameter expansion that runs or nests something")
                end = n - 1 if end < 0 else end
            word.append(s[i : end + 1])
            return end + 1
        if nxt == "'":  # $'…' (ANSI-C quoting): backslash escapes, ends at an unescaped '
            j = i + 2
            while j < n and s[j] != "'":
                j += 2 if s[j] == "\\" else 1
            if j >= n:
                self.problem("an unclosed quote")
                j = n - 1
            word.append(s[i : j + 1])
            return j + 1
        word.append("$")
        return i + 1

    def backticks(self, i: int, word: list[str], depth: int) -> int:
        s, n = self.s, self.n
        j = i + 1
        while j < n and s[j] != "`":
            j += 2 if s[j] == "\\" else 1
        if j >= n:
            self.problem("an unclosed backtick")
            j = n
        inner = s[i + 1 : j].replace("\\`", "`").replace("\\\\", "\\")
        sub = _Parser(inner)
        sub.commands(0, None, depth + 1)
        self.parts.extend(sub.parts)
        for p in sub.problems:
            self.problem(p)
        word.append(s[i : j + 1])
        return j + 1

    def redirection(self, i: int, word: list[str], in_word: bool, writes: list[str], depth: int) -> int:
        """``>``, ``>>``, ``>|``, ``&>``, ``&>>``, ``<``, ``<>``, ``>&N``, ``<<<``, ``<<``,
        and process substitution ``<(…)`` / ``>(…)`` (whose commands are parts)."""
        s, n = self.s, self.n
        if s.startswith(("<(", ">("), i):
            end = self.commands(i + 2, ")", depth + 1)
            word.append(s[i:end])
            return end
        for op in ("&>>", "&>", ">>", ">|", ">&", "<<<", "<<", "<>", "<&", ">", "<"):
            if s.startswith(op, i):
                break
        i += len(op)
        if op == "<<":
            self.problem("a here-document")
            return n
        while i < n and s[i] in _SPACE:
            i += 1
        j = i
        while j < n and s[j] not in " \t\n;&|()<>":
            if s[j] in "'\"":
                q = s.find(s[j], j + 1)
                j = n if q < 0 else q + 1
                continue
            if s[j] == "$" and s.startswith("$(", j):
                sub: list[str] = []
                j = self.dollar(j, sub, depth)
                continue
            if s[j] == "`":
                sub2: list[str] = []
                j = self.backticks(j, sub2, depth)
                continue
            j += 1
        target_text = s[i:j]
        if not target_text:
            self.problem(f"a redirection ({op}) with no target")
        elif op in (">&", "<&") and (target_text.isdigit() or target_text == "-"):
            pass  # duplicating a descriptor writes no file
        elif op in ("<", "<<<"):
            pass  # reading: the command decides what it does with the input
        elif target_text not in _HARMLESS_TARGETS:
            writes.append(target_text)
        return j


_EXPANSIONS: dict[str, Callable[[_Parser, int, list[str], int], int]] = {
    '"': _Parser.double_quoted,
    "$": _Parser.dollar,
    "`": _Parser.backticks,
}
"""What starts inside a word and may run commands of its own: read by these."""


@lru_cache(maxsize=2048)
def split_command(command: str) -> Split:
    """The simple commands of ``command`` (cached: the same line is judged often)."""
    parser = _Parser(command)
    parser.commands(0, None, 0)
    parts = tuple(parser.parts)
    if not any(p.text for p in parts) and command.strip():
        parser.problem("no command found")
    return Split(parts, not parser.problems, tuple(parser.problems))
