"""The name a dotfile manager's source file or a file manager's duplicate stands for.

:func:`shell.core.secrets.is_secret_file` judges a file by its name; these names hid the
name it stands for (tester round 11, Q12):

- chezmoi's source state (``~/.local/share/chezmoi``, where ``chezmoi cd`` puts the user:
  a natural workspace) spells ``~/.ssh/id_ed25519`` as ``private_dot_ssh/private_id_ed25519``
  and ``.env`` as ``dot_env`` or ``dot_env.tmpl``: plain text unless ``encrypted_``;
- yadm's alternates add ``##`` and a condition: ``.env##os.Linux``, ``.env##default``;
- file managers' duplicates: ``.env copy`` (macOS Finder), ``.env (copy)`` and
  ``.env (another copy)`` (GNOME Files), ``.env (1)`` (browsers' downloads), ``.env - Copy``
  and ``Copy of .env`` (Windows), and with an extension ``credentials copy.json``.

They hold what the original holds, so the name test is made on the original too.
"""

from __future__ import annotations

import re

CHEZMOI_PREFIXES = (
    "encrypted_", "private_", "readonly_", "empty_", "executable_", "create_", "modify_", "remove_", "once_",
    "onchange_", "before_", "after_", "run_", "symlink_", "literal_", "exact_",
)  # fmt: skip
"""chezmoi's source attributes, in the order it writes them (each may be left out)."""
CHEZMOI_SUFFIXES = (".tmpl", ".literal", ".age", ".asc")
_YADM = re.compile(r"##.*$")
_COPY = re.compile(
    r"(?: copy(?: \d+)?| \((?:\d+|copy|another copy|\d+(?:st|nd|rd|th) copy)\)| - copy(?: \(\d+\))?)"
    r"(?=(?:\.[^. ]+)?$)"
)
"""A duplicate's mark, at the end or before the last extension (``credentials copy.json``)."""


def chezmoi_target(name: str) -> str:
    """The name chezmoi writes for the source name ``name`` (lowercase), or ``name``."""
    base = name
    for suffix in CHEZMOI_SUFFIXES:
        if base.endswith(suffix) and len(base) > len(suffix):
            base = base[: -len(suffix)]
    stripped = True
    while stripped:
        stripped = False
        for prefix in CHEZMOI_PREFIXES:
            if base.startswith(prefix) and len(base) > len(prefix):
                base, stripped = base[len(prefix):], True
    if base.startswith("dot_") and len(base) > 4:
        base = "." + base[4:]
    return base


def copied_from(name: str) -> str:
    """The name ``name`` (lowercase) is a yadm alternate or a file manager's duplicate of,
    or ``name``."""
    base = _YADM.sub("", name) if not name.startswith("##") else name
    if base.startswith("copy of ") and len(base) > 8:
        base = base[8:]
    return _COPY.sub("", base, count=1) or name


def originals(name: str) -> list[str]:
    """The names other than ``name`` (lowercase) that it stands for, if any."""
    out = []
    for candidate in (chezmoi_target(name), copied_from(name), copied_from(chezmoi_target(name))):
        if candidate != name and candidate not in out:
            out.append(candidate)
    return out


__all__ = ["chezmoi_target", "copied_from", "originals"]
