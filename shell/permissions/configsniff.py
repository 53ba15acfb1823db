"""Whether a settings file in home's dot folders holds a credential, by its content.

Names fail for tools nobody listed: Doppler's ``.doppler.yaml``, Infisical's
``infisical-config.json``, bun's ``~/.bunfig.toml`` hold a token under harmless names
(tester round 11, Q25). So a JSON, YAML, TOML or INI-like file in home's dot folders
(:func:`.homesecrets.found_in_config` looks through them) that sets a key named for a
secret (``token``, ``secret``, ``password``, ``api_key``, ``auth``) to a value of
:data:`MIN_VALUE_LEN` characters or more is hidden like a secret-looking name.

A dot file right in home or a file in those folders with no extension at all is read too,
for the same lines and an rc file's (``key value``, ``set key=value``, curl's ``user =
"name:password"``: :data:`shell.core.secretcontent.RC_SETS_A_SECRET`): ``~/.wgetrc``,
``~/.curlrc`` and ``~/.mailrc`` are ``key value`` files by their format (finding A3), and
an unknown tool's is too. Not git's own configs: their credentials are scrubbed from the
copy commands read (:mod:`.gitcreds`), and git needs the rest.

Bounded: only such files of at most :data:`MAX_BYTES` (an extension-less one
:data:`MAX_PLAIN_BYTES`, and none with a NUL byte: data, not settings), the first :data:`READ_BYTES` of
each read, and each verdict kept by the file's inode, size, mtime and ctime (not the mtime
alone: a program sets that back after a write in place at the same size; the ctime only the
clock sets).
"""

from __future__ import annotations

import os
import stat
import time

from shell.core.secretcontent import RACY_NS, RC_SETS_A_SECRET, sets_a_secret

SUFFIXES = (".json", ".yaml", ".yml", ".toml", ".conf", ".cfg", ".ini", ".rc")
MAX_BYTES = 1 << 20
_verdicts: dict[str, tuple[tuple[int, int, int, int], bool]] = {}
MAX_PLAIN_BYTES = 64 * 1024
"""An extension-less file larger than this is not an rc file (not read)."""
GIT_CONFIGS = (".gitconfig", "/git/config")


def reads(path: str) -> bool:
    """Whether :func:`holds_credentials` looks into the file at ``path`` (by its name)."""
    return path.lower().endswith(SUFFIXES) or _plain(path)


def _plain(path: str) -> bool:
    """An rc file by its name: no extension (``.wgetrc``, ``config``), not git's config."""
    name = os.path.basename(path)
    return bool(name) and not os.path.splitext(name)[1] and not path.endswith(GIT_CONFIGS)


def holds_credentials(path: str) -> bool:
    """Whether the settings file ``path`` sets a secret-named key (see above)."""
    if not reads(path):
        return False
    try:
        info = os.stat(path)
    except OSError:
        return False
    plain = not path.lower().endswith(SUFFIXES)
    if not stat.S_ISREG(info.st_mode) or info.st_size > (MAX_PLAIN_BYTES if plain else MAX_BYTES):
        return False
    mark = (info.st_ino, info.st_size, info.st_mtime_ns, info.st_ctime_ns)
    known = _verdicts.get(path)
    if known is not None and known[0] == mark:
        return known[1]
    settled = time.time_ns() - info.st_ctime_ns >= RACY_NS  # a second write in the same tick: read again
    try:
        with open(path, "rb") as handle:
            raw = handle.read(MAX_BYTES)  # within the cap: the whole file
    except OSError:
        return False
    text = raw.decode("utf-8", "replace")
    verdict = sets_a_secret(text) or (plain and b"\0" not in raw and RC_SETS_A_SECRET.search(text)
                                                 is not None)
    if len(_verdicts) > 4096:
        _verdicts.clear()
    if settled:
        _verdicts[path] = (mark, verdict)
    return verdict


__all__ = ["holds_credentials", "reads"]
