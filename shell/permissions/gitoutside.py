"""The repository a workspace belongs to when git keeps it outside the workspace.

Two common set-ups put the git directory git uses for the workspace outside it:
a linked worktree (``git worktree add ../feature``: the workspace's ``.git`` is a
file, ``gitdir: /repo/.git/worktrees/feature``) and a workspace that is a subfolder
of a repository (``cd monorepo/pkg; agent-shell``: git finds ``../.git``). The
sandbox's walls (:mod:`.runslater`) and its credential scrub (:mod:`.gitcreds`)
first covered git directories inside the workspace only, so in these set-ups a
sandboxed ``git remote -v`` printed the repository's token, and every ``git add``
failed on a read-only ``index.lock``.

:func:`outside_git` finds that git directory the way git's discovery does (the
nearest ``.git`` at or above the workspace, on the same file system), whose
git directories the walls then guard and whose configs the scrub covers, as for a
repository inside the workspace.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from . import paths

MAX_DEPTH = 128
"""Folders above the workspace looked at for a ``.git``."""


@dataclass(frozen=True, slots=True)
class OutsideGit:
    """The git directory git uses for a workspace, outside it, and its common dir."""

    gitdir: Path
    """Where git keeps this checkout's index and ``HEAD`` (``/repo/.git/worktrees/NAME``,
    or ``/repo/.git`` for a subfolder of the main checkout)."""
    common: Path
    """The repository's own git directory (config, hooks, objects, refs)."""

    @property
    def linked(self) -> bool:
        """Whether the workspace is a linked worktree (else the main checkout's subfolder)."""
        return self.gitdir != self.common

    def top(self) -> Path:
        """The repository's main checkout (where a config's ``include`` beside it lies)."""
        return self.common.parent if self.common.name == ".git" else self.common


def gitfile_target(path: Path) -> Path | None:
    """Where a ``.git`` file (``gitdir: …``, submodules and worktrees) points."""
    try:
        with open(path, encoding="utf-8", errors="replace") as fh:
            text = fh.read(4096)
    except OSError:
        return None
    if not text.startswith("gitdir:"):
        return None
    target = text[len("gitdir:"):].strip().splitlines()[0] if text[7:].strip() else ""
    if not target:
        return None
    try:  # git reads the file literally: no ~ here
        return paths.resolve(target, path.parent, expand_user=False)
    except paths.BadPath:
        return None


def outside_git(workspace: Path) -> OutsideGit | None:
    """The git directory git would use for ``workspace`` (a real path) when it lies
    outside it; None when it lies inside (the walls cover it), or there is none."""
    try:
        device = os.stat(workspace).st_dev
    except OSError:
        return None
    across = os.environ.get("GIT_DISCOVERY_ACROSS_FILESYSTEM", "").lower() in ("1", "true", "yes", "on")
    for folder in [workspace, *workspace.parents][:MAX_DEPTH]:
        try:
            if not across and os.stat(folder).st_dev != device:
                return None  # git stops at a file system boundary too
        except OSError:
            return None
        dot = folder / ".git"
        if not os.path.lexists(dot):
            continue
        if dot.is_file() and not dot.is_symlink():
            gitdir = gitfile_target(dot)
        else:
            try:
                gitdir = paths.resolve(dot, "/")
            except paths.BadPath:
                gitdir = None
        if gitdir is None or not (gitdir / "HEAD").exists() or paths.within(gitdir, workspace):
            return None
        return OutsideGit(gitdir, _common(gitdir))
    return None


def _common(gitdir: Path) -> Path:
    """The common dir a git directory's ``commondir`` names (itself when none)."""
    try:
        with open(gitdir / "commondir", encoding="utf-8", errors="replace") as fh:
            named = fh.read(4096).strip()
    except OSError:
        return gitdir
    if not named:
        return gitdir
    try:
        common = paths.resolve(named, gitdir, expand_user=False)
    except paths.BadPath:
        return gitdir
    return common if common.is_dir() else gitdir


__all__ = ["OutsideGit", "gitfile_target", "outside_git"]
