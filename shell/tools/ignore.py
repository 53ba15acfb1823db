"""Glob patterns and ``.gitignore`` rules, and a walk over the files they allow.

``grep`` and ``glob`` skip what git ignores, the way ripgrep does, so a model
searching a project does not drown in ``node_modules`` or build output. This is a
self-contained matcher (no ``git`` process): it reads every ``.gitignore`` on the
way down plus ``.git/info/exclude``, and applies the documented rules: ``#``
comments, ``!`` negation (last match wins), a trailing ``/`` for directories only,
a ``/`` elsewhere anchoring the pattern to its file's directory, and ``**``.
An ignored directory is not entered, so nothing below it can be re-included.

A repository is outside input too. Its ``.gitignore`` and its file names are
chosen by whoever wrote it, so a glob cannot be allowed to backtrack without
end (``*a*a*a*a*a*b`` over a long name would hold the shell for hours): a glob
with at most two wildcards runs on Python's engine (at worst quadratic in one
path's length), one with more on RE2 (linear). The walk goes through directory
file descriptors and never follows a symlink (one swapped in mid-walk cannot
lead it elsewhere); a symlink loop is skipped and counted, never fatal.
"""

from __future__ import annotations

import errno
import os
import re
import stat
import time
from collections.abc import Generator, Iterator
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

from .globmatch import GlobMatcher as GlobMatcher  # re-exported: callers import the ignore rules
from .globmatch import glob_source
from .globmatch import glob_to_regex as glob_to_regex

MAX_IGNORE_FILE_BYTES = 1 << 20
"""Of a ``.gitignore``, what is read (a hostile one may be huge)."""
MAX_IGNORE_RULES = 5_000
"""Rules read from one ``.gitignore``; the rest are not applied, and the walk says so."""


@dataclass(frozen=True, slots=True)
class IgnoreRule:
    pattern: str
    """The glob, without its ``!``, leading ``/`` and trailing ``/``."""
    negate: bool
    dir_only: bool
    anchored: bool
    base: str
    """The directory of the file the rule came from, relative to the walk root ("" for the root)."""

    @property
    def regex(self) -> GlobMatcher:
        return glob_to_regex(self.pattern, braces=False)

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
    """The rules of one ``.gitignore`` whose directory is ``base`` (relative, posix),
    at most ``MAX_IGNORE_RULES`` of them (see :func:`compile_ignore_file`)."""
    rules: list[IgnoreRule] = []
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
        if len(rules) >= MAX_IGNORE_RULES:
            break
        rules.append(IgnoreRule(line, negate, dir_only, anchored, base))
    return rules


_GLOB_CHARS = re.compile(r"[*?\[\\]")


def _literal(pattern: str) -> bool:
    return _GLOB_CHARS.search(pattern) is None


class RuleSet:
    """One ``.gitignore``'s rules, grouped so a path costs a few dictionary lookups
    and one pass of one RE2 set per group, whatever the number of rules: literal
    names, ``*.ext`` suffixes and literal anchored paths go in dictionaries, the
    rest in RE2 sets that report every rule that matches at once. "Last match
    wins" is the highest rule index among the matches."""

    __slots__ = ("base", "dropped", "names", "negate", "paths", "sets", "slow", "source", "suffixes")

    def __init__(self, rules: list[IgnoreRule], base: str, dropped: int = 0, source: str = "") -> None:
        self.base = base
        self.source = source
        """The text the rules were read from: what a walk that keeps listings compares
        (:mod:`.scanwalk`), since a ``.gitignore`` edited in place leaves its folder as it was."""
        self.dropped = dropped
        """Rules past ``MAX_IGNORE_RULES`` that were not read."""
        self.negate = [rule.negate for rule in rules]
        self.names: dict[str, list[int]] = {}
        self.suffixes: dict[str, list[int]] = {}
        self.paths: dict[str, list[int]] = {}
        sources: dict[tuple[bool, bool], list[tuple[int, str]]] = {}
        self.slow: list[tuple[int, IgnoreRule]] = []
        for index, rule in enumerate(rules):
            pattern = rule.pattern
            if not rule.anchored and _literal(pattern):
                _note(self.names, pattern, index, rule.dir_only)
            elif (not rule.anchored and pattern.startswith("*.") and _literal(pattern[1:])):
                _note(self.suffixes, pattern[1:], index, rule.dir_only)
            elif rule.anchored and _literal(pattern):
                _note(self.paths, pattern, index, rule.dir_only)
            else:
                sources.setdefault((rule.anchored, rule.dir_only), []).append((index, pattern))
        self.sets: list[tuple[bool, bool, object, list[int]]] = []
        for (anchored, dir_only), group in sources.items():
            compiled, indices = _re2_set(group)
            if compiled is not None:
                self.sets.append((anchored, dir_only, compiled, indices))
            done = set(indices)
            self.slow += [(index, rules[index]) for index, _ in group if index not in done]

    def last_match(self, sub: str, is_dir: bool) -> int:
        """The index of the last rule matching ``sub`` (relative to :attr:`base`), or -1."""
        name = sub.rsplit("/", 1)[-1]
        best = -1
        slot = 2 if is_dir else 1
        hits = self.names.get(name)
        if hits is not None:
            best = max(hits[:slot])
        if self.suffixes:
            dot = name.find(".")
            while dot != -1:
                hits = self.suffixes.get(name[dot:])
                if hits is not None:
                    best = max(best, *hits[:slot])
                dot = name.find(".", dot + 1)
        hits = self.paths.get(sub)
        if hits is not None:
            best = max(best, *hits[:slot])
        for anchored, dir_only, compiled, indices in self.sets:
            if dir_only and not is_dir:
                continue
            found = compiled.Match((sub if anchored else name).encode("utf-8", "surrogatepass"))  # type: ignore[attr-defined]
            if found:
                best = max(best, max(indices[i] for i in found))
        for index, rule in self.slow:
            if (index > best and not (rule.dir_only and not is_dir)
                    and rule.regex.match(sub if rule.anchored else name) is not None):
                best = index
        return best


def _note(table: dict[str, list[int]], key: str, index: int, dir_only: bool) -> None:
    """Record rule ``index`` under ``key``: slot 0 the last rule for any path, slot 1
    the last for directories only (so ``hits[:1]`` is for files, ``hits[:2]`` for folders)."""
    hits = table.setdefault(key, [-1, -1])
    hits[1 if dir_only else 0] = index


def _re2_set(group: list[tuple[int, str]]) -> tuple[object | None, list[int]]:
    """The group's globs in one RE2 set (whole-string matches); a glob RE2 reads
    differently is left out (it matches on its own, see :attr:`RuleSet.slow`)."""
    import re2  # type: ignore[import-untyped]

    options = re2.Options()
    options.log_errors = False
    options.dot_nl = True
    options.max_mem = 64 << 20
    compiled = re2.Set.FullMatchSet(options)
    indices: list[int] = []
    for index, pattern in group:
        try:
            compiled.Add(glob_source(pattern, False).encode("utf-8", "surrogatepass"))
        except re2.error:
            continue
        indices.append(index)
    if not indices:
        return None, []
    compiled.Compile()
    return compiled, indices


@lru_cache(maxsize=128)
def compile_ignore_file(text: str, base: str = "") -> RuleSet:
    """One ``.gitignore`` read and grouped (cached: the same file is walked before
    and after every command). Only its first ``MAX_IGNORE_RULES`` rules count: a
    repository's ``.gitignore`` is outside input, and one with a million rules
    must not make every command crawl."""
    rules = parse_ignore_file(text, base)
    dropped = 0
    if len(rules) >= MAX_IGNORE_RULES:
        dropped = _count_rules(text) - len(rules)
    return RuleSet(rules, base, dropped, text)


def _count_rules(text: str) -> int:
    """How many rule lines ``text`` holds (cheaply, for the note on dropped ones)."""
    return sum(1 for line in text.splitlines() if line.strip() and not line.startswith("#"))


class Chain:
    """The rules that apply inside one directory: its own ``.gitignore`` on top of
    its parent's chain (only directories that have rules add a link). The walk
    carries it down, so a path is matched against the rules once, never against
    every ancestor's prefix again (that was quadratic in depth)."""

    __slots__ = ("parent", "rules")

    def __init__(self, rules: RuleSet, parent: Chain | None) -> None:
        self.rules = rules
        self.parent = parent

    def verdict(self, rel: str, is_dir: bool) -> bool:
        """Whether ``rel`` is ignored: the deepest file's last matching rule wins."""
        if rel.rsplit("/", 1)[-1] == ".git":
            return True
        link: Chain | None = self
        while link is not None:
            base = link.rules.base
            if not base:
                index = link.rules.last_match(rel, is_dir)
            elif rel.startswith(base + "/"):
                index = link.rules.last_match(rel[len(base) + 1 :], is_dir)
            else:
                index = -1
            if index >= 0:
                return not link.rules.negate[index]
            link = link.parent
        return False


def extend(chain: Chain | None, rules: RuleSet) -> Chain | None:
    """``chain`` with ``rules`` on top (the same chain when there are none)."""
    return Chain(rules, chain) if rules.negate else chain


class GitIgnore:
    """Answers "is this path ignored?" for paths below ``root``, reading rules lazily."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self._by_dir: dict[str, RuleSet] = {}
        exclude = root / ".git" / "info" / "exclude"
        self._global = compile_ignore_file(_read(exclude) if exclude.is_file() else "")

    def _rules_in(self, rel_dir: str) -> RuleSet:
        rules = self._by_dir.get(rel_dir)
        if rules is None:
            rules = compile_ignore_file(_read(self.root / rel_dir / ".gitignore"), rel_dir)
            self._by_dir[rel_dir] = rules
        return rules

    def chain_above(self, rel_dir: str) -> Chain | None:
        """The rules that apply in ``rel_dir`` except its own ``.gitignore``."""
        chain = extend(None, self._global)
        if not rel_dir:
            return chain
        chain = extend(chain, self._rules_in(""))
        parts = rel_dir.split("/")[:-1]
        for k in range(len(parts)):
            chain = extend(chain, self._rules_in("/".join(parts[: k + 1])))
        return chain

    def ignored(self, rel: str, is_dir: bool) -> bool:
        """Whether ``rel`` (posix, relative to the root) is ignored; parents are not checked."""
        parent = rel.rsplit("/", 1)[0] if "/" in rel else ""
        chain = extend(self.chain_above(parent), self._rules_in(parent))
        return chain.verdict(rel, is_dir) if chain is not None else rel.rsplit("/", 1)[-1] == ".git"

    def ignored_with_parents(self, rel: str, is_dir: bool) -> bool:
        """Like :meth:`ignored`, but also true when any parent directory is ignored."""
        parts = rel.split("/")
        return any(self.ignored("/".join(parts[: k + 1]), True) for k in range(len(parts) - 1)) or (
            self.ignored(rel, is_dir)
        )


def read_at(dir_fd: int) -> str:
    """The ``.gitignore`` in an open directory (by descriptor: a path thousands of
    levels deep is longer than the kernel takes)."""
    try:
        fd = os.open(".gitignore", os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC, dir_fd=dir_fd)
    except OSError:
        return ""
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return ""
        with os.fdopen(os.dup(fd), "rb") as f:
            return f.read(MAX_IGNORE_FILE_BYTES).decode("utf-8", errors="replace")
    except OSError:
        return ""
    finally:
        os.close(fd)


def _read(path: Path) -> str:
    try:
        with path.open("rb") as f:
            return f.read(MAX_IGNORE_FILE_BYTES).decode("utf-8", errors="replace")
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
    loops: list[str] = field(default_factory=list)
    """Symlinks that lead back into themselves (relative to the walk's start), skipped."""
    unreadable: list[str] = field(default_factory=list)
    """Directories that could not be opened (permissions, too deep), skipped."""
    dir_links: list[str] = field(default_factory=list)
    """Symlinks to directories (relative to the walk's start), not entered: a search
    counts those that lead out of the workspace among what it skipped."""
    stopped_at: str | None = None
    """The directory the walk stopped at, out of time (None: it went through)."""
    rules_dropped: list[tuple[str, int]] = field(default_factory=list)
    """``.gitignore`` files with more than ``MAX_IGNORE_RULES`` rules, and how many were not applied."""

    def notes(self) -> list[str]:
        """What the user should know about the walk, one phrase each."""
        out = []
        for names, one, many in ((self.loops, "symlink loop", "symlink loops"),
                                 (self.unreadable, "unreadable directory", "unreadable directories")):
            if names:
                shown = ", ".join(names[:3]) + (", …" if len(names) > 3 else "")
                out.append(f"{len(names)} {one if len(names) == 1 else many} skipped ({shown})")
        for where, dropped in self.rules_dropped[:3]:
            out.append(f"{where} has more than {MAX_IGNORE_RULES} rules: the last {dropped} were not "
                       "applied, so what they ignore is searched too (shorten it to fix)")
        return out


@dataclass(frozen=True, slots=True)
class Found:
    """A file the walk found: its path, and how to open it without following a
    swapped directory (``name`` relative to ``dir_fd``, valid until the walk moves on)."""

    start: Path
    rel: str
    """Its path below ``start`` (posix); ``path`` is built only when asked: building one
    for each of 20,000 files was a third of the rewind capture's scan."""
    dir_fd: int
    name: str
    is_symlink: bool

    @property
    def path(self) -> Path:
        return self.start / self.rel if self.rel else self.start


DIR_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC


class OpenDir:
    """An open directory, closed once it and every child waiting to be opened from
    it are done (so only the current path's ancestors are open at a time)."""

    __slots__ = ("fd", "open", "pending")

    def __init__(self, fd: int, open: set[OpenDir]) -> None:
        self.fd = fd
        self.pending = 1
        self.open = open
        open.add(self)

    def release(self) -> None:
        self.pending -= 1
        if self.pending <= 0 and self in self.open:
            self.open.discard(self)
            os.close(self.fd)


_Pending = tuple[str, OpenDir | None, str, int, Chain | None]
"""A directory still to walk: its path, its open parent, its name, its descriptor
(-1 until opened) and the ignore rules that apply above it."""


def walk_entries(start: Path, ignore_root: Path, stats: WalkStats | None = None,
                 start_fd: int | None = None, deadline: float | None = None) -> Generator[Found, None, None]:
    """Files below ``start`` (sorted, depth first), minus ignored ones, through
    directory file descriptors: no symlink is followed (symlinked directories are
    not entered; symlinks to files are yielded, ``is_symlink`` set), symlink loops
    are skipped into ``stats.loops``. ``start_fd``: ``start`` already opened (the
    walk closes its own duplicate). ``deadline`` (``time.monotonic()``): past it the
    walk stops before the next directory and names it in ``stats.stopped_at``."""
    matcher = GitIgnore(ignore_root)
    stats = stats if stats is not None else WalkStats()
    base = start.relative_to(ignore_root).as_posix() if start != ignore_root else ""
    try:
        fd = os.dup(start_fd) if start_fd is not None else os.open(start, DIR_FLAGS)
    except OSError:
        stats.unreadable.append(".")
        return
    stack: list[_Pending] = [("", None, "", fd, matcher.chain_above(base))]
    opened: set[OpenDir] = set()
    try:
        yield from _walk(stack, opened, start, base, stats, deadline)
    finally:  # a consumer that stops early leaves nothing open
        for d in opened:
            os.close(d.fd)


def _walk(stack: list[_Pending], opened: set[OpenDir], start: Path, base: str,
          stats: WalkStats, deadline: float | None) -> Iterator[Found]:
    while stack:
        if deadline is not None and time.monotonic() > deadline:
            stats.stopped_at = stack[-1][0] or "."
            return
        rel, parent, name, fd, above = stack.pop()
        if parent is not None:
            try:
                fd = os.open(name, DIR_FLAGS, dir_fd=parent.fd)
            except OSError:
                stats.unreadable.append(rel)
                continue
            finally:
                parent.release()
        here = OpenDir(fd, opened)
        try:
            with os.scandir(fd) as it:
                entries = sorted(it, key=lambda e: e.name)
        except OSError:
            stats.unreadable.append(rel or ".")
            here.release()
            continue
        here_rel = "/".join(p for p in (base, rel) if p)
        prefix = f"{here_rel}/" if here_rel else ""
        chain = chain_here(fd, here_rel, above, stats)
        subdirs: list[str] = []
        for entry in entries:
            try:
                is_dir = entry.is_dir(follow_symlinks=False)
                is_link = not is_dir and entry.is_symlink()
            except OSError:
                continue
            if is_dir:
                if entry.name == ".git" or (chain is not None and chain.verdict(prefix + entry.name, True)):
                    stats.ignored += entry.name != ".git"
                else:
                    subdirs.append(entry.name)
                continue
            if entry.name == ".git" or (chain is not None and chain.verdict(prefix + entry.name, False)):
                stats.ignored += 1
                continue
            if is_link:
                target = link_target(entry.name, fd)
                if target == "loop":
                    stats.loops.append(f"{rel}/{entry.name}" if rel else entry.name)
                    continue
                if target == "dir":  # a symlinked directory: not entered, as ``os.walk`` does
                    stats.dir_links.append(f"{rel}/{entry.name}" if rel else entry.name)
                    continue
            yield Found(start, f"{rel}/{entry.name}" if rel else entry.name, fd, entry.name, is_link)
        here.pending += len(subdirs)
        for sub in reversed(subdirs):
            stack.append((f"{rel}/{sub}" if rel else sub, here, sub, -1, chain))
        here.release()


def chain_here(fd: int, here_rel: str, above: Chain | None, stats: WalkStats) -> Chain | None:
    """The rules inside an open directory: ``above`` plus its own ``.gitignore``."""
    return chain_with(read_at(fd), here_rel, above, stats)


def chain_with(text: str, here_rel: str, above: Chain | None, stats: WalkStats) -> Chain | None:
    """``above`` plus the rules of ``text``, the ``.gitignore`` of ``here_rel``. A folder
    without one is not compiled (each would take a slot of the rules' cache, keyed by
    text and folder, and push out the rules that are read before every command)."""
    if not text:
        return above
    own = compile_ignore_file(text, here_rel)
    if own.dropped:
        stats.rules_dropped.append((f"{here_rel}/.gitignore" if here_rel else ".gitignore", own.dropped))
    return extend(above, own)


def link_target(name: str, dir_fd: int) -> str:
    """What a symlink leads to: ``loop``, ``dir`` or ``other`` (a file, nothing)."""
    try:
        info = os.stat(name, dir_fd=dir_fd)
    except OSError as exc:
        return "loop" if exc.errno == errno.ELOOP else "other"
    return "dir" if stat.S_ISDIR(info.st_mode) else "other"


def walk_files(start: Path, ignore_root: Path, stats: WalkStats | None = None) -> Iterator[Path]:
    """Files below ``start`` (sorted, symlinked directories not followed), minus ignored
    ones and symlink loops (see :func:`walk_entries`)."""
    for found in walk_entries(start, ignore_root, stats):
        yield found.path

