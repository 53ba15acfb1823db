"""Glob patterns over ``/``-separated relative paths, compiled so that no pattern can
hold the shell: a glob with at most two wildcards runs on Python's engine (at worst
quadratic in one path's length), one with more on RE2 (linear). A repository's
``.gitignore`` and a model's ``glob`` argument are both outside input
(``*a*a*a*a*a*b`` over a long name would otherwise backtrack for hours).

Apart from :mod:`.ignore` (the rules and the walk), which compiles its rules here,
as ``grep`` and ``glob`` compile theirs.
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Protocol

MAX_PLAIN_WILDCARDS = 2
"""Globs with more wildcards than this match on RE2 (see the module docstring)."""

class GlobMatcher(Protocol):
    def match(self, subject: str) -> object | None: ...


class _Re2Glob:
    """A glob on RE2: whole-string matches over the UTF-8 bytes."""

    __slots__ = ("regex",)

    def __init__(self, source: str) -> None:
        import re2  # type: ignore[import-untyped]  # at the first glob with many wildcards, not at start

        options = re2.Options()
        options.log_errors = False
        options.dot_nl = True
        self.regex = re2.compile(source.encode("utf-8", "surrogatepass"), options=options)

    def match(self, subject: str) -> object | None:
        found: object | None = self.regex.fullmatch(subject.encode("utf-8", "surrogatepass"))
        return found


@lru_cache(maxsize=512)
def glob_to_regex(pattern: str, *, braces: bool = True) -> GlobMatcher:
    """Compile a glob over ``/``-separated relative paths to an anchored matcher
    (``.match(path)``: the whole path must match).

    ``*`` and ``?`` stay within one path segment, ``**`` as a whole segment spans
    any number of directories (zero included), ``[...]`` is a character class
    (``[!...]`` negated) and, when ``braces``, ``{a,b}`` is an alternation.
    """
    source = glob_source(pattern, braces)
    if source.count("*") <= MAX_PLAIN_WILDCARDS:
        return re.compile(source + r"\Z", re.DOTALL)
    import re2

    try:
        return _Re2Glob(source)
    except re2.error:  # a class RE2 reads differently: Python's engine, with the wildcards it has
        return re.compile(source + r"\Z", re.DOTALL)


def glob_source(pattern: str, braces: bool) -> str:
    """The regex source of ``pattern``, unanchored (RE2's sets of rules take it as is)."""
    out: list[str] = []
    i, n = 0, len(pattern)
    depth = 0
    while i < n:
        c = pattern[i]
        if c == "*":
            if pattern.startswith("**", i) and (i == 0 or pattern[i - 1] == "/"):
                end = i + 2
                if end == n:
                    out.append(".*")
                    i = end
                    continue
                if pattern[end] == "/":
                    out.append("(?:.*/)?")
                    i = end + 1
                    continue
            while i < n and pattern[i] == "*":
                i += 1
            out.append("[^/]*")
            continue
        if c == "?":
            out.append("[^/]")
        elif c == "[":
            j = pattern.find("]", i + 2 if pattern[i + 1 : i + 2] in ("!", "^", "]") else i + 1)
            if j == -1:
                out.append(re.escape(c))
            else:
                body = pattern[i + 1 : j]
                if body[:1] in ("!", "^"):
                    body = "^" + body[1:]
                out.append("[" + body.replace("\\", "\\\\") + "]")
                i = j
        elif c == "\\" and i + 1 < n:
            i += 1
            out.append(re.escape(pattern[i]))
        elif braces and c == "{":
            depth += 1
            out.append("(?:")
        elif braces and c == "}" and depth:
            depth -= 1
            out.append(")")
        elif braces and c == "," and depth:
            out.append("|")
        else:
            out.append(re.escape(c))
        i += 1
    return "".join(out)


__all__ = ["MAX_PLAIN_WILDCARDS", "GlobMatcher", "glob_source", "glob_to_regex"]
