"""The scripts a git config names as commands: ``core.fsmonitor = scripts/watch``,
``alias.fmt = !./tools/fmt.sh``, ``filter.x.clean = tools/clean``. git runs them as
the user (``git status``, the alias, a checkout), so a workspace file named there is
as much "runs later" as a hook (:mod:`.gitruns` guards it)."""

from __future__ import annotations

import fnmatch
import shlex
from pathlib import Path

from . import paths
from .gitconfigfile import entries

COMMAND_KEYS = (
    "core.fsmonitor", "core.pager", "core.editor", "core.sshcommand", "core.askpass", "sequence.editor",
    "diff.external", "diff.*.textconv", "diff.*.command", "difftool.*.cmd", "mergetool.*.cmd",
    "filter.*.clean", "filter.*.smudge", "filter.*.process", "merge.*.driver", "alias.*", "pager.*",
    "gpg.program", "gpg.*.program", "credential.helper", "credential.*.helper", "interactive.difffilter",
    "uploadpack.packobjectshook", "protocol.*.command", "remote.*.uploadpack", "remote.*.receivepack",
    "remote.*.vcs", "core.gitproxy", "uploadarchive.*",
)  # fmt: skip
"""Keys whose value git runs as a command (``alias.*`` only with a leading ``!``;
``remote.*.vcs`` runs ``git-remote-<vcs>``). Read as git reads them (:mod:`.gitconfigfile`)."""


def command_words(value: str) -> list[str]:
    """The words of a command a config names, read loosely: an unbalanced quote splits
    on spaces instead (a hostile config must not hide a path by breaking its quoting),
    and the shell's operators around a word are dropped."""
    try:
        words = shlex.split(value, comments=True)
    except ValueError:
        words = value.split()
    return [w.strip(";&|()<>") for w in words]


def command_paths(config: Path, base: Path) -> list[Path]:
    """The paths (resolved against ``base``, the working tree git runs them in) of the
    words that look like files (``./x``, ``scripts/x``, an absolute path) in the
    commands ``config`` names."""
    out: list[Path] = []
    for key, value in entries(config) or []:
        if value is None:
            continue
        if not any(fnmatch.fnmatchcase(key, pattern) for pattern in COMMAND_KEYS):
            continue
        if key.startswith("alias.") and not value.lstrip('"').startswith("!"):
            continue  # a git subcommand, not a program
        for word in command_words(value.strip('"').lstrip("!")):
            if "/" not in word or "://" in word or word.startswith("-"):
                continue
            try:
                out.append(paths.resolve(word, base))
            except paths.BadPath:
                continue
    return out


__all__ = ["COMMAND_KEYS", "command_paths", "command_words"]
