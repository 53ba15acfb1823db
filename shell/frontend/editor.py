"""Text edited in the user's own editor (``$VISUAL`` / ``$EDITOR``), for every front end:
a call's arguments in an approval (line mode, headless), the prompt (TUI Ctrl+G)."""

from __future__ import annotations

import os
import subprocess
import tempfile
from typing import Any

from shell.core.programs import host_environment, resolve


def edit_in_editor(
    text: str, command: list[str], streams: dict[str, Any] | None = None, *, suffix: str = ".json"
) -> str:
    """Open ``command`` on a temporary file holding ``text``; return the saved text.

    ``suffix`` tells the editor what it edits (``.json`` arguments, ``.md`` a prompt).
    ``streams``: the editor's ``stdin``/``stdout``/``stderr`` (the terminal when ours
    are redirected); by default it inherits ours. The file is private (0600) and
    always removed; bytes that are not UTF-8 are replaced rather than lost to an error."""
    fd, path = tempfile.mkstemp(suffix=suffix, prefix="agent-shell-edit-")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
        subprocess.run([*resolve(command), path], check=False, env=host_environment(), **(streams or {}))
        with open(path, encoding="utf-8", errors="replace") as f:
            return f.read()
    finally:
        os.unlink(path)
