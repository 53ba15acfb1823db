"""Whether a file edit would touch something that runs later as the user: by name
(:func:`.laternames.why`: ``.git``, ``.envrc``, ``.vscode`` …, at any depth) or
because git runs it from outside its git directory (:mod:`.gitruns`: a
``core.hooksPath`` folder, an included config, a hook link's target). The file tools'
policy asks before such an edit in every mode but bypass; the sandbox guards the same
set (:mod:`.runslater`)."""

from __future__ import annotations

import posixpath
from collections.abc import Collection
from pathlib import Path

from .gitruns import git_runs
from .laternames import why
from .runslater import git_dirs_above


def runs_later(target: str, roots: Collection[str]) -> tuple[Path, str] | None:
    """The part of ``target`` (a real path) that runs later and why, or None. The
    workspace's own name (or its parents') is not the edit's."""
    part = target
    while part not in roots:
        reason = why(part)
        if reason:
            return Path(part), reason
        parent = posixpath.dirname(part)
        if parent == part:
            break
        part = parent
    real = Path(target)
    gitdirs = git_dirs_above(real)
    for root in roots:
        gitdirs += [g for g in git_dirs_above(Path(root)) if g not in gitdirs]
    reason = git_runs(gitdirs, [Path(r) for r in roots]).why(real)
    return (real, reason) if reason else None


__all__ = ["runs_later"]
