"""The scripts a git config names as commands: ``core.fsmonitor = scripts/watch``,
``alias.fmt = !./tools/fmt.sh``, ``filter.x.clean = tools/clean``. git runs them as
the user (``git status``, the alias, a checkout), so a workspace file named there is
as much "runs later" as a hook (:mod:`.gitruns` guards it)."""

from __future__ import annotations

import fnmatch
import os
import re
import shlex
from pathlib import Path

from . import paths

COMMAND_KEYS = (
    "core.fsmonitor", "core.pager", "core.editor", "core.sshcommand", "core.askpass", "sequence.editor",
    "diff.external", "diff.*.textconv", "diff.*.command", "difftool.*.cmd", "mergetool.*.cmd",
    "filter.*.clean", "filter.*.smudge", "filter.*.process", "merge.*.driver", "alias.*", "pager.*",
    "gpg.program", "gpg.*.program", "credential.helper", "credential.*.helper", "interactive.difffilter",
    "uploadpack.packobjectshook", "protocol.*.command",
)  # fmt: skip
"""Keys whose value git runs as a command (``alias.*`` only with a leading ``!``)."""

MAX_CONFIG = 1 << 20
_SECTION = re.compile(r'^\[\s*([A-Za-z0-9.-]+)(?:\s+"((?:[^"\\]|\\.)*)")?\s*\]\s*(.*)$')
_ENTRY = re.compile(r"^([A-Za-z][A-Za-z0-9-]*)\s*=\s*(.*)$")


def _entries(config: Path) -> list[tuple[str, str]]:
    """``(section[.*].key, value)`` of a config file, lower-case names."""
    try:
        if os.path.getsize(config) > MAX_CONFIG:
            return []
        text = config.read_text(errors="replace")
    except OSError:
        return []
    out: list[tuple[str, str]] = []
    section = ""
    for raw in text.splitlines():
        line = raw.strip()
        m = _SECTION.match(line)
        if m:
            name, sub = m.group(1).lower(), m.group(2)
            section = f"{name.split('.', 1)[0]}.*" if sub is not None or "." in name else name
            line = m.group(3).strip()
        e = _ENTRY.match(line) if section else None
        if e:
            out.append((f"{section}.{e.group(1).lower()}", e.group(2).strip()))
    return out


def command_paths(config: Path, base: Path) -> list[Path]:
    """The paths (resolved against ``base``, the working tree git runs them in) of the
    words that look like files (``./x``, ``scripts/x``, an absolute path) in the
    commands ``config`` names."""
    out: list[Path] = []
    for key, value in _entries(config):
        if not any(fnmatch.fnmatchcase(key, pattern) for pattern in COMMAND_KEYS):
            continue
        if key.startswith("alias.") and not value.lstrip('"').startswith("!"):
            continue  # a git subcommand, not a program
        value = value.strip('"').lstrip("!")
        try:
            words = shlex.split(value, comments=True)
        except ValueError:
            words = value.split()
        for word in (w.strip(";&|()<>") for w in words):
            if "/" not in word or "://" in word or word.startswith("-"):
                continue
            try:
                out.append(paths.resolve(word, base))
            except paths.BadPath:
                continue
    return out


__all__ = ["COMMAND_KEYS", "command_paths"]
