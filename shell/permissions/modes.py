"""Permission modes: how much runs without asking, switched as a whole.

``default``       read-only tools run; everything else asks.
``plan``          nothing that writes, executes or reaches the network runs (the
                  model is told it is planning); reading and searching do.
``accept-edits``  file edits inside the workspace run too; the rest asks.
``auto``          whatever stays inside the sandbox runs (edits in the workspace,
                  shell commands bubblewrap confines); what would leave it asks.
``bypass``        nothing asks (deny rules still hold). Shown as a warning.

Rules come before modes (a deny rule holds in every mode; plan mode outranks
allow rules); see :mod:`.policy`.
"""

from __future__ import annotations

from typing import Literal, TypeAlias, get_args

Mode: TypeAlias = Literal["default", "plan", "accept-edits", "auto", "bypass"]
MODES: tuple[Mode, ...] = get_args(Mode)

CYCLE: tuple[Mode, ...] = ("default", "accept-edits", "plan", "auto")
"""What Shift+Tab steps through; ``bypass`` joins only when chosen at start
(``--permission-mode bypass``), so a stray key never switches checks off."""

SUMMARY: dict[Mode, str] = {
    "default": "read-only tools run; the rest asks",
    "plan": "planning: nothing that writes, executes or reaches the network runs",
    "accept-edits": "file edits in the workspace run; the rest asks",
    "auto": "what stays inside the sandbox runs; the rest asks",
    "bypass": "nothing asks: every tool call runs (deny rules still hold)",
}

_ALIASES = {
    "acceptedits": "accept-edits",
    "accept_edits": "accept-edits",
    "accept": "accept-edits",
    "edits": "accept-edits",
    "bypasspermissions": "bypass",
    "yolo": "bypass",
    "normal": "default",
    "ask": "default",
}

PLAN_NOTE = (
    "You are in plan mode: tools that write files, run commands or reach the network "
    "are refused. Read and search as much as you need, then present a concise, concrete "
    "plan and stop; the user switches modes to carry it out."
)


class ModeError(ValueError):
    """An unknown mode name; the message lists the valid ones."""


def parse_mode(name: str) -> Mode:
    """``accept-edits`` (also ``acceptEdits``, ``accept_edits``) and the others."""
    key = name.strip().lower()
    key = _ALIASES.get(key, key)
    for mode in MODES:
        if mode == key:
            return mode
    raise ModeError(f"unknown permission mode {name!r} (one of: {', '.join(MODES)})")


def next_mode(mode: Mode, *, include_bypass: bool = False) -> Mode:
    """The mode after ``mode`` in the Shift+Tab cycle."""
    cycle: tuple[Mode, ...] = (*CYCLE, "bypass") if include_bypass else CYCLE
    if mode not in cycle:
        return cycle[0]
    return cycle[(cycle.index(mode) + 1) % len(cycle)]
