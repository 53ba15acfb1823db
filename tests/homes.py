"""Where tests make their homes and workspaces that must be outside /tmp (the sandbox's
/tmp is its own) and inside the home directory, as users have them.

Not right in the real home: the sandbox's search for secret-looking files in home
(:func:`shell.permissions.homesecrets.found_in_config`) looks through its dot folders,
those of the password database's home too when ``HOME`` points elsewhere. Another test's
home there (another test run on the machine, planted keys and all) became something to
hide, and when that test removed it before bubblewrap started, the command failed (a
retry covered it). The search does not look in ``~/.cache`` (caches), so homes made
there are nobody else's hide targets, and still inside the home directory."""

from __future__ import annotations

import tempfile
from pathlib import Path


def homes_root() -> Path:
    """``~/.cache/agent-shell-tests``, made if missing."""
    root = Path.home() / ".cache" / "agent-shell-tests"
    root.mkdir(parents=True, exist_ok=True)
    return root


def made_home(prefix: str) -> Path:
    """A new empty folder for one test in :func:`homes_root` (the test removes it)."""
    return Path(tempfile.mkdtemp(prefix=prefix, dir=homes_root()))
