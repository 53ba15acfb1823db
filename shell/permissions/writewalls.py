"""What a rule on writing names but does not exist yet, kept from sandboxed commands.

``deny write_file(secrets/**)`` makes what the rule names outright read-only for every
sandboxed command (:meth:`.sandbox.Sandbox.readonly_paths`): a program that writes by
its own logic (``python gen.py``) cannot change it. bubblewrap can only bind what
exists, though, and binding a missing path would leave an empty file or folder in the
user's tree; binding its nearest existing parent instead would make the whole workspace
read-only when that parent is the root. So a named path that is missing before a
command is checked once the command has ended (all its processes are gone by then):
if the command created it, it is moved to the quarantine folder in agent-shell's data
dir, as planted git hooks are (:mod:`.runslater`), and the result says so with the
``mv`` that puts it back.
"""

from __future__ import annotations

import os
import shlex
from collections.abc import Sequence
from pathlib import Path

from . import paths, quarantine
from .runslater import Planted, move_out, relative

WHY = "a rule on writing names it (see /permissions), and this command created it"


def missing(named: Sequence[Path], binds: Sequence[Path]) -> list[Path]:
    """The paths write rules name that a command could create: inside the writable
    roots, not there yet (outermost first)."""
    out: list[Path] = []
    for path in sorted(dict.fromkeys(named), key=lambda p: len(p.parts)):
        inside = any(paths.within(path, base) for base in binds)
        if inside and not os.path.lexists(path) and not any(paths.within(path, o) for o in out):
            out.append(path)
    return out


def move_created(was_missing: Sequence[Path], roots: Sequence[Path]) -> list[Planted]:
    """Move what a command created at a path that was missing before it into a new
    quarantine folder (recorded for ``/quarantine``); what was moved, or why not."""
    created = [p for p in was_missing if os.path.lexists(p)]
    if not created:
        return []
    folder = quarantine.new_folder()
    moved = [move_out(path, WHY, folder, roots) for path in created]
    quarantine.record(folder, moved)
    return moved


def is_rule_entry(planted: Planted) -> bool:
    """Whether an entry of the check after a command is this module's."""
    return planted.why == WHY


def report(moved: Sequence[Planted], roots: Sequence[Path]) -> str:
    """What the tool result says, with how to put each back."""
    if not moved:
        return ""
    lines = ["[agent-shell: this command created what a rule on writing keeps the model from writing:"]
    for p in moved:
        shown = relative(p.path, roots)
        if p.moved_to is not None:
            back = f"mv {shlex.quote(str(p.moved_to))} {shlex.quote(str(p.path))}"
            lines.append(f"  {shown}: moved out of the workspace (to keep it: {back})")
        else:
            lines.append(f"  {shown}: it could NOT be moved ({p.error}): check it")
    lines.append("Do not write there; ask the user to make such a change.]")
    return "\n".join(lines)


__all__ = ["WHY", "is_rule_entry", "missing", "move_created", "report"]
