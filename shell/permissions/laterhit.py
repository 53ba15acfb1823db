"""Whether a file edit would touch something that runs later as the user: by name
(:func:`.laternames.why`: ``.git``, ``.envrc``, ``.vscode`` …, at any depth), because
git runs it from outside its git directory (:mod:`.gitruns`: a ``core.hooksPath``
folder, an included config, a hook link's target, also a nested repository's), or
because an ``.envrc`` pulls it in (:mod:`.envrcsources`: ``source_env``, ``dotenv``,
``watch_file`` …), or because a ``.mcp.json`` server runs it (:mod:`.mcpsources`:
``python3 tools/server.py``), or because a symlink in home leads to it (:mod:`.homelinks`:
``~/.bashrc`` -> ``dotfiles/bashrc``), or because an instruction file imports it
(:mod:`.instructionsources`: ``@docs/conventions.md`` in AGENTS.md), or because a
virtualenv's programs import it (:mod:`.venvpackages`: ``site-packages/pip/``), or because it
would be a new module named like a standard or installed one (:mod:`.shadowmodules`: a new
``pip.py`` that ``python -m pip`` imports; an existing one is the project's). The file tools'
policy asks before such an edit in every mode but bypass; the sandbox guards the same
set (:mod:`.runslater`)."""

from __future__ import annotations

import posixpath
from collections.abc import Collection, Sequence
from pathlib import Path

from .editorruns import editor_runs
from .envrcsources import envrc_runs, envrcs_above
from .gitruns import git_runs
from .homelinks import link_why
from .instructionsources import instruction_imports
from .laternames import Reason, why_both
from .mcpsources import mcp_runs, runs_why
from .runslater import git_dirs_above
from .shadowmodules import new_module_why
from .venvpackages import package_why


def runs_later(target: str, roots: Collection[str], found: Sequence[Path] = ()) -> tuple[Path, Reason] | None:
    """The part of ``target`` (a real path) that runs later and why (in both forms), or None. The
    workspace's own name (or its parents') is not the edit's. ``found`` are the
    runs-later names the sandbox's walk saw at any depth (nested ``.git`` and
    ``.envrc``): what they name counts wherever it lies in the workspace."""
    part = target
    while part not in roots:
        named = why_both(part)
        if named is not None:
            return Path(part), named
        parent = posixpath.dirname(part)
        if parent == part:
            break
        part = parent
    real = Path(target)
    tops = [Path(r) for r in roots]
    gitdirs = git_dirs_above(real)
    envrcs = envrcs_above(real.parent)
    for place in [*tops, *(p.parent for p in found if p.name.casefold() == ".git")]:  # nested repositories
        gitdirs += [g for g in git_dirs_above(place) if g not in gitdirs]
    for place in [*tops, *(p.parent for p in found if p.name.casefold() == ".envrc")]:
        envrcs += [e for e in envrcs_above(place, 1 if place not in tops else 128) if e not in envrcs]
    said = (_read_alike(git_runs(gitdirs, tops).why(real))
            or _read_alike(envrc_runs(envrcs, tops, found).why(real))
            or runs_why(mcp_runs(tops), real, tops) or editor_runs(tops).get(real) or link_why(real, tops)
            or instruction_imports(tops, found).get(real) or _read_alike(package_why(real))
            or new_module_why(real, tops))
    return (real, said) if said is not None else None


def _read_alike(said: str) -> Reason | None:
    """A reason written to read the same on its own and after "…, which" (git's, direnv's,
    a virtualenv's: "git runs as your hooks …", "is a package …"), or None for ""."""
    return Reason(said) if said else None


__all__ = ["runs_later"]
