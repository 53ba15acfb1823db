"""What an MCP tool says it is, remembered, so that a change is seen.

A server may change a tool after the user allowed it (a "rug pull": the same name,
a new description telling the model to send files elsewhere, a new schema, a
``readOnlyHint`` it did not have). Permission rules and "always" answers name a
tool, not what it said; so each tool's description, title, schemas and annotations
are fingerprinted when its server first lists it in this session, and a later list
(``notifications/tools/list_changed``, or a restart) that differs marks the tool
changed: the permission policy asks before its next call, saying what changed, and
the user's approval makes the new version the one remembered.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from typing import Any

PARTS = {
    "description": "its description",
    "title": "its title",
    "inputSchema": "its input schema",
    "outputSchema": "its output schema",
    "annotations": "its annotations (hints such as read-only or destructive)",
}
"""The parts of a listed tool that say what it does, and how a change of each is told."""

Prints = dict[str, str]


def fingerprint(info: Mapping[str, Any]) -> Prints:
    """A digest of each part of a listed tool (see :data:`PARTS`)."""
    return {part: _digest(info.get(part)) for part in PARTS}


def what_changed(before: Prints, now: Prints) -> str:
    """The parts that differ, said for the user (``its description, its input schema``), or ""."""
    return ", ".join(label for part, label in PARTS.items() if before.get(part) != now.get(part))


def _digest(value: Any) -> str:
    try:
        text = json.dumps(value, sort_keys=True, ensure_ascii=False, default=str)
    except (RecursionError, ValueError):
        text = repr(type(value))  # a tool nested too deep is refused before it gets here
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


class ToolIdentities:
    """The fingerprints of one server's tools as the user last accepted them (first
    listed, or approved after a change), kept across restarts of the server."""

    def __init__(self) -> None:
        self._known: dict[str, Prints] = {}

    def check(self, remote: str, info: Mapping[str, Any]) -> tuple[Prints, str]:
        """``info``'s fingerprint and what changed since the one accepted ("" for a
        tool seen the first time, which is accepted as it is)."""
        prints = fingerprint(info)
        return prints, what_changed(self._known.setdefault(remote, prints), prints)

    def accept(self, remote: str, prints: Prints) -> None:
        self._known[remote] = prints
