"""A git command that stopped at a tracked secret file the sandbox shows read-only
(finding Y8): what the result says, naming the file, why, and where git left the tree.

The sandbox binds git's staged copy, read-only, over a tracked secret-looking file that
holds no values (:mod:`.gitstaged`). Git leaves it alone while the command keeps its
version (:mod:`.gitcopystat`), but a bind cannot be removed from inside, so "unable to
unlink old '.env': Device or resource busy" ends any git command that must write
another version. ``git checkout``/``git switch`` carry on and stage it (:mod:`.gitcopysync`
brings the file along after, and says so); ``git reset --hard`` and ``git merge`` stop,
and may have changed other files before they did, with HEAD and the index left where
they were. The output shows only git's error (and ``git reset --hard x; echo done``
exits 0): the model then tends to retry, or "clean up" with rm and checkout a tree
already changed. So the result names the file, why git could not write it, and what
``git status`` lists now, and says the user can run the command themselves. Finishing
the command here is not done: it would run the repository's git (filters, hooks) as the
user. A tracked secret file whose staged text holds values reads empty instead, marked
skip-worktree (finding X11): there git refuses before it writes anything, with its
"local changes" error, which invites a stash or a delete: :func:`refused_note` says why
and that nothing moved.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping, Sequence
from pathlib import Path

from . import githardened, paths
from .gitstaged import repository_of, staged_entries

_BUSY = re.compile(r"^error: unable to unlink old '(?P<path>[^'\n]+)': Device or resource busy\s*$", re.M)
TIMEOUT = 5.0
_NOT_UPTODATE = re.compile(r"^error: Entry '(?P<path>[^'\n]+)' not uptodate\. Cannot merge\.\s*$", re.M)
_OVERWRITTEN = re.compile(r"would be overwritten by \w+:\n(?P<paths>(?:\t[^\n]+\n)+)")
SHOWN = 8
"""Lines of ``git status`` quoted at most."""


def refused_note(output: str, marked: Sequence[Path], cwd: Path) -> str:
    """The note for a command git refused because it would change a tracked secret file
    the sandbox shows empty, marked skip-worktree (``marked``: its staged text holds
    values, finding X11): git checks such a file before it writes anything, finds the
    empty stand-in, and stops ("Entry '.env' not uptodate", "Your local changes … would
    be overwritten"), so nothing moved. Empty when the output names none of them."""
    said = {m.group("path") for m in _NOT_UPTODATE.finditer(output)}
    for m in _OVERWRITTEN.finditer(output):
        said.update(line.strip() for line in m.group("paths").splitlines())
    if not said:
        return ""
    known: dict[str, bool] = {}
    named = []
    for path in marked:
        repo = repository_of(path, known)
        if repo is not None and path.relative_to(repo).as_posix() in said:
            named.append(paths.relative(path, cwd) or os.fspath(path))
    if not named:
        return ""
    return (f"[agent-shell: git refused to change {', '.join(named)}: the sandbox shows this tracked secret "
            "file empty (its staged text holds values) and git was told to leave it as staged, so a git "
            "command that would write another version of it (checkout, reset --hard, merge, pull) stops "
            "before it changes anything: nothing moved. The 'local changes' git names are the sandbox's "
            "empty stand-in: do not stash, commit or delete the file; tell the user, who can run the command "
            "outside the sandbox.]")


def stopped_note(output: str, copies: Mapping[Path, str], cwd: Path) -> str:
    """The note for a command in which git could not replace a tracked secret file shown
    as its staged copy (``copies``: file → copy, named by its blob) and left it staged
    as it was: git stopped there (whatever the exit code: ``git reset --hard x; echo
    done`` exits 0). Empty when the output says no such thing, or when git went on and
    staged another version (a checkout: :mod:`.gitcopysync` brought it along, or says
    why not)."""
    said = {m.group("path") for m in _BUSY.finditer(output)}
    if not said:
        return ""
    stuck: list[tuple[str, Path]] = []
    known: dict[str, bool] = {}
    for path, copy in copies.items():  # git names a file from its work tree's top
        repo = repository_of(path, known)
        rel = path.relative_to(repo).as_posix() if repo is not None else ""
        blob = os.path.basename(copy).split("-")[0]  # a copy is named by its blob
        if repo is not None and rel in said and _staged_blob(repo, rel) == blob:
            stuck.append((paths.relative(path, cwd) or os.fspath(path), path))
    if not stuck:
        return ""
    names = ", ".join(shown for shown, _ in stuck)
    repo = repository_of(stuck[0][1])
    state = _status(repo) if repo is not None else None
    now = ("`git status` could not be read" if state is None else
           "`git status` lists nothing changed" if not state else
           "`git status` now lists: " + "; ".join(state[:SHOWN]) + (
               f" and {len(state) - SHOWN} more" if len(state) > SHOWN else ""))
    return (f"[agent-shell: git could not replace {names}: the sandbox shows this tracked secret file "
            "read-only in its place (as git has it staged), and git cannot remove a file bound there. A "
            "git command that must write another version of it (reset --hard, merge, restore, rebase, "
            "cherry-pick) stops there, and may have changed other files first while HEAD and the index "
            f"stayed where they were: {now}. Do not retry it or repair the tree with rm or checkout: tell "
            "the user, who can run the command outside the sandbox.]")


def _staged_blob(repo: Path, rel: str) -> str | None:
    """The object ``rel`` is staged as now (None: not staged, or git could not say)."""
    entries = staged_entries(repo, [os.fsencode(rel)], TIMEOUT)
    entry = entries.get(os.fsencode(rel)) if entries is not None else None
    return entry[1].decode("ascii", "replace") if entry is not None else None


def _status(repo: Path) -> list[str] | None:
    """``git status --porcelain`` of ``repo`` as lines (None: git could not say); run
    hardened, taking no lock (the user's own git may be at work)."""
    done = githardened.run(["--no-optional-locks", "-C", str(repo), "status", "--porcelain", "-z"],
                           timeout=TIMEOUT)
    if done is None or done.returncode != 0:
        return None
    out: list[str] = []
    entries = iter(done.stdout.split(b"\0"))
    for entry in entries:
        if len(entry) < 4:
            continue
        out.append(os.fsdecode(entry[:2]).strip() + " " + os.fsdecode(entry[3:]))
        if entry[:1] in (b"R", b"C"):
            next(entries, None)  # a rename's source follows
    return out


__all__ = ["refused_note", "stopped_note"]
