"""What git runs that lies outside a git directory, worked out once for both guards.

A git directory's ``hooks`` and ``config`` are guarded by name (:mod:`.laternames`),
but git reaches further, sideways:

- ``core.hooksPath`` names a folder git runs as the hooks (``.githooks``, husky's
  ``.husky/_``). It may come from the repository's config, from a config that one
  includes, or from the user's global config, where a relative path is resolved in
  each repository: every one of them counts.
- ``include.path`` / ``includeIf.*.path`` pull another file into the config, read as if
  it were there (``core.fsmonitor`` in it runs at the next ``git status``); a relative
  path is beside the including file. One that does not exist yet counts too: what a
  command creates there is quarantined.
- a hook that is a symlink (``.git/hooks/pre-commit -> ../../scripts/pre-commit``) runs
  its target; so does a hooks folder that is a link.
- a script a config names as a command (``core.fsmonitor = scripts/watch``, an alias
  ``!./tools/x.sh``, a filter) runs at the next ``git status``, alias or checkout
  (:mod:`.gitcommands`).
- a script a commit-hook framework's config names (pre-commit's ``entry:``, a husky
  hook's line, lefthook's ``run:``, lint-staged's commands …) or a plain hook file's own
  lines call (``./scripts/check.sh``) runs at the next commit (:mod:`.hookscripts`).

:func:`git_runs` returns those paths inside the workspace for some git directories,
cached by the configs' and hooks folders' times, so the file tools' policy (an edit asks)
and the sandbox's guard (:mod:`.runslater`: bound read-only, new ones quarantined)
guard the same set.
"""

from __future__ import annotations

import os
import re
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from . import paths
from .gitcommands import command_paths
from .gitconfigfile import entries
from .gitcreds import MAX_INCLUDE_DEPTH, global_configs, include_paths
from .hookscripts import hook_scripts

HOOKS_PATH_WHY = "git runs as your hooks (a core.hooksPath folder) at your next commit"
INCLUDED_WHY = ("git reads as part of your git config (a config includes it): a core.fsmonitor or alias "
                "there runs as you at your next git status")
HOOK_LINK_WHY = "git runs as your hook at your next commit (a hook in a hooks folder links to it)"
COMMAND_WHY = "git runs as you: a command your git config names (core.fsmonitor, an alias, a filter)"
FRAMEWORK_WHY = ("runs as you at your next git commit: a git hook or a commit-hook framework's config "
                 "names it (pre-commit's entry, a husky hook, lefthook's run, lint-staged …)")
MAX_HOOK_ENTRIES = 256
"""Entries of one hooks folder looked at for links."""
MAX_CONFIGS = 64

_HOOKS_PATH = re.compile(r"^\s*hookspath\s*=\s*(.*?)\s*$", re.I | re.M)

Stamp = tuple[str, int, int]


@dataclass(frozen=True, slots=True)
class GitRuns:
    """Paths inside the workspace that git runs (or reads as its config), by kind."""

    hook_dirs: tuple[Path, ...] = ()
    """Folders git runs as the hooks: ``core.hooksPath`` ones, and where a linked
    hooks folder leads."""
    configs: tuple[Path, ...] = ()
    """Files a config includes (existing or not)."""
    hook_links: tuple[Path, ...] = ()
    """Where the links in a hooks folder lead."""
    commands: tuple[Path, ...] = ()
    """Files a config names as a command (:mod:`.gitcommands`)."""
    hook_scripts: tuple[Path, ...] = ()
    """Files a commit-hook framework's config names (:mod:`.hookscripts`)."""
    stamps: tuple[Stamp, ...] = ()
    """What this was worked out from, and when each last changed (the cache's key)."""

    def why(self, path: str | os.PathLike[str]) -> str:
        """Why git runs ``path`` (a real path), or ""."""
        text = os.fspath(path)
        if any(paths.within(text, d) for d in self.hook_dirs):
            return HOOKS_PATH_WHY
        if Path(text) in self.configs:
            return INCLUDED_WHY
        if Path(text) in self.hook_links:
            return HOOK_LINK_WHY
        if Path(text) in self.commands:
            return COMMAND_WHY
        if Path(text) in self.hook_scripts or any(paths.within(text, s) for s in self.hook_scripts):
            return FRAMEWORK_WHY  # a folder a Makefile's include globs: what is in it (finding S12)
        return ""


def _stamp(path: Path) -> Stamp:
    try:
        info = os.lstat(path)
    except OSError:
        return (str(path), 0, 0)
    return (str(path), info.st_mtime_ns, info.st_ctime_ns)


def _hooks_path(config: Path, base: Path) -> Path | None:
    """``core.hooksPath`` of a config, resolved against ``base`` (the working tree, as
    git resolves it for hooks run there); None when it sets none."""
    listed = entries(config)  # as git reads it: a `; comment` or quotes are no part of the path
    if listed is not None:
        values = [v for k, v in listed if k == "core.hookspath" and v is not None]
        value = values[-1].strip() if values else ""
    else:  # git cannot read it (then git runs nothing from it either): the old guess, to be safe
        try:
            with open(config, encoding="utf-8", errors="replace") as fh:
                text = fh.read(1 << 20)
        except OSError:
            return None
        found = _HOOKS_PATH.findall(text)
        value = found[-1].strip().strip('"') if found else ""
    if not value:
        return None
    try:
        return paths.resolve(value, base)  # git expands ~ in core.hooksPath
    except paths.BadPath:
        return None


def _inside(path: Path, roots: Sequence[Path]) -> bool:
    return any(paths.within(path, root) for root in roots)


def _configs(gitdir: Path) -> tuple[list[Path], list[Path]]:
    """The configs git reads for ``gitdir`` (its own, the user's, and what they
    include, ``MAX_INCLUDE_DEPTH`` deep), and the included ones among them (real paths,
    existing or not; and as written, when a symlink lies on the way: a command that
    replaces ``team.cfg -> ~/dotfiles/team.cfg``, or a linked folder, with a file of its
    own plants a config git reads, though the real path is outside the workspace)."""
    level = [gitdir / "config", gitdir / "config.worktree", *global_configs()]
    seen = [Path(os.path.realpath(p)) for p in level]
    included: list[Path] = []
    for _ in range(MAX_INCLUDE_DEPTH):
        found: list[Path] = []
        for config in level:
            for target in include_paths(config):
                real = Path(os.path.realpath(target))
                written = Path(os.path.normpath(os.path.abspath(target)))
                if written != real and written not in included:  # a link in the workspace (to dotfiles,
                    included.append(written)  # or dangling): replacing it plants a config git reads
                if real not in seen and len(seen) < MAX_CONFIGS:
                    seen.append(real)
                    included.append(real)
                    found.append(real)
        level = found
        if not level:
            break
    return seen, included


def _links(folder: Path, roots: Sequence[Path]) -> list[Path]:
    """Where the symlinks in a hooks folder lead, inside ``roots``."""
    out: list[Path] = []
    try:
        entries = list(os.scandir(folder))[:MAX_HOOK_ENTRIES]
    except OSError:
        return out
    for entry in entries:
        if entry.is_symlink() and not entry.name.endswith(".sample"):
            real = Path(os.path.realpath(entry.path))
            if _inside(real, roots):
                out.append(real)
    return out


def _work_out(gitdirs: Sequence[Path], roots: Sequence[Path]) -> GitRuns:
    hook_dirs: list[Path] = []
    configs: list[Path] = []
    links: list[Path] = []
    commands: list[Path] = []
    scripts: list[Path] = []
    looked: list[Path] = []
    for gitdir in gitdirs:
        base = gitdir.parent if gitdir.name == ".git" else gitdir
        seen, included = _configs(gitdir)
        looked += seen
        configs += [p for p in included if _inside(p, roots)]
        folders = [gitdir / "hooks"]
        for config in seen:
            commands += [p for p in command_paths(config, base) if _inside(p, roots)]
            hooks = _hooks_path(config, base)
            if hooks is not None:
                folders.append(hooks)
        named, read = hook_scripts(base, folders)  # the frameworks' configs, and the hooks' own lines
        scripts += [p for p in named if _inside(p, roots)]
        looked += [*read, base, base / ".husky"]  # a new config changes its folder's times
        for folder in folders:
            real = Path(os.path.realpath(folder))
            looked += [folder, real]  # a new or replaced link changes its folder's mtime
            if (folder != gitdir / "hooks" or real != folder) and _inside(real, roots):
                hook_dirs.append(real)
            links += _links(real, roots)
    stamps = tuple(_stamp(p) for p in dict.fromkeys(looked))
    return GitRuns(tuple(dict.fromkeys(hook_dirs)), tuple(dict.fromkeys(configs)),
                   tuple(dict.fromkeys(links)), tuple(dict.fromkeys(commands)),
                   tuple(dict.fromkeys(scripts)), stamps)


_cache: dict[tuple[tuple[Path, ...], tuple[Path, ...], tuple[Path, ...]], GitRuns] = {}
_lock = threading.Lock()


def git_runs(gitdirs: Sequence[Path], roots: Sequence[Path]) -> GitRuns:
    """What git runs for ``gitdirs`` that lies inside ``roots`` (real paths), reused
    while none of the files it was worked out from changed."""
    key = (tuple(gitdirs), tuple(roots), tuple(global_configs()))
    with _lock:
        cached = _cache.get(key)
    if cached is not None and all(_stamp(Path(p)) == (p, m, c) for p, m, c in cached.stamps):
        return cached
    runs = _work_out(gitdirs, roots)
    with _lock:
        if len(_cache) > 256:
            _cache.clear()
        _cache[key] = runs
    return runs


__all__ = ["GitRuns", "git_runs"]
