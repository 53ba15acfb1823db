"""Where agent-shell keeps its files: the one answer for every package.

The config dir holds ``config.toml``, the TUI's ``tui.json``, the trusted
workspaces, the user's own middleware and instructions; the data dir holds the
sessions, the prompt history and the long-term memory. Both are platformdirs'
user dirs for ``agent-shell`` unless ``AGENT_SHELL_CONFIG_DIR`` /
``AGENT_SHELL_DATA_DIR`` point elsewhere (tests, portable installs), and every
reader asks here, so one variable moves everything of its kind (a test that
sets them writes nothing into the real home).

This sits in the core, the bottom layer, so the middleware (the memory store)
can ask it as well as the shell's packages; it imports nothing of the project.
"""

from __future__ import annotations

import os
from pathlib import Path

APP_NAME = "agent-shell"
CONFIG_DIR_ENV = "AGENT_SHELL_CONFIG_DIR"
DATA_DIR_ENV = "AGENT_SHELL_DATA_DIR"


def config_dir() -> Path:
    """The user config dir (not created here: reading a missing one is fine)."""
    override = os.environ.get(CONFIG_DIR_ENV)
    if override:
        return Path(override).expanduser()
    import platformdirs

    return Path(platformdirs.user_config_dir(APP_NAME, appauthor=False))


def data_dir(*, create: bool = False) -> Path:
    """The user data dir; ``create``: made (with its parents) if missing."""
    override = os.environ.get(DATA_DIR_ENV)
    if override:
        path = Path(override).expanduser()
    else:
        import platformdirs

        path = Path(platformdirs.user_data_dir(APP_NAME, appauthor=False))
    if create:
        path.mkdir(parents=True, exist_ok=True)
    return path
