"""Permission rules: ``allow`` / ``ask`` / ``deny`` per tool and argument pattern.

Syntax (one rule is one string; the effect is the list it sits in)::

    run_shell                       every call of the tool
    run_shell(git status*)          a shell command, judged part by part
    run_shell(npm run test:*)       ``X:*`` means ``X`` alone or ``X`` then arguments
    read_file(src/**)               a path: relative to the workspace, ``**`` any depth,
    write_file(/tmp/*.txt)            ``*`` within one directory, ``~/`` your home
    fetch_url(domain:docs.python.org)   a host (``domain:*.python.org`` its subdomains)
    fetch_url(https://example.org/docs/*)   a whole URL
    github__*                       a tool-name pattern: every tool of an MCP server
    mcp_tool(query=*secret*)        any tool: one argument by name

What the pattern is matched against depends on the tool's arguments: ``command``
(shell commands, split by :mod:`.shellsplit`), else ``path``, else ``url``; or
the ``name=`` form. A rule whose pattern has nothing to match never applies. An MCP
tool's path pattern is matched against every path its arguments name, whatever the
key (``file``, ``target``, ``paths[]``, nested, a ``file:`` URI: the policy finds
them, :func:`.mcppaths.subject_paths`), with or without ``path=``: a deny or ask rule
applies when any of them matches, an allow rule only when all do.

A shell command is allowed by rules only when every part of it is allowed and
nothing is redirected to a file; it is denied (or asked) when any part is. Paths
are resolved first (``..`` and symlinks, by :mod:`.paths`), so
``src/../../etc/passwd`` is not in ``src/**``.
"""

from __future__ import annotations

import fnmatch
import os
import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any, Literal, TypeAlias
from urllib.parse import urlsplit

from . import paths
from .cmdword import Reading, read_part
from .shellsplit import split_command

Effect: TypeAlias = Literal["allow", "ask", "deny"]
EFFECTS: tuple[Effect, ...] = ("deny", "ask", "allow")
"""In the order they are evaluated: a deny beats an ask beats an allow."""

Source: TypeAlias = Literal["cli", "user", "project", "session", "restored"]
SOURCE_LABELS: dict[str, str] = {
    "cli": "command line",
    "user": "user config",
    "project": "project",
    "session": "this session",
    "restored": "restored session",
}


class RuleError(ValueError):
    """A rule that cannot be read; the message says why, for the user."""


_RULE = re.compile(r"^\s*([A-Za-z0-9_.*?\[\]-]+)\s*(?:\((.*)\))?\s*$", re.DOTALL)
_NAMED = re.compile(r"^([A-Za-z_][A-Za-z0-9_]*)=(.*)$", re.DOTALL)


@dataclass(frozen=True, slots=True)
class Rule:
    """One rule, with where it came from (``origin`` names the file, if any)."""

    effect: Effect
    tool: str
    pattern: str | None = None
    source: Source = "session"
    origin: str = ""
    _tool_re: re.Pattern[str] | None = field(default=None, compare=False, repr=False)

    @property
    def text(self) -> str:
        return self.tool if self.pattern is None else f"{self.tool}({self.pattern})"

    def __str__(self) -> str:
        return f"{self.effect} {self.text}"

    def names(self, tool_name: str) -> bool:
        if self._tool_re is None:
            return self.tool == tool_name
        return self._tool_re.fullmatch(tool_name) is not None


def parse_rule(text: str, effect: Effect, source: Source = "session", origin: str = "") -> Rule:
    """``run_shell(git status*)`` as a :class:`Rule`; raises :class:`RuleError`."""
    if effect not in EFFECTS:
        raise RuleError(f"unknown effect {effect!r}: use allow, ask or deny")
    if not isinstance(text, str):
        raise RuleError(f"a rule is a string like 'run_shell(git status*)', not {text!r}")
    m = _RULE.match(text)
    if not m:
        raise RuleError(
            f"cannot read the rule {text!r}: write TOOL or TOOL(PATTERN), e.g. 'run_shell(git status*)'"
        )
    tool, pattern = m.group(1), m.group(2)
    if pattern is not None:
        pattern = pattern.strip()
        if not pattern:
            raise RuleError(f"the rule {text!r} has empty parentheses: leave them out to mean every call")
        if pattern.startswith("domain:") and not pattern[7:].strip():
            raise RuleError(f"the rule {text!r} names no domain")
    tool_re = re.compile(fnmatch.translate(tool)) if any(c in tool for c in "*?[") else None
    return Rule(effect, tool, pattern, source, origin, tool_re)


def parse_rules(
    table: Mapping[str, Any], source: Source, origin: str = ""
) -> tuple[list[Rule], list[str]]:
    """The ``allow``/``ask``/``deny`` lists of a config table; bad entries are problems."""
    rules: list[Rule] = []
    problems: list[str] = []
    for effect in EFFECTS:
        values = table.get(effect) or []
        if not isinstance(values, list):
            problems.append(f"{origin or source}: permissions.{effect} must be a list of rules")
            continue
        for value in values:
            try:
                rules.append(parse_rule(value, effect, source, origin))
            except RuleError as exc:
                problems.append(f"{origin or source}: {exc}")
    return rules, problems


# -- matching --------------------------------------------------------------------


def subject_key(args: Mapping[str, Any]) -> str | None:
    """Which argument a bare pattern is matched against."""
    for key in ("command", "path", "url"):
        if isinstance(args.get(key), str):
            return key
    return None


@lru_cache(maxsize=1024)
def _glob(pattern: str) -> re.Pattern[str]:
    """A shell-command or URL pattern: ``*`` is anything; ``X:*`` is ``X`` or ``X …``."""
    if pattern.endswith(":*"):
        head = re.escape(pattern[:-2])
        return re.compile(f"{head}(?: .*)?", re.DOTALL)
    return re.compile(fnmatch.translate(pattern), re.DOTALL)


@lru_cache(maxsize=1024)
def _path_glob(pattern: str) -> re.Pattern[str]:
    """``**`` any depth (also none), ``*`` and ``?`` within one path segment."""
    out: list[str] = []
    i, n = 0, len(pattern)
    while i < n:
        if pattern.startswith("**/", i):
            out.append("(?:.*/)?")
            i += 3
        elif pattern.startswith("/**", i) and i + 3 == n:
            out.append("(?:/.*)?")
            i += 3
        elif pattern.startswith("**", i):
            out.append(".*")
            i += 2
        elif pattern[i] == "*":
            out.append("[^/]*")
            i += 1
        elif pattern[i] == "?":
            out.append("[^/]")
            i += 1
        else:
            out.append(re.escape(pattern[i]))
            i += 1
    return re.compile("".join(out), re.DOTALL)


def path_matches(pattern: str, raw: str, root: Path) -> bool:
    """Whether the path ``raw`` (as a tool would resolve it) is in ``pattern``."""
    return _path_matcher(pattern)(CallPaths({"path": raw}, root), raw)


_BAD_URL = re.compile(r"[\\\s\x00-\x1f\x7f]")


@lru_cache(maxsize=256)
def url_host(url: str) -> str | None:
    """The host a URL reaches, lower-case; None when the URL is one we would not judge
    (not http(s), credentials or odd characters that parsers read differently)."""
    if _BAD_URL.search(url):
        return None
    try:
        parts = urlsplit(url)
        host = parts.hostname
    except ValueError:
        return None
    if parts.scheme not in ("http", "https") or not host or "@" in parts.netloc:
        return None
    return host.rstrip(".").lower()


def domain_matches(pattern: str, url: str) -> bool:
    return _domain_matcher(pattern)(CallPaths({"url": url}, Path("/")), url)


# -- compiled matchers ---------------------------------------------------------------


class CallPaths:
    """One call being judged: what every rule about it needs, worked out once."""

    __slots__ = ("_paths", "args", "root", "subjects")

    def __init__(self, args: Mapping[str, Any], root: Path, subjects: list[str] | None = None) -> None:
        self.args = args
        self.root = root
        self.subjects = subjects
        """An MCP tool's paths, under whatever keys (None for a built-in tool: its ``path``)."""
        self._paths: dict[str, tuple[str, str | None]] = {}

    def about(self, args: Mapping[str, Any]) -> CallPaths:
        """The same decision judged on other arguments (a path a command writes), the
        paths resolved so far shared: each is resolved once."""
        other = CallPaths(args, self.root)
        other._paths = self._paths
        return other

    def path(self, raw: str) -> tuple[str, str | None]:
        """``(absolute real path, path relative to the root or None if outside)``,
        resolved as every permission check resolves it (:mod:`.paths`)."""
        found = self._paths.get(raw)
        if found is None:
            target = paths.real(raw, self.root)  # raises BadPath (a NUL in it)
            found = self._paths[raw] = (target, paths.relative(target, self.root))
        return found


Matcher: TypeAlias = "Callable[[CallPaths, str], bool]"


def _path_matcher(pattern: str) -> Matcher:
    if pattern.startswith("~"):
        pattern = os.path.expanduser(pattern)
    if os.path.isabs(pattern):
        rx = _path_glob(pattern.rstrip("/") or "/")
        return lambda call, raw: rx.fullmatch(call.path(raw)[0]) is not None
    rel_rx = _path_glob(pattern.removeprefix("./").rstrip("/"))

    def relative(call: CallPaths, raw: str) -> bool:
        rel = call.path(raw)[1]
        return rel is not None and rel_rx.fullmatch(rel) is not None  # relative patterns: the workspace

    return relative


def _domain_matcher(pattern: str) -> Matcher:
    pattern = pattern.strip().rstrip(".").lower()
    if pattern.startswith("*."):
        suffix = pattern[1:]
        return lambda call, url: (host := url_host(url)) is not None and host.endswith(suffix)
    return lambda call, url: url_host(url) == pattern


def _url_matcher(pattern: str) -> Matcher:
    rx = _glob(pattern)
    return lambda call, url: url_host(url) is not None and rx.fullmatch(url) is not None


def _text_matcher(pattern: str) -> Matcher:
    rx = _glob(pattern)
    return lambda call, text: rx.fullmatch(text) is not None


def _matcher(key: str, pattern: str) -> Matcher:
    if key == "path":
        return _path_matcher(pattern)
    if key == "url" and pattern.startswith("domain:"):
        return _domain_matcher(pattern[7:])
    if key == "url":
        return _url_matcher(pattern)
    return _text_matcher(pattern)


class _Compiled:
    """A rule ready to match: by named argument, or by whichever subject the call has."""

    __slots__ = ("by_key", "command_rx", "command_word", "named", "rule")

    def __init__(self, rule: Rule) -> None:
        self.rule = rule
        self.named: tuple[str, Matcher] | None = None
        self.by_key: dict[str, Matcher] = {}
        self.command_rx: re.Pattern[str] | None = None
        self.command_word: re.Pattern[str] | None = None
        pattern = rule.pattern
        if pattern is None:
            return
        m = _NAMED.match(pattern)
        if m:
            self.named = (m.group(1), _matcher(m.group(1), m.group(2)))
        command_pattern = m.group(2) if m and m.group(1) == "command" else pattern
        self.command_rx = _glob(command_pattern)
        self.command_word = _command_word(command_pattern)
        for key in ("path", "url"):
            self.by_key[key] = _matcher(key, pattern)

    def matches(self, call: CallPaths) -> bool:
        """For tools without a shell command."""
        if self.rule.pattern is None:
            return True
        path_named = self.named is not None and self.named[0] == "path"  # `fs__*(path=**/.env)`: every path
        if call.subjects and (path_named or (self.named is None and not _names_url(self.rule.pattern))):
            match = self.named[1] if self.named is not None else self.by_key["path"]
            hits = (match(call, raw) for raw in call.subjects)  # `file`, `paths[]`, a URI…
            return all(hits) if self.rule.effect == "allow" else any(hits)
        if self.named is not None and self.named[0] in call.args:
            value = call.args[self.named[0]]
            return isinstance(value, str) and self.named[1](call, value)
        key = subject_key(call.args)
        if key is None or key == "command":
            return False
        return self.by_key[key](call, call.args[key])


def _names_url(pattern: str) -> bool:
    """A pattern about a URL or a host (``domain:x``, ``https://x/*``), not a path."""
    return pattern.startswith("domain:") or url_host(pattern.replace("*", "x")) is not None


class RuleSet:
    """Rules of every source, judged together: deny, then ask, then allow.

    ``judge`` answers the first effect that applies and the rule that decided, or
    ``(None, None)`` when no rule speaks of the call (the mode decides then)."""

    def __init__(self, rules: Iterable[Rule] = ()) -> None:
        self.rules: list[Rule] = list(rules)
        compiled = [_Compiled(r) for r in self.rules]
        order = {e: i for i, e in enumerate(EFFECTS)}
        compiled.sort(key=lambda c: order[c.rule.effect])  # stable: deny, ask, allow
        self._exact: dict[str, list[_Compiled]] = {}
        self._globbed = [c for c in compiled if c.rule._tool_re is not None]
        self._by_tool: dict[str, list[_Compiled]] = {}
        for c in compiled:
            if c.rule._tool_re is None:
                self._exact.setdefault(c.rule.tool, []).append(c)

    def _for(self, tool: str) -> list[_Compiled]:
        """The rules naming ``tool``, deny first (cached per tool name)."""
        found = self._by_tool.get(tool)
        if found is None:
            order = {e: i for i, e in enumerate(EFFECTS)}
            both = self._exact.get(tool, []) + [c for c in self._globbed if c.rule.names(tool)]
            found = self._by_tool[tool] = sorted(both, key=lambda c: order[c.rule.effect])
        return found

    def denies_any(self, tool: str) -> bool:
        """Whether any deny rule names ``tool`` (cheap: asked before resolving a path)."""
        return any(c.rule.effect == "deny" for c in self._for(tool))

    def judge(
        self, tool: str, args: Mapping[str, Any], root: Path, call: CallPaths | None = None
    ) -> tuple[Effect | None, Rule | None]:
        """``call``: the paths already resolved for this decision (the policy's other
        checks resolve the same path; once is enough)."""
        relevant = self._for(tool)
        if not relevant:
            return None, None
        call = call if call is not None else CallPaths(args, root)
        command = args.get("command")
        if isinstance(command, str):
            return _judge_command(relevant, command, call)
        for c in relevant:
            if c.matches(call):
                return c.rule.effect, c.rule
        return None, None


def _readings(confident: bool, texts: list[str]) -> Reading:
    """Every reading of every part (:mod:`.cmdword`), for deny and ask rules."""
    out = Reading()
    out.understood = confident
    for text in texts:
        found = read_part(text)
        out.texts.extend(found.texts)
        out.understood = out.understood and found.understood
        out.runtime = out.runtime or found.runtime
    return out


@lru_cache(maxsize=256)
def known_only_at_run_time(command: str) -> bool:
    """Whether what ``command`` runs is decided only when it runs (``$R$M``, ``… | sh``):
    every deny or ask rule for the tool covers such a line; the verdict says why."""
    split = split_command(command)
    return _readings(split.confident, [p.text for p in split.parts if p.text]).runtime


def _names(c: _Compiled, readings: Reading, command: str) -> bool:
    """Whether a deny/ask rule's command pattern matches any reading of the line
    (as written, ``/bin/rm``, ``env rm``, ``bash -c 'rm …'``), or what the line runs
    is known only when it runs (``$R$M``, ``… | sh``), or the line cannot be read
    and names the rule's command anywhere (fail closed)."""
    rx = c.command_rx
    assert rx is not None
    if readings.runtime or any(rx.fullmatch(t) for t in readings.texts):
        return True
    word = c.command_word
    return not readings.understood and word is not None and word.search(command) is not None


def _command_word(pattern: str) -> re.Pattern[str] | None:
    """The command a shell rule's pattern names (``rm`` of ``rm -rf*``), as a word to
    look for in a line that cannot be read; None when the pattern starts with a wildcard."""
    head = pattern.removesuffix(":*").split(" ", 1)[0].rstrip("*?")
    if not head or any(c in head for c in "*?[$`'\"\\"):
        return None
    return re.compile(rf"(?<![\w.-]){re.escape(head)}(?![\w.-])")


def _judge_command(
    rules: list[_Compiled], command: str, call: CallPaths
) -> tuple[Effect | None, Rule | None]:
    """Deny or ask when any part (or the whole line) matches; allow only when the
    split is confident, nothing writes to a file, and every part is allowed."""
    split = split_command(command)
    texts = [p.text for p in split.parts if p.text]
    whole: str | None = None
    readings: Reading | None = None
    allows: list[_Compiled] = []
    for c in rules:
        rule = c.rule
        if rule.effect == "allow":
            if rule.pattern is None:
                return "allow", rule
            allows.append(c)
            continue
        if rule.pattern is None:
            return rule.effect, rule
        if c.named is not None and c.named[0] in call.args and c.named[0] != "command":
            if c.matches(call):
                return rule.effect, rule
            continue
        if whole is None:
            whole = " ".join(command.split())
            readings = _readings(split.confident, texts)
            readings.texts[:0] = [whole, *texts]
        assert readings is not None
        if _names(c, readings, command):
            return rule.effect, rule
    if not allows or not split.confident or not texts or any(p.writes or not p.text for p in split.parts):
        return None, None
    decided: Rule | None = None
    for text in texts:
        for c in allows:
            if c.named is not None and c.named[0] != "command" and c.named[0] in call.args:
                continue
            assert c.command_rx is not None
            if c.command_rx.fullmatch(text):
                decided = decided or c.rule
                break
        else:
            return None, None
    return "allow", decided
