"""Glob patterns and ``.gitignore`` rules, and a walk over the files they allow.

``grep`` and ``glob`` skip what git ignores, the way ripgrep does, so a model
searching a project does not drown in ``node_modules`` or build output. This is a
self-contained matcher (no ``git`` process): it reads every ``.gitignore`` on the
way down plus ``.git/info/exclude``, and applies the documented rules: ``#``
comments, ``!`` negation (last match wins), a trailing ``/`` for directories only,
a ``/`` elsewhere anchoring the pattern to its file's directory, and ``**``.
An ignored directory is not entered, so nothing below it can be re-included.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path


@lru_cache(maxsize=512)
def glob_to_regex(pattern: str, *, braces: bool = True) -> re.Pattern[str]:
    """Compile a glob over ``/``-separated relative paths to an anchored regex.

    ``*`` and ``?`` stay within one path segment, ``**`` as a whole segment spans
    any number of directories (zero included), ``[...]`` is a character class
    (``[!...]`` negated) and, when ``braces``, ``{a,b}`` is an alternation.
    """
    return re.compile(_translate(pattern, braces) + r"\Z", re.DOTALL)


def _translate(pattern: str, braces: bool) -> str:
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


@dataclass(frozen=True, slots=True)
class IgnoreRule:
    regex: re.Pattern[str]
    negate: bool
    dir_only: bool
    anchored: bool
    base: str
    """The directory of the file the rule came from, relative to the walk root ("" for the root)."""

    def matches(self, rel: str, is_dir: bool) -> bool:
        if self.dir_only and not is_dir:
            return False
        if self.base:
            if not rel.startswith(self.base + "/"):
                return False
            rel = rel[len(self.base) + 1 :]
        subject = rel if self.anchored else rel.rsplit("/", 1)[-1]
        return self.regex.match(subject) is not None


def parse_ignore_file(text: str, base: str = "") -> list[IgnoreRule]:
    """The rules of one ``.gitignore`` whose directory is ``base`` (relative, posix)."""
    rules = []
    for line in text.splitlines():
        if not line or line.startswith("#"):
            continue
        if not line.endswith("\\ "):
            line = line.rstrip()
        if not line:
            continue
        negate = line.startswith("!")
        if negate or line.startswith("\\!") or line.startswith("\\#"):
            line = line[1:]
        dir_only = line.endswith("/")
        line = line.rstrip("/")
        if not line:
            continue
        anchored = "/" in line
        line = line.lstrip("/")
        rules.append(IgnoreRule(glob_to_regex(line, braces=False), negate, dir_only, anchored, base))
    return rules


class GitIgnore:
    """Answers "is this path ignored?" for paths below ``root``, reading rules lazily."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self._by_dir: dict[str, list[IgnoreRule]] = {}
        exclude = root / ".git" / "info" / "exclude"
        self._global = parse_ignore_file(_read(exclude)) if exclude.is_file() else []

    def _rules_in(self, rel_dir: str) -> list[IgnoreRule]:
        rules = self._by_dir.get(rel_dir)
        if rules is None:
            rules = parse_ignore_file(_read(self.root / rel_dir / ".gitignore"), rel_dir)
            self._by_dir[rel_dir] = rules
        return rules

    def ignored(self, rel: str, is_dir: bool) -> bool:
        """Whether ``rel`` (posix, relative to the root) is ignored; parents are not checked."""
        if rel.rsplit("/", 1)[-1] == ".git":
            return True
        parts = rel.split("/")[:-1]
        chains = [self._global, self._rules_in("")]
        chains += [self._rules_in("/".join(parts[: k + 1])) for k in range(len(parts))]
        verdict = False
        for rules in chains:
            for rule in rules:
                if rule.matches(rel, is_dir):
                    verdict = not rule.negate
        return verdict

    def ignored_with_parents(self, rel: str, is_dir: bool) -> bool:
        """Like :meth:`ignored`, but also true when any parent directory is ignored."""
        parts = rel.split("/")
        return any(self.ignored("/".join(parts[: k + 1]), True) for k in range(len(parts) - 1)) or (
            self.ignored(rel, is_dir)
        )


def _read(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return ""


def ignore_root_for(start: Path, fallback: Path) -> Path:
    """Where ``.gitignore`` rules start: the enclosing git work tree, else ``fallback``
    when ``start`` is inside it, else ``start`` itself."""
    for candidate in (start, *start.parents):
        if (candidate / ".git").exists():
            return candidate
    if start == fallback or fallback in start.parents:
        return fallback
    return start


@dataclass(slots=True)
class WalkStats:
    ignored: int = 0


def walk_files(start: Path, ignore_root: Path, stats: WalkStats | None = None) -> Iterator[Path]:
    """Files below ``start`` (sorted, symlinked directories not followed), minus ignored ones."""
    matcher = GitIgnore(ignore_root)
    stats = stats if stats is not None else WalkStats()
    for dirpath, dirnames, filenames in os.walk(start):
        here = Path(dirpath)
        rel_dir = here.relative_to(ignore_root).as_posix() if here != ignore_root else ""
        prefix = f"{rel_dir}/" if rel_dir else ""
        kept = []
        for d in sorted(dirnames):
            if matcher.ignored(prefix + d, True):
                stats.ignored += d != ".git"
            else:
                kept.append(d)
        dirnames[:] = kept
        for f in sorted(filenames):
            if matcher.ignored(prefix + f, False):
                stats.ignored += 1
            else:
                yield here / f
