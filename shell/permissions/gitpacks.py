"""Pack files a sandboxed command added to a repository, checked against what they
say they hold.

A pack's ``.idx`` maps object ids to places in its ``.pack``, and git trusts it when
it reads: it looks in packs before loose objects, so a new pack pair whose index
names the committed Makefile's id at the place of an evil blob makes the user's
``git checkout -- Makefile`` write the evil one, as an overwritten loose object does
(:mod:`.gitobjects`). Packs are written whole (``git gc``, ``git repack``, a fetch),
never changed in place, so only new ones are checked: ``git index-pack --verify``
(what ``git verify-pack`` runs) reads the pack, hashes every object and compares with
the index. git runs outside the sandbox, hardened (:mod:`.githardened`). A pack
that fails is moved into the quarantine folder with its companions (``.idx``,
``.rev``, ``.keep``, ``.bitmap``, ``.mtimes``); one too big to check in time is said.
"""

from __future__ import annotations

import os
from collections.abc import Set
from pathlib import Path

from . import crossmove, githardened
from .runslater import Planted

MAX_PACK = 256 * 1024 * 1024
"""A new pack larger than this is not checked (said instead): git gc's pack of a big repository."""
TIMEOUT = 30.0
COMPANIONS = (".pack", ".idx", ".rev", ".keep", ".bitmap", ".mtimes", ".promisor")

FORGED_WHY = ("a new git pack whose index does not match its content: git would show and check out "
              "other content in place of the committed one (git checkout, git restore, git reset --hard)")
UNCHECKED_WHY = "a new git pack that could not be checked (too big, too slow, or git missing)"


def names(objects: Path) -> frozenset[str]:
    """The pack indexes in ``objects/pack`` (``pack-<id>.idx``)."""
    try:
        with os.scandir(objects / "pack") as it:
            return frozenset(e.name for e in it if e.name.endswith(".idx"))
    except OSError:
        return frozenset()


def _verify(pack: Path) -> bool | None:
    """Whether git finds ``pack`` and its index agree (None: it could not tell)."""
    done = githardened.run(["index-pack", "--verify", str(pack)], cwd=pack.parent, timeout=TIMEOUT)
    if done is None:
        return None
    return done.returncode == 0


def check_new(objects: Path, before: Set[str], folder: Path) -> list[Planted]:
    """Each pack in ``objects`` that is not in ``before`` and does not match its index,
    moved into ``folder``/git-packs; one too big to check, said."""
    out: list[Planted] = []
    for idx in sorted(names(objects) - before):
        base = objects / "pack" / idx[: -len(".idx")]
        pack = base.with_name(base.name + ".pack")
        try:
            size = os.lstat(pack).st_size
        except OSError:
            continue  # an index without its pack: git ignores it
        if size > MAX_PACK:
            said = f"kept ({size // (1024 * 1024)} MB): git verify-pack {idx} checks it"
            out.append(Planted(pack, UNCHECKED_WHY, undone=said))
            continue
        verified = _verify(pack)
        if verified is None:
            out.append(Planted(pack, UNCHECKED_WHY, undone=f"kept: git verify-pack {idx} checks it"))
            continue
        if verified:
            continue
        target = folder / "git-packs"
        moved: list[str] = []
        try:
            target.mkdir(parents=True, exist_ok=True)
            for ext in COMPANIONS:
                part = base.with_name(base.name + ext)
                if os.path.lexists(part):
                    crossmove.move(part, target / part.name)  # across file systems too
                    moved.append(ext)
        except OSError as exc:
            said = f"moving it out FAILED ({exc.strerror or exc}): delete {base.name}.* before using git here"
            out.append(Planted(pack, FORGED_WHY, undone=said))
            continue
        out.append(Planted(pack, FORGED_WHY, undone=f"moved to {target} ({', '.join(moved)})"))
    return out


__all__ = ["FORGED_WHY", "UNCHECKED_WHY", "check_new", "names"]
