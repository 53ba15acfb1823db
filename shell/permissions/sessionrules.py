"""The rules "always" kept in the session, read without changing the session.

The policy decides each call in a worker thread (so a slow check never stalls the
screen or Esc: :mod:`middleware.human_in_the_loop`), while the event loop may be saving
the very dict the session's rules live in. A worker that added a key to it, or took one
out, could make that save fail ("dictionary changed size during iteration"), so reading
here never writes: the old ``always_allow`` list (tool names, from before rules) is read
as restored allow rules where it stands, and only a writer (:meth:`entries`, on the
loop: "always", ``/permissions``) moves it into the rules list.
"""

from __future__ import annotations

from collections.abc import MutableMapping
from typing import Any

from .rules import Rule, RuleError, Source, parse_rule

SESSION_KEY = "rules"
"""Where session rules live in the HumanInTheLoop middleware's session state."""
LEGACY_KEY = "always_allow"

Stamp = tuple[int, int, int, int]
"""Which lists the session holds and how long they are: a change to either shows."""


def entries(state: MutableMapping[str, Any]) -> list[dict[str, Any]]:
    """The session's rule list, to change (the legacy list moved into it first).
    For writers on the event loop only."""
    found = state.setdefault(SESSION_KEY, [])
    if not isinstance(found, list):
        found = state[SESSION_KEY] = []
    legacy = state.pop(LEGACY_KEY, None)
    if isinstance(legacy, list):
        found.extend(_legacy_rows(legacy))
    return found


def seen(state: MutableMapping[str, Any]) -> tuple[list[Any], Stamp]:
    """The session's rule rows as they are now (a copy; the legacy ones too), and
    their stamp. Changes nothing: safe from a worker thread."""
    found, legacy = state.get(SESSION_KEY), state.get(LEGACY_KEY)
    rows = list(found) if isinstance(found, list) else []
    old = list(legacy) if isinstance(legacy, list) else []
    stamp = (id(found), len(rows), id(legacy), len(old))
    return [*rows, *_legacy_rows(old)], stamp


def rules(rows: list[Any], run_id: str) -> list[Rule]:
    """The rules of ``rows``: granted in this run (``session``) or restored; a row
    that does not parse is skipped (a hand-edited session file loses nothing else)."""
    found = []
    for row in rows:
        if not isinstance(row, dict):
            continue
        source: Source = "session" if row.get("run") == run_id else "restored"
        try:
            found.append(parse_rule(row.get("rule", ""), row.get("effect", "allow"), source))
        except RuleError:
            continue
    return found


def _legacy_rows(names: list[Any]) -> list[dict[str, Any]]:
    return [{"effect": "allow", "rule": name, "run": "legacy"} for name in names if isinstance(name, str)]


__all__ = ["LEGACY_KEY", "SESSION_KEY", "entries", "rules", "seen"]
