"""What in a new git directory runs nothing: a new repository a sandboxed command made
(``git init``, a clone) keeps a config holding only what git itself writes (any other
key can run a command as the user: ``core.fsmonitor``, ``core.pager``, ``alias.*``,
``filter.*``, ``include.path`` …), git's ``*.sample`` hooks and its ``info/exclude``
of comments; the rest is quarantined (:mod:`.runslater`)."""

from __future__ import annotations

import os
import re
from pathlib import Path

SAFE_GIT_KEYS = (
    "core.repositoryformatversion", "core.filemode", "core.bare", "core.logallrefupdates",
    "core.ignorecase", "core.precomposeunicode", "core.symlinks", "core.autocrlf", "core.eol",
    "core.worktree", "core.safecrlf", "core.sparsecheckout", "core.untrackedcache",
    "remote.*.url", "remote.*.fetch", "remote.*.pushurl", "remote.*.tagopt", "remote.*.mirror",
    "remote.*.prune", "remote.*.promisor", "remote.*.partialclonefilter",
    "branch.*.remote", "branch.*.merge", "branch.*.rebase", "branch.*.pushremote",
    "submodule.*.url", "submodule.*.active", "submodule.active", "submodule.recurse",
    "core.sparsecheckoutcone", "user.name", "user.email", "init.defaultbranch",
    "extensions.objectformat", "extensions.worktreeconfig", "extensions.refstorage",
    "extensions.partialclone", "extensions.preciousobjects", "lfs.repositoryformatversion",
    "pull.rebase", "pull.ff", "fetch.prune", "gc.auto", "index.version", "feature.manyfiles",
)  # fmt: skip
"""Keys of a new git config that run nothing (what ``git init``, ``git clone`` and
``git worktree add`` write). Any other key (``core.fsmonitor``, ``core.hooksPath``,
``include.path``, ``alias.*``, ``filter.*``, ``submodule.*.update`` …) quarantines it."""


_SECTION = re.compile(r'^\[\s*([A-Za-z0-9.-]+)(?:\s+"((?:[^"\\]|\\.)*)")?\s*\]\s*(.*)$')
_KEY = re.compile(r"^([A-Za-z][A-Za-z0-9-]*)\s*(?:=|$)")


def unsafe_git_keys(config: Path) -> list[str]:
    """The keys of a git config file outside :data:`SAFE_GIT_KEYS`, as ``section.key``
    (``section.*.key`` with a subsection); a line it cannot read counts as unsafe."""
    try:
        text = config.read_text(errors="replace")
    except OSError:
        return ["(unreadable)"]
    if config.is_symlink() or not config.is_file():
        return ["(not a file)"]
    bad: list[str] = []
    section = ""
    continued = False
    for raw in text.splitlines():
        line = raw.strip()
        if continued:
            continued = line.endswith("\\")
            continue
        if not line or line[0] in "#;":
            continue
        m = _SECTION.match(line)
        if m:
            name, sub, rest = m.group(1).lower(), m.group(2), m.group(3).strip()
            section = f"{name.split('.', 1)[0]}.*" if sub is not None or "." in name else name
            if rest and rest[0] not in "#;":
                bad.append(f"{section}.{rest.split('=')[0].strip()}")
            continue
        k = _KEY.match(line)
        if not k or not section:
            bad.append(line[:40])
            continue
        key = f"{section}.{k.group(1).lower()}"
        if key not in SAFE_GIT_KEYS:
            bad.append(key)
        continued = line.endswith("\\")
    return list(dict.fromkeys(bad))


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
