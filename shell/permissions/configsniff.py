"""Whether a settings file in home's dot folders holds a credential, by its content.

Names fail for tools nobody listed: Doppler's ``.doppler.yaml``, Infisical's
``infisical-config.json``, bun's ``~/.bunfig.toml`` hold a token under harmless names
(tester round 11, Q25). So a JSON, YAML, TOML or INI-like file in home's dot folders
(:func:`.homesecrets.found_in_config` looks through them) that sets a key named for a
secret (``token``, ``secret``, ``password``, ``api_key``, ``auth``) to a value of
:data:`MIN_VALUE_LEN` characters or more is hidden like a secret-looking name.

Bounded: only such files of at most :data:`MAX_BYTES`, the first :data:`READ_BYTES` of
each read, and each verdict kept by the file's inode, size, mtime and ctime (not the mtime
alone: a program sets that back after a write in place at the same size; the ctime only the
clock sets).
"""

from __future__ import annotations

import os
import time

from shell.core.secretcontent import RACY_NS, SETS_A_SECRET

SUFFIXES = (".json", ".yaml", ".yml", ".toml", ".conf", ".cfg", ".ini", ".rc")
MAX_BYTES = 1 << 20
READ_BYTES = 64 * 1024
_SETS = SETS_A_SECRET
"""The one rule of what setting a secret looks like (:mod:`shell.core.secretcontent`)."""
_verdicts: dict[str, tuple[tuple[int, int, int, int], bool]] = {}


def reads(path: str) -> bool:
    """Whether :func:`holds_credentials` looks into the file at ``path`` (by its name)."""
    return path.lower().endswith(SUFFIXES)


def holds_credentials(path: str) -> bool:
    """Whether the settings file ``path`` sets a secret-named key (see above)."""
    if not reads(path):
        return False
    try:
        info = os.stat(path)
    except OSError:
        return False
    if info.st_size > MAX_BYTES:
        return False
    mark = (info.st_ino, info.st_size, info.st_mtime_ns, info.st_ctime_ns)
    known = _verdicts.get(path)
    if known is not None and known[0] == mark:
        return known[1]
    settled = time.time_ns() - info.st_ctime_ns >= RACY_NS  # a second write in the same tick: read again
    try:
        with open(path, "rb") as handle:
            text = handle.read(READ_BYTES).decode("utf-8", "replace")
    except OSError:
        return False
    verdict = _SETS.search(text) is not None
    if len(_verdicts) > 4096:
        _verdicts.clear()
    if settled:
        _verdicts[path] = (mark, verdict)
    return verdict


__all__ = ["holds_credentials", "reads"]
