"""The files with which git finds content without reading the objects: a
multi-pack-index and a commit-graph a sandboxed command wrote, verified or moved out.

A multi-pack-index (``objects/pack/multi-pack-index``) maps each object id to a pack
and a place in it, and git prefers it to the packs' own indexes: a forged entry
pointing the committed Makefile's id at an evil blob in an honest new pack makes the
user's ``git checkout -- Makefile`` write the evil one with no pack or index lying
(tester finding X9). A commit-graph (``objects/info/commit-graph``, or a chain in
``info/commit-graphs/``) gives each commit's root tree, and git takes it from there
instead of parsing the commit: a forged one hands ``git reset --hard`` another tree.
Both are caches: git works without them and writes them again (``git gc``,
``git multi-pack-index write``, ``git commit-graph write``), so one a command wrote or
changed that git's own check (``git multi-pack-index verify``: each entry against its
pack's index; ``git commit-graph verify``: each commit's tree and parents against the
commit) rejects, or that it could not check in time, is moved into the quarantine
folder: nothing is lost but speed. A multi-pack-index is also checked when a pack it
covers changed (the pack's rebuilt index may no longer hold what it points at). An
incremental multi-pack-index chain (``pack/multi-pack-index.d/``, git 2.47+) a command
wrote or changed is moved out unchecked: older git cannot check it.

Checked only when their stamps changed (:func:`.gitpacks.stamps`), so a command that
wrote none costs nothing more.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path

from . import crossmove, githardened
from .gitpacks import Stamp
from .runslater import Planted

TIMEOUT = 30.0
MIDX = "pack/multi-pack-index"
MIDX_CHAIN = "pack/multi-pack-index.d"
GRAPH = "info/commit-graph"
GRAPHS = "info/commit-graphs"
FOLDERS = ("pack", MIDX_CHAIN, "info", GRAPHS)
"""The folders of an objects folder whose files are stamped (see :func:`.gitpacks.stamps`)."""

MIDX_WHY = ("a git multi-pack-index that does not match the packs it points into: git would show and "
            "check out other content in place of the committed one (git checkout, git restore, "
            "git reset --hard)")
GRAPH_WHY = ("a git commit-graph that does not match the commits: git would take another tree for a "
             "commit (git checkout, git reset --hard)")
CHAIN_WHY = "an incremental git multi-pack-index (multi-pack-index.d) the command wrote, which is not checked"


def _changed(was: Mapping[str, Stamp], now: Mapping[str, Stamp], name: str) -> bool:
    prefix = name + "/"
    return any(was.get(k) != now.get(k) for k in {*was, *now} if k == name or k.startswith(prefix))


def _verify(objects: Path, what: str) -> bool | None:
    """Whether ``git <what> verify`` passes for ``objects`` (None: git could not tell)."""
    done = githardened.run([what, "verify", "--object-dir", str(objects)], cwd=objects, timeout=TIMEOUT)
    if done is None:
        return None
    return done.returncode == 0


def check(objects: Path, was: Mapping[str, Stamp], now: Mapping[str, Stamp], folder: Path,
          packs_changed: bool = False) -> list[Planted]:
    """The multi-pack-index and commit-graph files of ``objects`` new or changed since
    ``was``, each verified by git; one that fails or could not be checked moved into
    ``folder``/git-maps. ``packs_changed``: a pack changed too (check the index again)."""
    out: list[Planted] = []
    target = folder / "git-maps"
    if MIDX in now and (packs_changed or _changed(was, now, MIDX)):
        out += _verified_or_moved(objects, "multi-pack-index", [objects / MIDX], MIDX_WHY, target)
    if any(k.startswith(MIDX_CHAIN + "/") for k in now) and _changed(was, now, MIDX_CHAIN):
        out += _moved(objects / MIDX_CHAIN, CHAIN_WHY, target, "")
    graphs = [objects / name for name in (GRAPH, GRAPHS) if os.path.lexists(objects / name)]
    if graphs and (_changed(was, now, GRAPH) or _changed(was, now, GRAPHS)):
        out += _verified_or_moved(objects, "commit-graph", graphs, GRAPH_WHY, target)
    return out


def _verified_or_moved(objects: Path, what: str, paths: list[Path], why: str, target: Path) -> list[Planted]:
    verified = _verify(objects, what)
    if verified:
        return []
    note = "" if verified is False else " (it could not be checked in time)"
    out: list[Planted] = []
    for path in paths:
        out += _moved(path, why, target, note)
    return out


def _moved(path: Path, why: str, target: Path, note: str) -> list[Planted]:
    try:
        target.mkdir(parents=True, exist_ok=True)
        stored = target / path.name
        crossmove.move(path, stored)  # a folder (a chain) moves whole
    except OSError as exc:
        return [Planted(path, why, undone=f"moving it out FAILED ({exc.strerror or exc}): delete it before "
                                          "you use git here")]
    return [Planted(path, why, undone=f"moved to {stored}{note}; git works without it and writes it "
                                     "again at its next git gc")]


__all__ = ["CHAIN_WHY", "FOLDERS", "GRAPH_WHY", "MIDX_WHY", "check"]
