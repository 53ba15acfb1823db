"""A deny on reading a path, held for every way the shell reads it for the model.

``deny read_file(secrets/**)`` names one tool, but the user means "the model does
not read these": grep skips such files in a tree, an edit's result carries no diff
of one, an AGENTS.md import of one is refused, and the sandbox hides the folders
and files such rules name outright. The policy answers through these two
functions (:meth:`PermissionPolicy.read_denied`, ``read_denied_paths``).
"""

from __future__ import annotations

import os
from pathlib import Path

from . import paths as resolving
from .paths import BadPath
from .rules import SOURCE_LABELS, RuleSet


def read_denied(ruleset: RuleSet, root: Path, path: str | os.PathLike[str]) -> str:
    """The deny rule that keeps the model from reading ``path`` (```deny
    read_file(secrets/**)``` (user config)), or empty."""
    if not ruleset.denies_any("read_file"):  # the common case: no path resolved
        return ""
    try:
        effect, rule = ruleset.judge("read_file", {"path": os.fspath(path)}, root)
    except BadPath:
        return ""
    if effect != "deny" or rule is None:
        return ""
    return f"`deny {rule.text}` ({SOURCE_LABELS[rule.source]})"


def read_denied_paths(ruleset: RuleSet, root: Path) -> list[Path]:
    """The folders and files deny rules on ``read_file`` name outright (``secrets/**``,
    ``config/prod.toml``, ``~/notes/**``), for the sandbox to hide from commands as
    ``[sandbox] hide`` does. A pattern with a wildcard before its end (``**/.env``,
    ``src/*.key``) names no one path: commands can still read what it covers."""
    out: list[Path] = []
    for rule in ruleset.rules:
        pattern = rule.pattern
        if rule.effect != "deny" or pattern is None or not rule.names("read_file"):
            continue
        literal = pattern.removesuffix("/**").rstrip("/")
        if literal in ("", "~") or any(c in literal for c in "*?[=") or literal.startswith("domain:"):
            continue  # a wildcard, a named argument, the whole home: no one path to hide
        try:
            out.append(resolving.resolve(literal, root))
        except BadPath:
            continue
    return out
