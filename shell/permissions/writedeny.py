"""A deny or ask rule on writing a path, held for every way the model can write it.

``deny write_file(secrets/**)`` and ``deny edit_file(secrets/**)`` are one rule:
"the model does not change these". A user who writes either expects both tools to
stop, and ``echo x >> secrets/plan.txt`` too. So a deny or ask rule that names
``write_file`` or ``edit_file`` with a path pattern (or no pattern: every path) is a
*write rule*, and it holds for:

* ``write_file`` and ``edit_file`` alike, and any other tool that edits, deletes or
  moves a path it is given: its ``path``-like arguments are judged by the write rules;
* an MCP tool that may write (not read-only by a server the user trusts): every path
  its arguments name, under any key, nested, or as a ``file:`` URI
  (:func:`.mcppaths.subject_paths`), whatever kind it says it is;
* ``run_shell``: the files the line writes, as far as its words say
  (:mod:`.cmdwrites`: ``>``, ``>>``, ``tee``, ``cp``, ``mv``, ``sed -i``, ``rm``,
  ``truncate``, ``dd of=`` …); ``rm -r`` of a folder that holds a path a rule names
  outright; a line whose writes are known only when it runs (``> "$F"``, ``xargs rm``,
  ``find -exec rm {} +``) asks while any write rule exists;
* the sandbox: what write rules name outright (``secrets/**``, ``config/prod.toml``)
  is bound read-only for commands (:func:`write_denied_paths`), so a program that
  writes by its own logic (``python gen.py``) cannot change it either.

Allow rules stay the tool's own: ``allow write_file(docs/**)`` allows only write_file.
"""

from __future__ import annotations

import os
import weakref
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from . import paths as resolving
from .cmdwrites import command_writes
from .paths import BadPath
from .rules import SOURCE_LABELS, CallPaths, Effect, Rule, RuleSet

WRITE_TOOLS = ("write_file", "edit_file")
"""The tools whose deny and ask rules are write rules."""
WRITING_KINDS = frozenset({"edit", "delete", "move"})
PATH_KEYS = ("path", "file_path", "filePath", "filename", "target", "destination", "source", "old_path",
             "new_path", "paths", "files")
"""The arguments of a writing tool that name what it writes."""
_NAMED_PATH = "path="


class _WriteRules:
    """A rule set's write rules, deny first, and the same rules as ``write_file``
    rules compiled once (each path is judged by them as write_file's would be)."""

    __slots__ = ("judged", "original", "rules")

    def __init__(self, ruleset: RuleSet) -> None:
        found = [r for r in ruleset.rules if r.effect in ("deny", "ask") and is_write_rule(r)]
        self.rules = sorted(found, key=lambda r: r.effect != "deny")
        self.original: dict[Rule, Rule] = {}
        for rule in self.rules:
            self.original.setdefault(replace(rule, tool=WRITE_TOOLS[0], _tool_re=None), rule)
        self.judged = RuleSet(self.original)

    def judge(self, root: Path, raw: str, call: CallPaths | None = None) -> Rule | None:
        """The first write rule (deny before ask) that covers writing ``raw``, or None.
        ``call``: the decision's resolved paths (each path is resolved once)."""
        args = {"path": raw}
        about = call.about(args) if call is not None else CallPaths(args, root)
        _, rule = self.judged.judge(WRITE_TOOLS[0], args, root, about)
        return None if rule is None else self.original[rule]


_CACHE: weakref.WeakKeyDictionary[RuleSet, _WriteRules] = weakref.WeakKeyDictionary()


def _write_rules(ruleset: RuleSet) -> _WriteRules:
    found = _CACHE.get(ruleset)
    if found is None:
        found = _CACHE[ruleset] = _WriteRules(ruleset)
    return found


def write_rules(ruleset: RuleSet) -> list[Rule]:
    """The deny and ask rules naming ``write_file`` or ``edit_file`` whose pattern is a
    path (or none), deny first."""
    return list(_write_rules(ruleset).rules)


def is_write_rule(rule: Rule) -> bool:
    """A rule naming ``write_file`` or ``edit_file`` whose pattern is a path (or none)."""
    if not any(rule.names(t) for t in WRITE_TOOLS):
        return False
    pattern = rule.pattern
    if pattern is None or pattern.startswith(_NAMED_PATH):
        return True
    head = pattern.split("=", 1)[0]
    return not (head.isidentifier() and "=" in pattern) and not pattern.startswith("domain:")


def write_denied(ruleset: RuleSet, root: Path, path: str | os.PathLike[str]) -> Rule | None:
    """The write rule that covers writing ``path``, or None."""
    found = _write_rules(ruleset)
    if not found.rules:
        return None
    try:
        return found.judge(root, os.fspath(path))
    except BadPath:
        return None


class WriteCheck:
    """What write rules say of one call: ``effect`` (``deny``/``ask``/None), the rule,
    and the words of the verdict."""

    __slots__ = ("effect", "rule", "why")

    def __init__(self, effect: Effect | None = None, rule: Rule | None = None, why: str = "") -> None:
        self.effect = effect
        self.rule = rule
        self.why = why


def check_write(
    ruleset: RuleSet, root: Path, tool_name: str, kind: str, args: Mapping[str, Any],
    call: CallPaths | None = None, writes: Sequence[str] | None = None,
) -> WriteCheck:
    """Judge a call by the write rules (none when there are none: nothing resolved).
    ``call``: the paths the decision resolved already. ``writes``: the paths of an MCP
    tool that may write (its server, not its kind, says what it does with them)."""
    found = _write_rules(ruleset)
    if not found.rules or (writes is None and kind != "execute" and kind not in WRITING_KINDS):
        return WriteCheck()
    call = call if call is not None else CallPaths(args, root)
    command = args.get("command")
    if kind == "execute" and isinstance(command, str):
        return _check_command(found, root, tool_name, command, call)
    for raw in _paths(args) if writes is None else writes:
        try:
            rule = found.judge(root, raw, call)
        except BadPath:
            continue  # the tool's own check refuses such a path
        if rule is not None:
            return _found(rule, tool_name, raw, "")
    return WriteCheck()


def _paths(args: Mapping[str, Any]) -> list[str]:
    out: list[str] = []
    for key in PATH_KEYS:
        value = args.get(key)
        if isinstance(value, str):
            out.append(value)
        elif isinstance(value, list):
            out.extend(v for v in value if isinstance(v, str))
    for value in args.values():  # a multi-edit's [{"path": …, …}, …]
        if isinstance(value, list):
            out.extend(v["path"] for v in value if isinstance(v, dict) and isinstance(v.get("path"), str))
    return out


def _found(rule: Rule, tool_name: str, raw: str, how: str) -> WriteCheck:
    where = SOURCE_LABELS[rule.source]
    if rule.effect == "deny":
        why = (f"Denied by the rule `deny {rule.text}` ({where}), which keeps the model from writing "
               f"{raw}{how}; {tool_name} was not run. Do not retry it another way; tell the user what you "
               "wanted to change.")
    else:
        why = f"The rule `ask {rule.text}` ({where}) asks before {raw} is written{how}."
    return WriteCheck(rule.effect, rule, why)


def _check_command(
    found: _WriteRules, root: Path, tool_name: str, command: str, call: CallPaths
) -> WriteCheck:
    writes = command_writes(command, root)
    if not writes:
        return WriteCheck()
    rules = found.rules
    asked: WriteCheck | None = None
    for raw in writes.targets:
        try:
            rule = found.judge(root, raw, call)
        except BadPath:
            continue
        if rule is not None:
            hit = _found(rule, tool_name, raw, f" (the command line writes {raw})")
            if rule.effect == "deny":
                return hit
            asked = asked or hit
    folders = [raw for raw in writes.recursive if _is_dir(raw, root)]  # a file has nothing inside
    for raw in folders:
        inside = _named_inside(rules, root, raw)
        if inside is not None:
            rule, named = inside
            hit = _found(rule, tool_name, named, f" ({raw} is changed with everything in it)")
            if rule.effect == "deny":
                return hit
            asked = asked or hit
    if asked is not None:
        return asked
    if writes.unknown:
        rule = rules[0]
        return WriteCheck("ask", rule, (
            f"{tool_name} may write files the rule `{rule.effect} {rule.text}` "
            f"({SOURCE_LABELS[rule.source]}) covers, and which files this line writes is known only when it "
            f"runs ({writes.unknown[0]}); so it asks."))
    reach = next((r for r in rules for raw in folders if _may_reach(r, root, raw)), None)
    if reach is not None:
        return WriteCheck("ask", reach, (
            f"{tool_name} changes {', '.join(folders[:3])} with everything in it, which may hold "
            f"files the rule `{reach.effect} {reach.text}` ({SOURCE_LABELS[reach.source]}) covers; so it "
            "asks."))
    return WriteCheck()


def _is_dir(raw: str, root: Path) -> bool:
    try:
        return resolving.resolve(raw, root).is_dir()
    except (BadPath, OSError):
        return False


def _literal(rule: Rule, root: Path) -> Path | None:
    """The folder or file a rule names outright (``secrets/**`` → ``secrets``), or None."""
    pattern = rule.pattern
    if pattern is None:
        return root
    literal = pattern.removeprefix("path=").removesuffix("/**").rstrip("/")
    if literal in ("", "~") or any(c in literal for c in "*?[") or literal.startswith("domain:"):
        return None
    try:
        return resolving.resolve(literal, root)
    except BadPath:
        return None


def _prefix(rule: Rule, root: Path) -> Path | None:
    """Where a wildcard pattern's matches can lie (``src/**/*.key`` → ``src``)."""
    pattern = (rule.pattern or "").removeprefix("path=")
    head: list[str] = []
    for part in pattern.split("/"):
        if any(c in part for c in "*?["):
            break
        head.append(part)
    text = "/".join(head) or ("/" if pattern.startswith("/") else ".")
    try:
        return resolving.resolve(text, root)
    except BadPath:
        return None


def _named_inside(rules: list[Rule], root: Path, raw: str) -> tuple[Rule, str] | None:
    """A rule whose named path lies inside the folder ``raw`` (``rm -rf .`` and a rule on
    ``secrets/**``), with that path as the user would read it."""
    try:
        target = resolving.resolve(raw, root)
    except BadPath:
        return None
    for rule in rules:
        named = _literal(rule, root)
        if named is not None and named != target and resolving.within(named, target):
            return rule, resolving.relative(named, root) or str(named)
    return None


def _may_reach(rule: Rule, root: Path, raw: str) -> bool:
    """Whether a wildcard rule (``**/*.pem``) may cover something inside the folder ``raw``."""
    if _literal(rule, root) is not None:
        return False
    prefix = _prefix(rule, root)
    try:
        target = resolving.resolve(raw, root)
    except BadPath:
        return False
    return prefix is not None and (resolving.within(target, prefix) or resolving.within(prefix, target))


def write_denied_paths(ruleset: RuleSet, root: Path) -> list[Path]:
    """The folders and files write rules name outright, for the sandbox to keep
    read-only for commands. A pattern with a wildcard before its end names no one path."""
    out: list[Path] = []
    for rule in _write_rules(ruleset).rules:
        if rule.pattern is None:
            continue  # every path: the workspace itself stays writable (the questions guard it)
        named = _literal(rule, root)
        if named is not None:
            out.append(named)
    return list(dict.fromkeys(out))


@dataclass(frozen=True, slots=True)
class Wildcards:
    """Write rules with a wildcard before their end (``**/*.pem``, ``src/*.key``): they
    name no one path, so the sandbox finds what they cover among the workspace's files
    (:mod:`.writewalls`). ``names``: each rule's last part, to pick candidates by name;
    :meth:`covers` judges a candidate as the tools' write rules would."""

    names: tuple[str, ...]
    ruleset: RuleSet
    root: Path

    def covers(self, path: Path) -> bool:
        return write_denied(self.ruleset, self.root, path) is not None


def write_wildcards(ruleset: RuleSet, root: Path) -> Wildcards:
    """See :class:`Wildcards` (no names when no such rule exists)."""
    names: list[str] = []
    for rule in _write_rules(ruleset).rules:
        if rule.pattern is not None and _literal(rule, root) is None:
            last = rule.pattern.removeprefix(_NAMED_PATH).rstrip("/").rsplit("/", 1)[-1]
            if last in ("", "*", "**") and _prefix(rule, root) == root:
                continue  # every path (`**`), as a rule with no pattern: the questions guard it
            names.append("*" if last in ("", "**") else last)
    return Wildcards(tuple(dict.fromkeys(names)), ruleset, root)
