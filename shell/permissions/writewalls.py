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

A rule with a wildcard before its end (``**/*.pem``) names no one path: the files it
covers among those the secret-file search lists (:mod:`.secretfiles`, which skips
``node_modules``, ``.git`` and a virtualenv's packages) are bound read-only, and a new
one a command made is moved out the same way.
"""

from __future__ import annotations

import os
import shlex
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from . import paths, quarantine
from .runslater import SLACK_NS, Planted, move_out, relative

if TYPE_CHECKING:
    from .secretfiles import SecretFileIndex
    from .writedeny import Wildcards

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


MAX_WILDCARD = 2_000
"""Files a wildcard rule on writing covers that are bound read-only for one command."""


def wildcard_matches(index: SecretFileIndex, wildcards: Wildcards | None, binds: Sequence[Path]) -> set[Path]:
    """The workspace's files a write rule with a wildcard covers (``**/*.pem``), among
    those the last secret-file search listed: bound read-only before a command, and what
    appears after it among them was the command's (see :func:`created_since`)."""
    if wildcards is None or not wildcards.names:
        return set()
    found = index.files_where(wildcards.names, MAX_WILDCARD)
    return {p for p in found if any(paths.within(p, b) for b in binds) and wildcards.covers(p)}


def created_since(found: set[Path], before: set[Path], started_ns: int) -> list[Path]:
    """Of ``found`` (after a command), what was not there before it and changed since it
    started (one the search before had not reached is not the command's)."""
    out = []
    for path in sorted(found - before):
        try:
            if os.lstat(path).st_ctime_ns >= started_ns - SLACK_NS:
                out.append(path)
        except OSError:
            continue
    return out


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


__all__ = ["WHY", "created_since", "is_rule_entry", "missing", "move_created", "report", "wildcard_matches"]
