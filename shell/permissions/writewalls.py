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
one a command made is moved out the same way. Up to :data:`MAX_WILDCARD` of them:
past that a command asks (the policy, :func:`wildcard_overflow`), and the rule says
so when it is added (:func:`scope_note`), as it says what it does not reach.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from . import paths
from .putback import keep_command

if TYPE_CHECKING:
    from .runslater import Planted
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
    quarantine folder (recorded for ``/quarantine``); what was moved, or why not.
    (What runs later, and the quarantine, are imported by the functions of a command's
    check: the policy imports this module for :func:`unheld_question` at start.)"""
    from . import quarantine
    from .runslater import move_out

    created = [p for p in was_missing if os.path.lexists(p)]
    if not created:
        return []
    folder = quarantine.new_folder()
    moved = [move_out(path, WHY, folder, roots) for path in created]
    quarantine.record(folder, moved)
    return moved


MAX_WILDCARD = 500
"""Files wildcard rules on writing cover that are bound read-only for one command.
bubblewrap's cost grows with the square of the binds (measured in one run, load 8:
100 binds 0.14 s, 250 0.43 s, 500 2.1 s, 1,000 10 s, 2,000 37 s before the command
starts), and it refuses more than 9,000 arguments (3 a bind). Past this the sandbox
cannot hold the rule, so a command asks (:func:`wildcard_overflow`)."""
MAX_CANDIDATES = 20_000
"""Files picked by name (``*.py``) and then judged by the rules (``src/**/*.py``): a
workspace's other 5,000 ``.py`` files must not crowd out the 30 the rule covers."""

SKIPPED = "node_modules, .git, caches and a virtualenv's installed packages"
"""What the search (:mod:`.secretfiles`) does not list, so a wildcard rule's sandbox
walls do not reach: package managers write there (a rule on ``**/*.pem`` that froze
``certifi/cacert.pem`` would break ``pip install``)."""


def _covered(index: SecretFileIndex, wildcards: Wildcards | None, binds: Sequence[Path]) -> list[Path]:
    if wildcards is None or not wildcards.names:
        return []
    found = index.files_where(wildcards.names, MAX_CANDIDATES)
    return [p for p in found if any(paths.within(p, b) for b in binds) and wildcards.covers(p)]


def wildcard_matches(index: SecretFileIndex, wildcards: Wildcards | None, binds: Sequence[Path]) -> set[Path]:
    """The workspace's files a write rule with a wildcard covers (``**/*.pem``), among
    those the last secret-file search listed, at most :data:`MAX_WILDCARD`: bound
    read-only before a command, and what appears after it among them was the
    command's (see :func:`created_since`)."""
    return set(_covered(index, wildcards, binds)[:MAX_WILDCARD])


def wildcard_overflow(index: SecretFileIndex, wildcards: Wildcards | None, binds: Sequence[Path]) -> int:
    """How many files wildcard rules on writing cover when that is more than the
    sandbox keeps read-only (0 when it keeps them all): a program a command runs
    could change the rest, so the policy asks before such a command."""
    count = len(_covered(index, wildcards, binds))
    return count if count > MAX_WILDCARD else 0


class Searched(Protocol):
    """What :func:`unheld_question` needs of the sandbox (:class:`.sandbox.Sandbox`)."""

    secret_index: SecretFileIndex

    def secrets_searched(self) -> object: ...

    def roots(self) -> list[Path]: ...

    @property
    def available(self) -> bool: ...


def unheld_question(wildcards: Wildcards, sandbox: Searched | None) -> str:
    """Why a shell command asks when wildcard rules on writing cover more files than
    the sandbox can keep read-only ("" when it holds them all, or there are none)."""
    if sandbox is None or not wildcards.names:
        return ""
    sandbox.secrets_searched()  # the files they cover are picked from the search's listings
    count = wildcard_overflow(sandbox.secret_index, wildcards, sandbox.roots())
    if not count:
        return ""
    return (f"Rules on writing with a wildcard (see /permissions) cover {count:,} files, more than the "
            f"{MAX_WILDCARD} the sandbox can keep read-only for a command: a program this command runs "
            "could change the rest, so it asks. A narrower rule (`db/**/*.sql` rather than `**/*.sql`) is "
            "held in full.")


def scope_note(wildcards: Wildcards, sandbox: Searched | None) -> str:
    """What a wildcard rule on writing holds in the sandbox ("" for another rule),
    said when it is added and in ``/permissions``: the tools and a command's own words
    are judged everywhere, but what a program writes by its own logic only where the
    sandbox can bind it."""
    if sandbox is None or not wildcards.names:
        return ""
    if not sandbox.available:  # commands run outside any sandbox here: say so, not a promise
        return ("there is no sandbox here (bubblewrap), so only write_file, edit_file and a command's own "
                "words (`> x`, `rm x`) are held to it, not what a program a command runs writes")
    sandbox.secrets_searched()
    count = len(_covered(sandbox.secret_index, wildcards, sandbox.roots()))
    held = (f"{count:,} files, more than the {MAX_WILDCARD} the sandbox can keep read-only, so every shell "
            "command asks first (a narrower rule, such as `db/**/*.sql`, is held in full)"
            if count > MAX_WILDCARD else
            f"{count} file{'s' if count != 1 else ''} now, read-only to every shell command")
    return (f"in the sandbox it covers {held}; not files inside {SKIPPED} (package managers write there), "
            "though write_file, edit_file and a command's own words (`> x`, `rm x`) are refused there too")


def created_since(found: set[Path], before: set[Path], started_ns: int) -> list[Path]:
    """Of ``found`` (after a command), what was not there before it and changed since it
    started (one the search before had not reached is not the command's)."""
    from .runslater import SLACK_NS

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
    from .runslater import relative

    if not moved:
        return ""
    lines = ["[agent-shell: this command created what a rule on writing keeps the model from writing:"]
    for p in moved:
        shown = relative(p.path, roots)
        if p.moved_to is not None:
            back = f"/quarantine restore, or {keep_command(p.moved_to, p.path)}"
            lines.append(f"  {shown}: moved out of the workspace (to keep it: {back})")
        else:
            lines.append(f"  {shown}: it could NOT be moved ({p.error}): check it")
    lines.append("Do not write there; ask the user to make such a change.]")
    return "\n".join(lines)


__all__ = ["WHY", "Searched", "created_since", "is_rule_entry", "missing", "move_created", "report",
           "scope_note", "unheld_question", "wildcard_matches", "wildcard_overflow"]
