"""The one way agent-shell runs git itself: on the host, outside the sandbox, in a
repository a sandboxed command (or an unpacked project) may have written.

Such a repository's config can name commands (``core.fsmonitor``,
``remote.*.uploadpack``) and URLs (a "promisor" remote of a partial clone, which git
fetches from lazily when an object is missing). agent-shell's git only reads: it must
never run what the repository names, never touch the network and never ask for or
hand out a credential. Every git agent-shell runs goes through :func:`run`, so the
hardening lives here only:

- hooks, fsmonitor and the untracked cache off; no optional locks;
- ``GIT_ALLOW_PROTOCOL`` empty (and ``protocol.allow=never``): every transport (http,
  ssh, ext, file, a local path) is refused, so a fetch fails before it connects or
  runs ``uploadpack``. The variable is what holds: a repository's own
  ``protocol.file.allow=always`` beats ``-c protocol.allow=never``, not the variable;
- ``GIT_NO_LAZY_FETCH=1``: a missing object is not fetched at all (git >= 2.45 and the
  2.39.4 / 2.40.2 … security releases; older git relies on the line above);
- no prompt, an askpass and ssh command that fail, no credential helper;
- no inherited ``GIT_*`` variable, a timeout.
"""

from __future__ import annotations

import os
import subprocess
from collections.abc import Mapping, Sequence

from shell.core.programs import which

HARDENED_ARGS = (
    "-c", "core.fsmonitor=false", "-c", "core.hooksPath=/dev/null", "-c", "core.untrackedCache=false",
    "-c", "protocol.allow=never", "-c", "credential.helper=", "-c", "core.sshCommand=false",
    "--no-optional-locks",
)  # fmt: skip
"""Options before every subcommand of agent-shell's git."""


def hardened_env(extra: Mapping[str, str] | None = None) -> dict[str, str]:
    """The environment of agent-shell's git: the user's without ``GIT_*``, plus what
    keeps git from fetching, prompting or running a program the repository names."""
    false = which("false") or "/bin/false"  # GIT_ASKPASS / GIT_SSH_COMMAND beat the config's
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    env.update(GIT_TERMINAL_PROMPT="0", GIT_OPTIONAL_LOCKS="0", GIT_NO_LAZY_FETCH="1", GIT_ALLOW_PROTOCOL="",
               GIT_PROTOCOL_FROM_USER="0", GIT_ASKPASS=false, SSH_ASKPASS=false,
               GIT_SSH_COMMAND=false, GIT_NO_REPLACE_OBJECTS="1", LC_ALL="C")  # fmt: skip
    env.update(extra or {})
    return env


def run(
    args: Sequence[str], *, cwd: str | os.PathLike[str] | None = None, stdin: bytes = b"",
    timeout: float = 3.0, env: Mapping[str, str] | None = None,
) -> subprocess.CompletedProcess[bytes] | None:
    """git ``args`` run hardened (None: git is missing, could not start, or timed out)."""
    git = which("git")
    if git is None:
        return None
    try:
        return subprocess.run([git, *HARDENED_ARGS, *args], input=stdin, cwd=cwd, capture_output=True,
                              timeout=timeout, env=hardened_env(env), check=False)  # fmt: skip
    except (OSError, subprocess.SubprocessError):
        return None


__all__ = ["HARDENED_ARGS", "hardened_env", "run"]
