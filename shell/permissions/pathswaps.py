"""Folders a sandboxed command renamed above a path the sandbox holds, put back.

The sandbox holds a path by binding it onto itself: read-only for what a rule on
writing names (``deny write_file(config/prod.toml)``), empty for a secret file or what
a rule on reading names. A bind cannot be renamed, but the folder above it can, and
the bind moves with it: ``mv config cfg_old; mkdir config; echo x > config/prod.toml``
left the rule's file replaced, and ``mv config cfg2`` let the next command read
``cfg2/secrets/`` that a rule on ``config/secrets/**`` hid (tester finding K9).

So before a command the identity (device, inode) of every folder on the way to each
held path is kept (:func:`hold`), and after it (:func:`undo`), where one changed, the
original is looked for by inode (in its old folder, then a bounded walk) and renamed
back; what the command put in its place goes to the quarantine, and the result says
so. For a secret file this is done only when something new stands at its path (a
folder renamed with its ``.env`` inside is followed by the secret search anyway), and
the same for what runs later (``sub/.vscode``): otherwise the guard would quarantine
the command's new one and leave the user's own in ``sub_old/``, unmentioned.

A git objects folder (or its git directory) made a link is put back too (tester finding
X12): ``mv .git/objects .git/objects.real && ln -s ~/.cache/go-build .git/objects`` made
the checks after the command, and the keep of the history before the next one, read,
hard-link and move that folder's files as if they were the repository's, and the user's
next git would write there. Only a link is undone: a repository removed or made anew
(``rm -rf .git && git init``) is the command's to make.
"""

from __future__ import annotations

import os
from collections import deque
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from . import quarantine
from .runslater import Planted, move_out, relative

Ident = tuple[int, int]

MAX_WALK = 2_000_000
"""Entries looked at to find a renamed folder outside its old parent. A folder not
found is said as NOT put back, never passed over: a cap of 20,000 let a command move a
denied folder under 24,000 new ones and read it at its new place (verify of L9)."""

RULE, SECRET, LATER, GIT = "rule", "secret", "later", "git"
WHY = "renamed by this command, with what the sandbox holds inside it"


@dataclass(frozen=True, slots=True)
class Held:
    """One held path, and each folder on its way from a root (with itself) as it was."""

    path: Path
    kind: str
    chain: tuple[tuple[Path, Ident], ...]


def _ident(path: Path) -> Ident | None:
    try:
        info = os.lstat(path)
    except OSError:
        return None
    return info.st_dev, info.st_ino


def hold(kinds: Mapping[str, Iterable[Path]], roots: Sequence[Path]) -> list[Held]:
    """Before a command: the chain of identities of each existing held path."""
    out: list[Held] = []
    seen: dict[Path, Ident | None] = {}
    for kind, found in kinds.items():
        for path in dict.fromkeys(found):
            root = next((r for r in roots if r in path.parents), None)
            if root is None:
                continue
            chain: list[tuple[Path, Ident]] = []
            step = root
            for part in path.relative_to(root).parts:
                step = step / part
                ident = seen[step] if step in seen else seen.setdefault(step, _ident(step))
                if ident is None:
                    break
                chain.append((step, ident))
            else:
                out.append(Held(path, kind, tuple(chain)))
    return out


def undo(held: Sequence[Held], roots: Sequence[Path]) -> list[Planted]:
    """After a command: put back each folder renamed above a held path (see the module)."""
    out: list[Planted] = []
    done: set[Path] = set()
    folder: Path | None = None
    for item in held:
        changed = next(((p, i) for p, i in item.chain if _ident(p) != i), None)
        if changed is None or changed[0] in done:
            continue
        top, ident = changed
        if item.kind == GIT:
            if not os.path.islink(top):
                continue  # removed or made anew: the command's own repository
        elif item.kind != RULE and (top == item.path or not os.path.lexists(item.path)):
            continue  # renamed, and nothing new in its place: followed (secrets) or the user's own move
        done.add(top)
        moved = _find(top.parent, ident, roots)
        if moved is None:
            shown = relative(item.path, roots)
            out.append(Planted(top, WHY, error=f"it was moved where agent-shell could not find it within "
                                               f"{MAX_WALK:,} entries of the workspace, so {shown} and what "
                                               "it held may be readable at its new place: tell the user"))
            continue
        folder = folder or quarantine.new_folder()
        out += _put_back(top, moved, item, folder, roots)
    if folder is not None:
        quarantine.record(folder, [p for p in out if p.moved_to is not None])
    return out


def _put_back(top: Path, moved: Path, item: Held, folder: Path, roots: Sequence[Path]) -> list[Planted]:
    shown, where = relative(top, roots), relative(moved, roots)
    what = {RULE: "a rule names it", SECRET: "a secret file",
            GIT: "git's objects: the link made git read and write another folder"}.get(item.kind,
                                                                                      "it runs later as you")
    planted: list[Planted] = []
    if os.path.lexists(top):
        new = move_out(top, WHY, folder, roots)
        if new.moved_to is None:
            return [Planted(top, WHY, error=f"{new.error}; {relative(item.path, roots)} ({what}) is at "
                                            f"{relative(moved / item.path.relative_to(top), roots)}")]
        planted.append(new)
    try:
        os.rename(moved, top)
    except OSError as exc:
        error = f"{where} could not be renamed back: {exc.strerror or exc}"
        return [*planted, Planted(top, WHY, error=error)]
    said = f"{where} renamed back to {shown} ({relative(item.path, roots)} is inside: {what})"
    if planted:
        new = planted[0]
        return [Planted(top, WHY, new.moved_to, undone=f"{said}; what the command put at {shown} was "
                                                      f"moved out of the workspace to {new.moved_to}")]
    return [Planted(top, WHY, undone=said)]


def _find(parent: Path, ident: Ident, roots: Sequence[Path]) -> Path | None:
    """Where the entry with ``ident`` is now: in ``parent`` (a rename in place), else
    anywhere in the roots within :data:`MAX_WALK` entries (symlinks not followed)."""
    # the old parent first, not descended into (a rename in place), unless it is a root:
    # a folder right under the workspace moved deeper was never looked for below it
    places = deque([(parent, parent in roots), *((root, True) for root in roots if root != parent)])
    looked = 0
    while places and looked < MAX_WALK:
        place, descend = places.popleft()
        try:
            with os.scandir(place) as entries:
                for entry in entries:
                    looked += 1
                    info = entry.stat(follow_symlinks=False)
                    if (info.st_dev, info.st_ino) == ident:
                        return Path(entry.path)
                    if descend and entry.is_dir(follow_symlinks=False):
                        places.append((Path(entry.path), True))
        except OSError:
            continue
    return None


def is_swap(planted: Planted) -> bool:
    """Whether an entry of the check after a command is this module's."""
    return planted.why == WHY


def report(swapped: Sequence[Planted], roots: Sequence[Path]) -> str:
    """What the tool result says about each folder put back."""
    if not swapped:
        return ""
    lines = ["[agent-shell: this command renamed a folder holding what the sandbox keeps from it (a rule's "
             "path, a secret file, what runs later, or git's objects):"]
    for p in swapped:
        said = p.undone or f"it could NOT be put back ({p.error})"
        lines.append(f"  {relative(p.path, roots)}: {said}")
    lines.append("Do not move such folders; ask the user to make such a change.]")
    return "\n".join(lines)


__all__ = ["GIT", "LATER", "RULE", "SECRET", "WHY", "Held", "hold", "is_swap", "report", "undo"]
