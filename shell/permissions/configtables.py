"""Edits of shared config files that change the keys naming code a linter runs.

``pyproject.toml``, ``setup.cfg``, ``tox.ini``, ``package.json`` and the JSON and YAML
configs of ESLint, Prettier, Babel and Stylelint are edited all the time (a version, a
dependency, a rule), so asking before every edit would teach the user to say yes. But
some of their keys name code that runs as the user at every lint, format or build, an
editor's check-on-save included (:mod:`.codekeys`: pylint's ``init-hook``, mypy's
``plugins``, ESLint's ``plugins`` and ``parser`` …): the same code as a ``.pylintrc``,
``mypy.ini`` or ``eslint.config.js``, which always ask (:mod:`.laternames`, finding L5).
So a built-in file edit of one of these files asks only when those keys differ before
and after it: the file is parsed as it is and as the edit would leave it. A Python tool's
file that does not parse either way asks (what a linter would make of it cannot be
told), and so does one too big to read. A sandboxed command's change is put back after
it (:mod:`.laterconfigs`).
"""

from __future__ import annotations

import os
import stat
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from .codekeys import code_keys, config_text, keyed_name, reads, why
from .hookscripts import hooked_keys

MAX_BYTES = 1 << 20
"""Bytes of a config file read to compare (larger: asks)."""


def config_edit_why(path: str, tool: str, args: Mapping[str, Any]) -> str:
    """Why the built-in edit ``tool`` with ``args`` of the real path ``path`` changes
    what a linter runs, or "" (see the module's docstring)."""
    name = keyed_name(path)
    if not reads(name) or tool not in ("write_file", "edit_file"):
        return ""
    reason = f"{why(name)}, and this edit changes them"
    try:
        info = os.stat(path)
        if not stat.S_ISREG(info.st_mode) or info.st_size > MAX_BYTES:
            return reason  # a FIFO would hang the read; a huge file is not worth parsing
        with open(path, "rb") as f:
            before = config_text(f.read(MAX_BYTES))
    except FileNotFoundError:
        before = ""
    except OSError:
        return reason
    after = _after(before, tool, args)
    if after is None:
        return ""  # the edit cannot apply: the tool says so, nothing is written
    hooked = hooked_keys(Path(path))
    old, new = code_keys(name, before, hooked), code_keys(name, after, hooked)
    if new is None:
        return reason
    if old is None:
        return reason if new else ""
    return reason if old != new else ""


def _after(text: str, tool: str, args: Mapping[str, Any]) -> str | None:
    if tool == "write_file":
        content = args.get("content")
        return content if isinstance(content, str) else None
    old, new = args.get("old_string"), args.get("new_string")
    if not isinstance(old, str) or not isinstance(new, str) or not old or old not in text:
        return None
    return text.replace(old, new, -1 if args.get("replace_all") is True else 1)


__all__ = ["MAX_BYTES", "config_edit_why"]
