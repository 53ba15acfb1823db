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
nearest ``.git`` at or above the workspace, on the same file system), and
:class:`OutsideGit` says what of it the sandbox opens: what git writes for *this*
checkout (the worktree's own git directory: index, ``HEAD``, its logs; and the
repository's ``objects/``, ``refs/``, ``logs/``, where commits and branches go),
nothing else (the main checkout's index and ``HEAD``, other worktrees, ``packed-refs``
stay read-only). Inside what it opens, hooks, config and ``info/`` stay read-only
exactly as in a repository inside the workspace. What git then cannot do there is
said plainly (:func:`outside_note`, :func:`outside_files_note`): the checkout's files
outside the workspace stay read-only, so a ``git switch`` from a subfolder leaves them
as they were, and git exits 0.

A ``.git`` *file* (or link) is anyone's to write: an unpacked archive can carry one
saying ``gitdir: ../../projects/victim/.git``, and git then commits into that other
project and moves its branches (finding Q19). So what git writes there is opened only
when the repository itself says the workspace is its own (:func:`_points_back`): a
linked worktree's ``worktrees/NAME/gitdir`` names this ``.git`` file, a submodule's
``core.worktree`` names this folder, and a ``.git`` folder above the workspace (a
subfolder of a checkout) is that checkout's by where it is. Any other git directory
stays read-only, and the result says why (:func:`outside_note`).

A ``.git`` folder above the workspace opens only when its checkout could itself be a
fenced workspace (:func:`.homedirs.unfenced`): dotfiles kept by ``git init`` in home make
every folder under home a "subfolder" of that repository, and a command in
``~/Downloads/evil`` then committed a ``.bashrc`` of its own there, one ``git restore .``
away from running at the user's next shell (finding Q32). Home's repository (or one
holding home, ``~/.config``'s, a ``PATH`` folder's) is not the workspace's: it stays
read-only unless the workspace is that folder itself (then it is inside, and asks).
"""

from __future__ import annotations

import os
import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from . import homedirs, paths
from .gitconfigfile import entries

MAX_DEPTH = 128
"""Folders above the workspace looked at for a ``.git``."""

SHARED_WRITES = ("objects", "refs", "logs", "reftable")
"""What a commit, a new branch or a stash writes in the repository's common git
directory, from a linked worktree (its index and ``HEAD`` are in its own)."""


@dataclass(frozen=True, slots=True)
class OutsideGit:
    """The git directory git uses for a workspace, outside it, and its common dir."""

    gitdir: Path
    """Where git keeps this checkout's index and ``HEAD`` (``/repo/.git/worktrees/NAME``,
    or ``/repo/.git`` for a subfolder of the main checkout)."""
    common: Path
    """The repository's own git directory (config, hooks, objects, refs)."""
    checkout: Path | None = None
    """The top of the checkout the workspace lies in (where its ``.git`` is): git names
    the files it checks out relative to it."""
    ours: bool = True
    """Whether the repository says this checkout is its own (a ``.git`` folder above the
    workspace, or a worktree's or submodule's record pointing back at it): otherwise git
    was pointed there by a ``.git`` file anyone could write, and nothing there opens."""
    unfenced: str = ""
    """Why the checkout holding the workspace is no fenced project (home, ``~/.config``,
    a ``PATH`` folder: :func:`.homedirs.unfenced`), "" when it is one; nothing opens then."""

    @property
    def linked(self) -> bool:
        """Whether the workspace is a linked worktree (else the main checkout's subfolder)."""
        return self.gitdir != self.common

    def writable(self) -> list[Path]:
        """What the sandbox binds writable for git: the checkout's own git directory,
        and for a linked worktree the repository's object store, refs and logs too;
        nothing when the repository does not say this checkout is its own."""
        if not self.ours or self.unfenced:
            return []
        out = [self.gitdir]
        if self.linked:
            out += [self.common / name for name in SHARED_WRITES if (self.common / name).is_dir()]
        return [p for p in out if p.is_dir()]

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
        common = _common(gitdir)
        return OutsideGit(gitdir, common, folder, _points_back(dot, gitdir, common),
                          homedirs.unfenced([folder]))
    return None


def _points_back(dot: Path, gitdir: Path, common: Path) -> bool:
    """Whether the git directory ``dot`` leads to says ``dot``'s folder is its checkout:
    a ``.git`` folder (not a link) is its own; a linked worktree's git directory
    (``<common>/worktrees/NAME``) names ``dot`` in its ``gitdir`` file, as ``git worktree
    add`` writes it; a submodule's (``.git/modules/NAME``, no ``commondir``) names
    ``dot``'s folder in its ``core.worktree``, as ``git submodule add`` writes it. Any
    other ``.git`` file or link is only a claim of whoever wrote it."""
    if not dot.is_symlink() and dot.is_dir():
        return gitdir == common  # a `.git` folder naming another repository's common dir is not
    here = os.path.realpath(dot)
    if gitdir != common:
        if gitdir.parent != common / "worktrees":
            return False
        return _named_path(gitdir / "gitdir", gitdir) == here
    found = entries(gitdir / "config") or []
    trees = [value for key, value in found if key == "core.worktree" and value]
    return bool(trees) and _resolved(trees[-1], gitdir) == os.path.dirname(here)


def _named_path(path: Path, base: Path) -> str | None:
    """The real path a one-line file names (a worktree's ``gitdir``), or None."""
    try:
        with open(path, encoding="utf-8", errors="replace") as fh:
            named = fh.read(4096).strip()
    except OSError:
        return None
    return _resolved(named, base) if named and "\n" not in named else None


def _resolved(named: str, base: Path) -> str | None:
    """``named`` (absolute, or relative to ``base``) followed to its real place."""
    try:
        return paths.real(named, base, expand_user=False)
    except paths.BadPath:
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


def outside_note(output: str, outside: tuple[OutsideGit, ...]) -> str:
    """Why a git command failed on a read-only file of a repository kept outside the
    workspace (``packed-refs``, another worktree, ``git gc``), which the sandbox did
    not open, or a repository a ``.git`` file names that does not name this checkout
    back (nothing there is open): said plainly, with what to do."""
    for repo in outside:
        refused = [line for line in output.splitlines() if "Read-only file system" in line]
        named = any(str(repo.common) in line or str(repo.gitdir) in line for line in refused)
        # git names no path when it cannot write an object ("unable to create temporary file")
        pathless = any("/" not in line for line in refused)
        if not named and not (repo.unfenced and pathless):
            continue
        if repo.unfenced:
            return (f"[agent-shell: this workspace lies in the git repository at {repo.common}, and "
                    f"{repo.unfenced.replace('the workspace ', '', 1)}: what that repository tracks "
                    "(~/.bashrc, ~/.ssh/config …) runs as the user, and a commit there is one "
                    "`git restore` away from being written back, so the sandbox keeps that repository "
                    "read-only and git could not change it. Tell the user; if they want it, they can "
                    "run this git command themselves.]")
        if not repo.ours:
            return (f"[agent-shell: this workspace's .git points git at the repository at {repo.common}, "
                    "outside the workspace, and that repository does not name this folder as one of its "
                    "worktrees or submodules: a .git file is anyone's to write (an unpacked archive can "
                    "carry one), so the sandbox keeps that repository read-only and git could not change "
                    "it. Tell the user; if it is theirs, they can run this git command themselves.]")
        kind = "a linked worktree" if repo.linked else "a folder"
        return (f"[this workspace is {kind} of the git repository at {repo.common}, outside the "
                "workspace: the sandbox lets git write this checkout's index and HEAD and the "
                "repository's objects, refs and logs, but nothing else there (packed refs, other "
                "worktrees, git gc). Ask the user to run this git command themselves.]")
    return ""


_REFUSED_FILE = re.compile(
    r"^error: unable to (?:unlink old|create file|create symlink|stat just-written file) "
    r"'?(?P<path>[^':\n]+)'?: (?:Read-only file system|Device or resource busy)", re.M)
MAX_NAMED = 5


def outside_files_note(output: str, outside: Sequence[OutsideGit], roots: Sequence[Path],
                       code: int | None) -> str:
    """What the result says when git (``git switch``, ``git checkout``, ``git stash``, a
    merge) could not write the checkout's files outside the workspace: it goes on and
    exits 0, the repository now on the new commit with those files as they were, so
    ``git status`` lists them as changed. Nothing was lost: going back undoes it."""
    for repo in outside:
        if repo.checkout is None:
            continue
        named: list[str] = []
        for match in _REFUSED_FILE.finditer(output):
            raw = match.group("path").strip()
            try:
                real = paths.resolve(raw, repo.checkout, expand_user=False)
            except paths.BadPath:
                continue
            inside = any(paths.within(real, r) for r in roots)
            if paths.within(real, repo.checkout) and not inside and raw not in named:
                named.append(raw)
        if named:
            more = f" and {len(named) - MAX_NAMED} more" if len(named) > MAX_NAMED else ""
            exited = ", although it exited 0" if code == 0 else ""
            return (f"[agent-shell: git could not write {', '.join(named[:MAX_NAMED])}{more} in "
                    f"{repo.checkout}, outside the workspace, which the sandbox keeps read-only{exited}. "
                    "Those files are as they were, so git now lists them as changed against what it "
                    "checked out: going back (git switch -, git checkout -) undoes it. Ask the user to "
                    "run this git command themselves.]")
    return ""


__all__ = ["SHARED_WRITES", "OutsideGit", "gitfile_target", "outside_files_note", "outside_git",
           "outside_note"]
