"""Which paths a command's output says it could not write because they run later as
the user: the sandbox binds them read-only, and git carries on and exits 0 after
such refusals, so the caller has to say so itself.
"""

from __future__ import annotations

import re

from .laternames import why

_REFUSED_LINE = re.compile(
    r"^(?:error|warning|fatal): (?P<what>.*): (?:Read-only file system|Device or resource busy)\s*$", re.M)
_QUOTED = re.compile(r"'([^'\n]+)'")
MAX_REFUSED = 50


def refused_writes(output: str) -> list[str]:
    """The paths a command's output says it could not write because they run later as
    the user (the sandbox binds them read-only): ``error: unable to unlink old
    '.vscode/settings.json': Read-only file system``, ``error: unable to create file
    .vscode/tasks.json: …``. git goes on and exits 0 after these (``git checkout``
    switches branch, leaving the old files): the caller says so, since the exit code
    does not. Only paths with a :data:`RUNS_LATER` part count (other refusals are the
    sandbox's ordinary read-only disk, which the command reports itself)."""
    found: list[str] = []
    for m in _REFUSED_LINE.finditer(output):
        what = m.group("what")
        quoted = _QUOTED.findall(what)
        path = quoted[-1] if quoted else (what.split()[-1] if what.split() else "")
        parts = path.replace("\\", "/").split("/")
        if any(why("/".join(parts[: i + 1])) for i in range(len(parts))) and path not in found:
            found.append(path)
            if len(found) >= MAX_REFUSED:
                break
    return found


__all__ = ["MAX_REFUSED", "refused_writes"]
