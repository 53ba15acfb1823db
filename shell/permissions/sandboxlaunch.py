"""How bubblewrap is started: its options read from a private file, not its command line.

Inside the sandbox the command can read ``/proc/1/cmdline``, which is bubblewrap's
own command line. With the options on it, every path the sandbox hides (``~/.aws``,
``~/.pgpass``, the workspace's secret files by name) was listed there: a map of where
the user's credentials are, for whatever runs outside later (tester round 6). It can
read ``/proc/1/environ`` too, the environment bubblewrap was started in, which in an
editor's terminal (ACP) is the editor's own, provider keys and all.

bubblewrap reads options from a file descriptor as well (``--args FD``, NUL-separated)
and closes it before the command starts. So the options, and the command's environment
(``--clearenv``/``--setenv``), go into a file (mode 0600) in a private folder (0700) in
the host's ``/tmp``, which every sandbox replaces with an empty one; a short ``sh``
launcher opens it on fd 3, removes it, and execs bubblewrap with an empty environment
(``env -i``). The launcher is what makes this work in the editor's terminal, which
starts a program with arguments and cannot be handed a descriptor; our own
``run_shell`` starts the same launcher, so that both stay one way. What is left on
bubblewrap's command line is ``--args 3`` and the command itself (the model's own words).

bubblewrap's status (``--json-status-fd``) goes to a second file in that folder: it
holds an ``exit-code`` once the command ran, and none when setting the sandbox up
failed, as when a path listed for hiding vanished before bubblewrap started (seen
between parallel temporary homes). :meth:`Launch.never_started` tells that apart from a
command that failed (which must not run twice), and the caller lists again and retries
once. The command cannot write the status file: it lies in the host's ``/tmp`` and its
descriptor is not passed into the sandbox.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from shell.core.programs import which

LAUNCHER = 'exec 3<"$1" 4>>"$2" || exit 126\n"$3" -f -- "$1"\nshift 3\nexec "$@"\n'
"""``$1`` the options file, ``$2`` the status file, ``$3`` ``rm``, then ``env -i bwrap …``."""

NAME = "agent-shell-sandbox"
"""The launcher's ``$0`` (what ``ps`` shows for the moment it runs)."""

MAX_STATUS = 64 * 1024
"""Bytes of bubblewrap's status read at most (two short JSON lines)."""


@dataclass(frozen=True, slots=True)
class Launch:
    """The program to start for one sandboxed command, and the folder it reads from."""

    argv: list[str]
    """``sh -c LAUNCHER …``: no hidden path and no variable of the environment in it."""
    folder: str
    """The private folder of the options and status files (removed by :meth:`close`)."""

    def status(self) -> str:
        """What bubblewrap wrote about the sandbox (empty if nothing, or unreadable)."""
        try:
            with open(os.path.join(self.folder, "status"), "rb") as fh:
                return fh.read(MAX_STATUS).decode("utf-8", "replace")
        except OSError:
            return ""

    def never_started(self, code: int | None, output: str) -> bool:
        """Whether bubblewrap failed before the command started (so that running it
        again runs it once): it exited 1, printed its own error first, and reported no
        exit of the command. A command that printed the same and exited 1 did run, and
        bubblewrap says so in the status file, which the command cannot reach."""
        return code == 1 and output.lstrip().startswith("bwrap: ") and '"exit-code"' not in self.status()

    def close(self) -> None:
        """Remove the folder (the launcher removed the options file already)."""
        shutil.rmtree(self.folder, ignore_errors=True)


def launch(wrapped: Sequence[str], command: Sequence[str], env: Mapping[str, str]) -> Launch:
    """The launcher for bubblewrap's command line ``wrapped`` (``bwrap OPTIONS -- COMMAND``,
    as :meth:`Sandbox.wrap` makes it), giving the command ``env``: OPTIONS and ``env`` are
    written to a private file; only ``--args 3 -- COMMAND`` stays on the command line."""
    cut = len(wrapped) - len(command) - 1
    if cut < 1 or wrapped[cut] != "--" or list(wrapped[cut + 1 :]) != list(command):
        raise ValueError("the bubblewrap command line does not end with -- and the command")
    options = ["--clearenv"]
    for name, value in env.items():
        options += ["--setenv", name, value]
    options += ["--json-status-fd", "4", *wrapped[1:cut]]
    folder = tempfile.mkdtemp(prefix="agent-shell-launch-", dir=_private_base())
    try:
        path = os.path.join(folder, "args")
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC, 0o600)
        with os.fdopen(fd, "wb") as fh:
            fh.write(b"".join(os.fsencode(o) + b"\0" for o in options))
    except BaseException:
        shutil.rmtree(folder, ignore_errors=True)
        raise
    status = os.path.join(folder, "status")
    argv = [which("sh") or "/bin/sh", "-c", LAUNCHER, NAME, path, status, which("rm") or "/bin/rm",
            which("env") or "/usr/bin/env", "-i", wrapped[0], "--args", "3", "--", *command]  # fmt: skip
    return Launch(argv, folder)


def _private_base() -> str | None:
    """The host's ``/tmp``, which no sandboxed command sees (it gets an empty one),
    else the usual temporary folder."""
    return "/tmp" if os.path.isdir("/tmp") and os.access("/tmp", os.W_OK | os.X_OK) else None


__all__ = ["LAUNCHER", "NAME", "Launch", "launch"]
