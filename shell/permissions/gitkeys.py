"""What in a new git directory runs nothing: a new repository a sandboxed command made
(``git init``, a clone) keeps a config holding only what git itself writes (any other
key can run a command as the user: ``core.fsmonitor``, ``core.pager``, ``alias.*``,
``filter.*``, ``include.path`` …), git's ``*.sample`` hooks and its ``info/exclude``
of comments; the rest is quarantined (:mod:`.runslater`)."""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path

from . import paths
from .gitconfigfile import entries
from .gitoutside import gitfile_target

SAFE_GIT_KEYS = (
    "core.repositoryformatversion", "core.filemode", "core.bare", "core.logallrefupdates",
    "core.ignorecase", "core.precomposeunicode", "core.symlinks", "core.autocrlf", "core.eol",
    "core.safecrlf", "core.sparsecheckout", "core.untrackedcache",
    "remote.*.url", "remote.*.fetch", "remote.*.pushurl", "remote.*.tagopt", "remote.*.mirror",
    "remote.*.prune", "remote.*.partialclonefilter",
    "branch.*.remote", "branch.*.merge", "branch.*.rebase", "branch.*.pushremote",
    "submodule.*.url", "submodule.*.active", "submodule.active", "submodule.recurse",
    "core.sparsecheckoutcone", "user.name", "user.email", "init.defaultbranch",
    "extensions.objectformat", "extensions.worktreeconfig", "extensions.refstorage",
    "extensions.preciousobjects", "lfs.repositoryformatversion",
    "pull.rebase", "pull.ff", "fetch.prune", "gc.auto", "index.version", "feature.manyfiles",
)  # fmt: skip
"""Keys of a new git config that run nothing (what ``git init``, ``git clone`` and
``git worktree add`` write). Any other key (``core.fsmonitor``, ``core.hooksPath``,
``include.path``, ``alias.*``, ``filter.*``, ``submodule.*.update`` …) quarantines it.
Not here although ``git clone`` writes them: ``extensions.partialClone`` and
``remote.*.promisor`` (a partial clone: git then fetches a missing object from that
remote's URL, running its ``uploadpack``, whenever anything reads it, agent-shell's own
git included) and ``core.worktree`` (points git at another folder's files), except the
one ``git submodule add`` and ``update`` write (:func:`own_work_tree`)."""


def unsafe_git_keys(config: Path, roots: Sequence[Path] = ()) -> list[str]:
    """The keys of a git config file outside :data:`SAFE_GIT_KEYS`, as ``section.key``
    (``section.*.key`` with a subsection), read as git reads them
    (:mod:`.gitconfigfile`); a file git cannot read counts as unsafe. A submodule's
    ``core.worktree`` is safe when it is its own work tree in ``roots``."""
    if config.is_symlink() or not config.is_file():
        return ["(not a file)"]
    found = entries(config)
    if found is None:
        return ["(unreadable)"]
    gitdir = config.parent
    return list(dict.fromkeys(
        key for key, value in found
        if key not in SAFE_GIT_KEYS and not (key == "core.worktree" and own_work_tree(gitdir, value, roots))
    ))


def own_work_tree(gitdir: Path, value: str | None, roots: Sequence[Path]) -> bool:
    """Whether ``core.worktree = value`` in ``gitdir`` is what git writes for a submodule
    (``.git/modules/sub``: ``../../../sub``): a relative path to a folder in one of
    ``roots`` (followed to its real place) whose ``.git`` file points back at ``gitdir``.
    Then git works on the submodule's own files, where the sandbox lets commands write
    anyway; any other value points git at another folder's files (a project outside,
    the home folder) and is not."""
    if not value or os.path.isabs(value) or value.startswith("~") or "\n" in value:
        return False
    tree = os.path.realpath(gitdir / value)
    if not any(paths.within(tree, str(root)) for root in roots):
        return False
    dotgit = Path(tree) / ".git"
    if dotgit.is_symlink() or not dotgit.is_file():
        return False
    target = gitfile_target(dotgit)
    return target is not None and os.path.realpath(target) == os.path.realpath(gitdir)


def info_hides(info: Path) -> list[str]:
    """What a new ``info`` folder holds beyond git's own ``exclude`` of comments."""
    if not info.is_dir() or info.is_symlink():
        return [info.name]
    out = []
    for entry in sorted(os.listdir(info)):
        if entry == "exclude":
            try:
                text = (info / entry).read_text(errors="replace")
            except OSError:
                text = "?"
            if not any(line.strip() and not line.lstrip().startswith("#") for line in text.splitlines()):
                continue
        out.append(f"info/{entry}")
    return out


def live_hooks(hooks: Path) -> list[str]:
    """The files in a hooks folder that git would run (not ``*.sample``)."""
    if not hooks.is_dir() or hooks.is_symlink():
        return [hooks.name]
    out = []
    for base, dirs, files in os.walk(hooks):
        for name in [*files, *dirs]:
            if not name.endswith(".sample"):
                out.append(os.path.relpath(os.path.join(base, name), hooks))
        dirs[:] = []  # git runs only hooks/NAME
    return out


__all__ = ["SAFE_GIT_KEYS", "info_hides", "live_hooks", "unsafe_git_keys"]
