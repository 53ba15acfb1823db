"""The refs of a reftable repository (``git init --ref-format=reftable``, git 2.45 and
later), read and put back through git itself.

Such a repository keeps every ref, replace refs and the stash among them, in binary
tables under ``.git/reftable/`` instead of ``refs/`` and ``packed-refs``, which the
loose-file reading of :mod:`.gitrefs` would find empty: a ``git replace`` there would
go unseen (tester finding K15). Its format is git's to read, so git reads it: a
hardened ``git for-each-ref`` outside the sandbox (as :mod:`.gitstaged` runs git: no
hooks, pager or fsmonitor, no inherited ``GIT_*``, a timeout) before and after a
command, and ``git update-ref`` to put a replace ref back. A git too old to read the
repository (before 2.45) cannot read it for the user either; then nothing is read, and
nothing is reported.
"""

from __future__ import annotations

import os
from pathlib import Path

from .gitstaged import hardened_git

FORMAT = "%(refname)%00%(objectname)%00%(symref)"


def uses_reftable(gitdir: Path) -> bool:
    """Whether ``gitdir`` keeps its refs in reftable (a ``reftable/`` folder with its list)."""
    return os.path.isfile(gitdir / "reftable" / "tables.list")


def _git(gitdir: Path, args: list[str]) -> bytes | None:
    return hardened_git(gitdir, [f"--git-dir={gitdir}", *args])


def read(gitdir: Path) -> dict[str, str] | None:
    """Every ref of ``gitdir``: name -> object id, or ``ref: target`` for a symbolic
    one (None: git could not read them)."""
    out = _git(gitdir, ["for-each-ref", f"--format={FORMAT}"])
    if out is None:
        return None
    refs: dict[str, str] = {}
    for line in out.decode("utf-8", "replace").splitlines():
        name, _, rest = line.partition("\0")
        oid, _, target = rest.partition("\0")
        if name:
            refs[name] = f"ref: {target}" if target else oid
    return refs


def head(gitdir: Path) -> str:
    """The branch ``gitdir``'s HEAD names (its ``HEAD`` file says ``refs/heads/.invalid``)."""
    out = _git(gitdir, ["symbolic-ref", "-q", "HEAD"])
    return (out or b"").decode("utf-8", "replace").strip()


def put_back(gitdir: Path, name: str, old: str | None) -> None:
    """Set ``name`` to ``old`` (an object id), or delete it (None); OSError when git refused."""
    args = ["update-ref", "-d", name] if old is None else ["update-ref", name, old]
    if old is not None and old.startswith("ref: "):
        args = ["symbolic-ref", name, old.removeprefix("ref: ")]
    if _git(gitdir, args) is None:
        raise OSError(f"git {' '.join(args[:2])} failed")


__all__ = ["head", "put_back", "read", "uses_reftable"]
