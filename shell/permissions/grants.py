"""What a project's permission rules would grant, in words, for the trust question.

A cloned repository's ``.agent-shell/permissions.toml`` can say
``allow = ["run_shell"]``; trusting the workspace then lets a model run any
command with no question. "project settings (22 bytes)" hides that, so the
trust question lists every rule the file would add, one line each, and marks
the allow rules that let calls run unasked (:data:`UNASKED`), the ones a user
must read before saying yes; a wildcard on a host anyone can own (``*.github.io``)
carries the same warning as where the user makes such a rule (:mod:`.sharedhosts`,
finding Q26: the one place the rule came from someone else lacked it). What the file
holds that is not a rule (a ``mode``, an unknown key, a rule that cannot be read) is
listed as ignored, with why.

Nothing here decides anything: the policy (:mod:`.policy`) reads the same file
with :func:`.store.load_project_rules` once the workspace is trusted.
"""

from __future__ import annotations

import os
import tomllib

from shell.core.filedata import toml_loads
from shell.core.textsafety import sanitize_line

from .rules import EFFECTS, Rule, parse_rules
from .sharedhosts import shared_host_note
from .writedeny import is_write_rule

UNASKED = "! "
"""The mark before a line that would let calls run with no question."""

READ_ONLY_BUILTINS = frozenset({"read_file", "list_dir", "glob", "grep"})
"""Built-in tools that run unasked in every mode anyway: allowing them widens nothing."""

_PATH_TOOLS = frozenset({"read_file", "list_dir", "glob", "grep", "write_file", "edit_file"})


def _subject(rule: Rule) -> str:
    """Which calls the rule speaks of, as a user would say it."""
    tool, pattern = rule.tool, rule.pattern
    if pattern is None:
        return "any command" if tool == "run_shell" else "any call, whatever its arguments"
    name, eq, value = pattern.partition("=")
    if eq and name.isidentifier():
        return f"calls whose {name} matches {value!r}"
    if tool == "run_shell":
        whole = pattern[:-2] if pattern.endswith(":*") else None
        if whole is not None:
            return f"the command {whole!r} with any arguments (each part of a command line judged alone)"
        return f"commands matching {pattern!r} (each part of a command line judged alone)"
    if pattern.startswith("domain:"):
        host = pattern[len("domain:"):].strip()
        return (f"requests to {host}, even when it is a private, loopback or metadata address "
                "(such hosts are otherwise refused)")
    if pattern.startswith(("http://", "https://")):
        return f"URLs matching {pattern!r}"
    if tool in _PATH_TOOLS or "/" in pattern or pattern.startswith("~"):
        expanded = os.path.expanduser(pattern) if pattern.startswith("~") else pattern
        if os.path.isabs(expanded):
            return f"paths matching {pattern!r} (outside the workspace: the workspace's fence still asks)"
        return f"paths in the workspace matching {pattern!r}"
    return f"calls matching {pattern!r}"


def _tools(rule: Rule) -> str:
    return f"every tool named like {rule.tool}" if rule._tool_re is not None else rule.tool


def widens(rule: Rule) -> bool:
    """Whether the rule lets calls run that would otherwise ask (an allow rule for
    anything but the read-only built-ins)."""
    return rule.effect == "allow" and not (rule._tool_re is None and rule.tool in READ_ONLY_BUILTINS)


def explain_rule(rule: Rule) -> str:
    """One rule as a line: the rule as written, then what it does."""
    subject = _subject(rule)
    if rule.effect in ("deny", "ask") and is_write_rule(rule):  # write_file's and edit_file's alike
        what = "the model changes none of the" if rule.effect == "deny" else "asks before the model changes"
        where = "read-only for sandboxed commands" if rule.pattern is not None else "a file a command names"
        subject = subject if rule.pattern is not None else "files"
        return (f"{rule.effect} {rule.text}: {what} {subject} (write_file, edit_file, other editing tools, "
                f"shell commands that write there; {where})")
    if rule.effect == "deny":
        return f"deny {rule.text}: {_tools(rule)} never runs for {subject}"
    if rule.effect == "ask":
        return f"ask {rule.text}: {_tools(rule)} asks first for {subject}, even where the mode would run it"
    if not widens(rule):
        return f"allow {rule.text}: {rule.tool} runs unasked anyway (it only reads); no change"
    shared = shared_host_note(rule)  # *.github.io: the warning --allow, the config and "always" give
    return (f"allow {rule.text}: allows {_tools(rule)} with no question: {subject} "
            f"(in every mode but plan){' Warning: ' + shared if shared else ''}")


def describe_project_rules(data: bytes, origin: str) -> list[str]:
    """Every line of a project's ``permissions.toml`` that trusting would apply or
    ignore, prefixed with ``origin`` (the file's path in the workspace); a rule
    that widens what runs unasked starts with :data:`UNASKED`."""
    try:
        table = toml_loads(data.decode("utf-8"))
    except (UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        return [sanitize_line(f"{origin}: cannot be read ({exc}); none of its rules would apply")]
    rules, problems = parse_rules(table, "project", origin)
    lines = [f"{UNASKED if widens(rule) else ''}{origin}: {explain_rule(rule)}" for rule in rules]
    lines += [f"{problem}; that entry is ignored" for problem in problems]
    for key in table:
        if key in EFFECTS:
            continue
        if key == "mode":
            why = ("ignored: a project cannot choose the permission mode (your config, "
                   "--permission-mode or Shift+Tab does)")
        else:
            why = "ignored: not a permission setting (only allow, ask and deny lists are read)"
        lines.append(f"{origin}: {key} = {table[key]!r}: {why}")
    if not lines:
        lines.append(f"{origin}: no rules")
    return [sanitize_line(line) for line in lines]


__all__ = ["READ_ONLY_BUILTINS", "UNASKED", "describe_project_rules", "explain_rule", "widens"]
