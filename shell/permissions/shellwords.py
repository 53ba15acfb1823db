"""The words of one simple command as the shell hands them to the program.

Why: a deny rule for ``rm`` must see ``rm`` in ``$'\\x72m'`` (ANSI-C quoting) and
in ``{rm,-rf,x}`` (brace expansion), and must know when a word is only known at
run time (``$R$M``, ``$(…)``, a glob, ``<(…)``). :func:`shlex.split` knows none of
this. This reader removes quotes and backslashes, decodes ``$'…'``, expands braces,
and marks every word whose text comes from an expansion as ``dynamic``. It reads
one part that :mod:`.shellsplit` already cut out; it is not a shell.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable
from dataclasses import dataclass

__all__ = ["Word", "read_words"]

_SPACE = frozenset(" \t\r\n")
_SIMPLE_ESCAPES = {"a": "\a", "b": "\b", "e": "\x1b", "E": "\x1b", "f": "\f", "n": "\n", "r": "\r",
                   "t": "\t", "v": "\v", "\\": "\\", "'": "'", '"': '"', "?": "?"}
_MAX_WORDS = 256


@dataclass(frozen=True, slots=True)
class Word:
    """One word: its text where known; ``dynamic`` when an expansion (``$x``,
    ``$(…)``, a glob, ``<(…)``) decides it only when the line runs."""

    text: str
    dynamic: bool = False


class _Builder:
    """The word being read: its characters, which of them were quoted, and whether
    anything in it is only known at run time."""

    __slots__ = ("chars", "dynamic", "quoted", "started")

    def __init__(self) -> None:
        self.chars: list[str] = []
        self.quoted: list[bool] = []
        self.dynamic = False
        self.started = False

    def add(self, text: str, quoted: bool) -> None:
        self.chars.extend(text)
        self.quoted.extend([quoted] * len(text))
        self.started = True


def read_words(text: str) -> list[Word] | None:
    """The words of ``text`` after quote removal, ``$'…'`` decoding and brace
    expansion; None when a quote does not close (the line cannot be read)."""
    out: list[Word] = []
    b = _Builder()
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if c in _SPACE:
            _finish(b, out)
            b = _Builder()
            i += 1
        elif c == "\\":
            if i + 1 < n and text[i + 1] != "\n":
                b.add(text[i + 1], True)
            i += 2
        elif c == "'":
            j = text.find("'", i + 1)
            if j < 0:
                return None
            b.add(text[i + 1 : j], True)
            i = j + 1
        elif c == '"':
            i = _quoted(text, i + 1, b, '"', _double_step)
            if i < 0:
                return None
        elif c == "$" and text.startswith("$'", i):
            i = _quoted(text, i + 2, b, "'", _ansi_c_step)
            if i < 0:
                return None
        elif c == "$" and text.startswith('$"', i):
            i = _quoted(text, i + 2, b, '"', _double_step)
            if i < 0:
                return None
        elif c == "$" or c == "`" or (c in "<>" and text.startswith("(", i + 1)):
            i = _expansion(text, i, b)
        else:
            b.add(c, False)
            i += 1
    _finish(b, out)
    return out


def _quoted(text: str, i: int, b: _Builder, close: str, step: Callable[[str, int, _Builder], int]) -> int:
    """The one loop for both quote kinds: ``step`` reads one character or escape
    and returns where the next starts; -1 when the quote never closes."""
    n = len(text)
    b.started = True
    while i < n:
        if text[i] == close:
            return i + 1
        i = step(text, i, b)
    return -1


def _double_step(text: str, i: int, b: _Builder) -> int:
    """Inside ``"…"`` backslash escapes only ``$ ` " \\``; ``$`` and backticks
    still expand."""
    n = len(text)
    c = text[i]
    if c == "\\" and i + 1 < n and text[i + 1] in '$`"\\\n':
        if text[i + 1] != "\n":
            b.add(text[i + 1], True)
        return i + 2
    if c == "`" or (c == "$" and i + 1 < n and (text[i + 1].isalnum() or text[i + 1] in "_{(@*#?$!-")):
        return _expansion(text, i, b)
    b.add(c, True)
    return i + 1


def _ansi_c_step(text: str, i: int, b: _Builder) -> int:
    """Inside ``$'…'`` escapes decode as bash does."""
    n = len(text)
    c = text[i]
    if c != "\\" or i + 1 >= n:
        b.add(c, True)
        return i + 1
    e = text[i + 1]
    i += 2
    if e in _SIMPLE_ESCAPES:
        b.add(_SIMPLE_ESCAPES[e], True)
    elif e in "01234567":
        j = i - 1
        while j < n and j < i + 2 and text[j] in "01234567":
            j += 1
        b.add(chr(int(text[i - 1 : j], 8) & 0xFF), True)
        i = j
    elif e in "xuU":
        most = {"x": 2, "u": 4, "U": 8}[e]
        j = i
        while j < n and j < i + most and text[j] in "0123456789abcdefABCDEF":
            j += 1
        if j == i:
            b.add("\\" + e, True)
        else:
            b.add(chr(min(int(text[i:j], 16), 0x10FFFF)), True)
        i = j
    elif e == "c" and i < n:
        b.add(chr(ord(text[i]) & 0x1F), True)
        i += 1
    else:
        b.add("\\" + e, True)
    return i


def _expansion(text: str, i: int, b: _Builder) -> int:
    """``$name``, ``${…}``, ``$(…)``, ``$((…))``, backticks, ``<(…)``/``>(…)``:
    kept as written and marked dynamic. Returns the index after it."""
    n = len(text)
    was, b.dynamic = b.dynamic, True
    start = i
    if text[i] == "`":
        j = i + 1
        while j < n and text[j] != "`":
            j += 2 if text[j] == "\\" else 1
        end = min(j + 1, n)
    elif text[i] in "<>" or text.startswith("$(", i):
        end = _balanced(text, i + 1)
    elif text.startswith("${", i):
        j = text.find("}", i)
        end = n if j < 0 else j + 1
    else:
        j = i + 1
        if j < n and (text[j].isdigit() or text[j] in "@*#?$!-"):
            j += 1
        else:
            while j < n and (text[j].isalnum() or text[j] == "_"):
                j += 1
        if j == i + 1:  # a lone "$" is just a dollar sign
            b.dynamic = was
            b.add("$", False)
            return i + 1
        end = j
    b.add(text[start:end], True)
    return end


def _balanced(text: str, i: int) -> int:
    """The index after the ``)`` that closes the ``(`` at ``i``, skipping quotes."""
    n, depth = len(text), 0
    while i < n:
        c = text[i]
        if c == "\\":
            i += 2
            continue
        if c in "'\"":
            j = text.find(c, i + 1)
            i = n if j < 0 else j + 1
            continue
        if c == "(":
            depth += 1
        elif c == ")":
            depth -= 1
            if depth == 0:
                return i + 1
        i += 1
    return n


def _finish(b: _Builder, out: list[Word]) -> None:
    if not b.started:
        return
    chars, quoted = b.chars, b.quoted
    text = "".join(chars)
    glob = any(not q and (ch in "*?" or (ch == "[" and "]" in chars[k + 1 :]))
               for k, (ch, q) in enumerate(zip(chars, quoted, strict=True)))
    dynamic = b.dynamic or glob
    expanded = _braces(chars, quoted)
    if expanded is None or len(out) + len(expanded) > _MAX_WORDS:
        out.append(Word(text, True))  # too much to expand: known only when it runs
        return
    out.extend(Word(w, dynamic) for w in expanded if w or len(expanded) == 1)


def _braces(chars: list[str], quoted: list[bool]) -> list[str] | None:
    """Bash's brace expansion of one word (``{a,b}c``, ``x{1..3}``), outermost
    first; None when it grows past what a rule needs to see."""
    results: list[str] = []
    stack: list[tuple[list[str], list[bool]]] = [(chars, quoted)]
    while stack:
        cs, qs = stack.pop()
        found = _first_brace(cs, qs)
        if found is None:
            results.append("".join(cs))
        else:
            open_at, close_at, alternatives = found
            for alt_c, alt_q in reversed(alternatives):
                tail_c, tail_q = cs[close_at + 1 :], qs[close_at + 1 :]
                stack.append((cs[:open_at] + alt_c + tail_c, qs[:open_at] + alt_q + tail_q))
        if len(results) + len(stack) > _MAX_WORDS:
            return None
    return results


def _first_brace(
    cs: list[str], qs: list[bool]
) -> tuple[int, int, list[tuple[list[str], list[bool]]]] | None:
    """The first unquoted ``{…}`` with a top-level comma or a ``..`` range."""
    for start, (ch, q) in enumerate(zip(cs, qs, strict=True)):
        if ch != "{" or q or (start and cs[start - 1] == "$" and not qs[start - 1]):
            continue
        depth, commas = 0, list[int]()
        for k in range(start, len(cs)):
            if qs[k]:
                continue
            if cs[k] == "{":
                depth += 1
            elif cs[k] == "}":
                depth -= 1
                if depth == 0:
                    if commas:
                        cuts = [start, *commas, k]
                        return start, k, [(cs[a + 1 : z], qs[a + 1 : z]) for a, z in itertools.pairwise(cuts)]
                    seq = _sequence("".join(cs[start + 1 : k]))
                    if seq is not None:
                        return start, k, [(list(s), [True] * len(s)) for s in seq]
                    break
            elif cs[k] == "," and depth == 1:
                commas.append(k)
    return None


def _sequence(inner: str) -> list[str] | None:
    """``1..3``, ``a..e``, ``1..9..2``: the words of a brace range, or None."""
    parts = inner.split("..")
    if len(parts) not in (2, 3):
        return None
    try:
        step = abs(int(parts[2])) or 1 if len(parts) == 3 else 1
    except ValueError:
        return None
    a, z = parts[0], parts[1]
    if len(a) == 1 and len(z) == 1 and a.isalpha() and z.isalpha():
        lo, hi = ord(a), ord(z)
        span = range(lo, hi + 1, step) if lo <= hi else range(lo, hi - 1, -step)
        return [chr(x) for x in span][: _MAX_WORDS + 1]
    try:
        lo_i, hi_i = int(a), int(z)
    except ValueError:
        return None
    if abs(hi_i - lo_i) // step > _MAX_WORDS:
        return [str(lo_i)] * (_MAX_WORDS + 1)  # too many: the caller gives up on it
    span = range(lo_i, hi_i + 1, step) if lo_i <= hi_i else range(lo_i, hi_i - 1, -step)
    return [str(x) for x in span]
