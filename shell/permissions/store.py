"""Where rules live on disk: the user config and the project's file.

- User: the ``[permissions]`` table of ``config.toml`` (``allow``, ``ask``,
  ``deny`` lists and an optional ``mode``). Writing a rule edits the line of that
  one list only, so the rest of the file (comments included) is kept as the user wrote it.
- Project: ``.agent-shell/permissions.toml`` in the workspace (the same three
  lists), read only when the user trusted the workspace (:func:`project_trusted`),
  since a cloned repository must not be able to allow itself anything.

Session rules live in the session (see :mod:`.policy`), not here.
"""

from __future__ import annotations

import os
import tomllib
from pathlib import Path
from typing import Any

from shell.core.filedata import toml_loads

from .rulelines import LineEditError, parsed, set_list
from .rules import EFFECTS, Effect, Rule, RuleError, parse_rules

PROJECT_DIR = ".agent-shell"
PROJECT_RULES = "permissions.toml"


class StoreError(Exception):
    """A rule file that cannot be read or written; one line for the user."""


def project_rules_path(root: Path) -> Path:
    return root / PROJECT_DIR / PROJECT_RULES


def project_trusted(root: Path) -> bool:
    """Whether the project's own config may take effect: the user trusted this
    workspace (``shell.permissions.trust``). Without that module, never."""
    try:
        from . import trust  # type: ignore[attr-defined,unused-ignore]
    except ImportError:
        return False
    check = getattr(trust, "is_trusted", None)
    return bool(check(root)) if callable(check) else False


def keep_project_trusted(root: Path, was_trusted: bool) -> None:
    """After the user wrote a project rule themselves: keep a trusted workspace
    trusted (the rules file is part of what trust hashes), but never extend trust
    to the project's other files (see ``trust.keep_trusted_after_own_edit``)."""
    if not was_trusted:
        return
    try:
        from . import trust

        trust.keep_trusted_after_own_edit(root, f"{PROJECT_DIR}/{PROJECT_RULES}")
    except OSError:  # the trust store cannot be written: asked again next time
        return


def read_table(path: Path, key: str | None) -> dict[str, Any]:
    """The table at ``key`` (``None``: the whole file) of a TOML file; {} if missing."""
    try:
        data = toml_loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return {}
    except (OSError, UnicodeDecodeError) as exc:
        raise StoreError(f"cannot read {path}: {exc}") from None
    except tomllib.TOMLDecodeError as exc:
        raise StoreError(f"{path} is not valid TOML: {exc}") from None
    table = data.get(key) if key else data
    if table is None:
        return {}
    if not isinstance(table, dict):
        raise StoreError(f"{path}: {key} must be a table")
    return table


def load_project_rules(root: Path) -> tuple[list[Rule], list[str]]:
    path = project_rules_path(root)
    try:
        table = read_table(path, None)
    except StoreError as exc:
        return [], [str(exc)]
    return parse_rules(table, "project", str(path))


# -- writing ----------------------------------------------------------------------


def write_rules(path: Path, key: str | None, change: dict[Effect, list[str]]) -> None:
    """Set the rule lists of ``change`` in the table ``key`` of ``path`` (``None``:
    the file is that table), leaving every other line of the file as it was (its
    comments included: see :mod:`.rulelines`). A file that cannot be edited that way
    raises :class:`StoreError` and is left untouched."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        text = ""
    except OSError as exc:
        raise StoreError(f"cannot read {path}: {exc.strerror or exc}") from None
    try:
        before = toml_loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise StoreError(f"{path} is not valid TOML ({exc}); fix it before adding rules") from None
    table = dict((before.get(key) if key else before) or {})
    new_text = text
    try:
        for effect, values in change.items():
            if values:
                table[effect] = list(values)
            else:
                table.pop(effect, None)
            new_text = set_list(new_text, key, effect, list(values))
        after = parsed(new_text)
    except LineEditError as exc:
        where = f"[{key}]" if key else "the rules"
        raise StoreError(f"cannot safely rewrite {where} in {path} ({exc}); edit the file by hand") from None
    others_before = {k: v for k, v in before.items() if k != key} if key else {}
    others_after = {k: v for k, v in after.items() if k != key} if key else {}
    if others_before != others_after or ((after.get(key) or {}) if key else after) != table:
        raise StoreError(f"cannot safely rewrite [{key or 'the rules'}] in {path}; edit the file by hand")
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as f:
        f.write(new_text)
    os.replace(tmp, path)


def rule_lists(rules: list[Rule]) -> dict[Effect, list[str]]:
    return {effect: [r.text for r in rules if r.effect == effect] for effect in EFFECTS}


def add_rule(path: Path, key: str | None, rule: Rule) -> None:
    table = read_table(path, key)
    values = [str(v) for v in table.get(rule.effect) or []]
    if rule.text not in values:
        values.append(rule.text)
    write_rules(path, key, {rule.effect: values})


def remove_rule(path: Path, key: str | None, rule: Rule) -> bool:
    table = read_table(path, key)
    values = [str(v) for v in table.get(rule.effect) or []]
    if rule.text not in values:
        return False
    values.remove(rule.text)
    write_rules(path, key, {rule.effect: values})
    return True


__all__ = [
    "PROJECT_DIR",
    "PROJECT_RULES",
    "RuleError",
    "StoreError",
    "add_rule",
    "load_project_rules",
    "project_rules_path",
    "project_trusted",
    "read_table",
    "remove_rule",
    "write_rules",
]
