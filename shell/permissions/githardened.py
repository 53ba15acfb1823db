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
- no signature checked (``log.showSignature`` would run the repository's ``gpg.program``
  on a commit carrying any ``gpgsig`` header), no external diff;
- no filter or diff driver: a subcommand that may clean, smudge or textconv a file
  (:data:`FILTERING`: ``checkout-index`` writes, ``diff-files`` re-hashes a racily clean
  one) runs with every ``filter.*``/``diff.*`` command the repository's config names set
  empty, which git takes as "no driver" (tester finding U8: gitsync's ``checkout-index``
  ran a repository's smudge filter as the user, outside the sandbox);
- no inherited ``GIT_*`` variable, no loader folder named by where git runs
  (:func:`shell.core.programs.host_environment`), a timeout.
"""

from __future__ import annotations

import os
import subprocess
from collections.abc import Mapping, Sequence

from shell.core.programs import host_environment, which

HARDENED_ARGS = (
    "-c", "core.fsmonitor=false", "-c", "core.hooksPath=/dev/null", "-c", "core.untrackedCache=false",
    "-c", "protocol.allow=never", "-c", "credential.helper=", "-c", "core.sshCommand=false",
    "-c", "log.showSignature=false", "-c", "gpg.program=false", "-c", "gpg.openpgp.program=false",
    "-c", "gpg.ssh.program=false", "-c", "gpg.x509.program=false", "-c", "diff.external=",
    "--no-optional-locks",
)  # fmt: skip
"""Options before every subcommand of agent-shell's git."""

FILTERING = frozenset({"checkout-index", "diff-files", "diff-index", "update-index", "hash-object", "status",
                       "add", "diff", "checkout", "restore", "reset", "stash", "show"})
"""Subcommands that may run a filter or diff driver on some option or file state: these
first learn the drivers the config names and turn each off."""

FILTERING_OPTIONS = frozenset({"--filters", "--textconv", "-m", "--modified", "--with-tree", "-p", "-u",
                               "--patch", "--stat", "--numstat", "--shortstat", "--dirstat", "--check"})
"""Options that make a subcommand otherwise left alone (``cat-file``, ``grep``,
``ls-files``, ``log``, ``diff-tree``) run one."""

_DRIVERS = r"^(filter|diff)\..*\.(clean|smudge|process|textconv|command)$"


def hardened_env(extra: Mapping[str, str] | None = None, *, replace_objects: bool = False) -> dict[str, str]:
    """The environment of agent-shell's git: the user's without ``GIT_*``, plus what
    keeps git from fetching, prompting or running a program the repository names.
    ``replace_objects``: resolve as the user's (and the sandbox's) git does, honouring
    ``refs/replace/`` unless the user's environment turns them off (finding U7: the
    checker saw HEAD's commit where the sandbox's git showed a blob)."""
    false = which("false") or "/bin/false"  # GIT_ASKPASS / GIT_SSH_COMMAND beat the config's
    # not the loader's folders named by where git runs (the workspace: a library planted there, W6)
    env = {k: v for k, v in host_environment().items() if not k.startswith("GIT_")}
    env.update(GIT_TERMINAL_PROMPT="0", GIT_OPTIONAL_LOCKS="0", GIT_NO_LAZY_FETCH="1", GIT_ALLOW_PROTOCOL="",
               GIT_PROTOCOL_FROM_USER="0", GIT_ASKPASS=false, SSH_ASKPASS=false,
               GIT_SSH_COMMAND=false, GIT_NO_REPLACE_OBJECTS="1", LC_ALL="C")  # fmt: skip
    if replace_objects and "GIT_NO_REPLACE_OBJECTS" not in os.environ:
        del env["GIT_NO_REPLACE_OBJECTS"]
    env.update(extra or {})
    return env


def run(
    args: Sequence[str], *, cwd: str | os.PathLike[str] | None = None, stdin: bytes = b"",
    timeout: float = 3.0, env: Mapping[str, str] | None = None, replace_objects: bool = False,
) -> subprocess.CompletedProcess[bytes] | None:
    """git ``args`` run hardened (None: git is missing, could not start, or timed out);
    ``replace_objects`` as :func:`hardened_env`."""
    git = which("git")
    if git is None:
        return None
    before, sub = _split(args)
    off: list[str] = []
    if sub in FILTERING or FILTERING_OPTIONS.intersection(args):
        listed = _run([git, *HARDENED_ARGS, *before, "config", "--null", "--get-regexp", _DRIVERS], cwd, b"",
                      timeout, hardened_env(env))  # fmt: skip
        if listed is None or listed.returncode not in (0, 1):  # 1: none named
            return None
        found = _drivers_off(listed.stdout)
        if found is None:
            return None
        off = found
    return _run([git, *HARDENED_ARGS, *off, *args], cwd, stdin, timeout,
                hardened_env(env, replace_objects=replace_objects))


def _run(
    argv: list[str], cwd: str | os.PathLike[str] | None, stdin: bytes, timeout: float, env: dict[str, str],
) -> subprocess.CompletedProcess[bytes] | None:
    try:
        return subprocess.run(argv, input=stdin, cwd=cwd, capture_output=True, timeout=timeout,
                              env=env, check=False)  # fmt: skip
    except (OSError, subprocess.SubprocessError):
        return None


def _split(args: Sequence[str]) -> tuple[list[str], str]:
    """git's own options before the subcommand (``-C repo``, ``--git-dir=…``) and the
    subcommand (empty: none)."""
    index = 0
    while index < len(args):
        arg = args[index]
        if arg in ("-C", "-c", "--git-dir", "--work-tree", "--namespace"):
            index += 2
        elif arg.startswith("-"):
            index += 1
        else:
            return list(args[:index]), arg
    return list(args), ""


def _drivers_off(listed: bytes) -> list[str] | None:
    """``-c key=`` for each driver command ``git config --null --get-regexp`` listed
    (None: a name ``-c`` cannot carry, so the command is not run)."""
    off: list[str] = []
    for item in listed.split(b"\0"):
        key = os.fsdecode(item.partition(b"\n")[0])
        if not key:
            continue
        if "=" in key or any(ord(c) < 32 for c in key):
            return None
        off += ["-c", f"{key}="]
        if key.startswith("filter."):
            off += ["-c", f"{key.rsplit('.', 1)[0]}.required=false"]
    return off


__all__ = ["FILTERING", "FILTERING_OPTIONS", "HARDENED_ARGS", "hardened_env", "run"]
