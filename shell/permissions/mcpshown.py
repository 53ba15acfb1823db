"""A workspace's ``.mcp.json`` as sandboxed commands see it: without its servers' keys.

``read_file`` and ``grep`` redact the keys of a ``.mcp.json`` (:mod:`.configcreds`),
and ``cat .mcp.json`` in the sandbox (unasked in ``auto``) must not print them
either (finding Q4). So, like a git config with a token (:mod:`.gitcreds`), the
file is shown through a copy: one without the keys when git does not track it (and
git is told to leave it untracked, so a ``git add -A`` does not add the copy,
:mod:`.gitexclude`), or as git has it staged when git does (as a hidden secret
file is, :mod:`.gitstaged`: a commit then records no change the user did not
make; what git holds is readable through git anyway).
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path

from .configcreds import MCP_FOLDERS, scrubber
from .gitcreds import ScrubbedConfigs
from .gitstaged import StagedCopies
from .mcpsources import MCP_FILE

NAMES = (MCP_FILE, *(f"{folder}/mcp.json" for folder in MCP_FOLDERS))
"""Where a root's MCP servers' files are: its ``.mcp.json``, an editor's ``.vscode/mcp.json``."""


def mcp_binds(roots: Sequence[Path], hidden: Sequence[Path], staged: StagedCopies,
              copies: ScrubbedConfigs) -> tuple[list[str], list[Path]]:
    """bwrap arguments showing each root's MCP servers' files (:data:`NAMES`) that hold
    keys without them, and those git does not track (for git's exclude view)."""
    args: list[str] = []
    untracked: list[Path] = []
    for path in (root / name for root in roots for name in NAMES):
        if path in hidden or path.is_symlink() or not path.is_file():
            continue
        how = scrubber(path)
        if how is None:
            continue
        shown = staged.copies([path]).get(path)
        if shown is None:
            shown = copies.copy_for(path, how.clean)
            untracked += [path] if shown is not None else []
        if shown is not None and os.path.exists(shown):
            args += ["--ro-bind", shown, str(path)]
    return args, untracked


__all__ = ["mcp_binds"]
