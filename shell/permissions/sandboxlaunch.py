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
starts a program with arguments and cannot be handed a descriptor. Our own
``run_shell`` can pass descriptors, so it starts bubblewrap itself (``direct``), the
same options in memory (``memfd``): the launcher's ``sh``, ``rm`` and ``env`` cost
10-30 ms a command on loaded shared cores (``benchmarks/sandbox_overhead.py``).
What is left on bubblewrap's command line is ``--args N`` and the command itself (the
model's own words).

bubblewrap's status (``--json-status-fd``) goes to a second file (in that folder, or in
memory): it holds an ``exit-code`` once the command ran, and none when setting the sandbox up
failed, as when a path listed for hiding vanished before bubblewrap started (seen
between parallel temporary homes). :meth:`Launch.never_started` tells that apart from a
command that failed (which must not run twice), and the caller lists again and retries
once. The command cannot write the status: it is in memory or the host's ``/tmp``, and
bubblewrap does not pass its descriptor into the sandbox.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import tempfile
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from shell.core.programs import which

LAUNCHER = 'exec 3<"$1" 4>>"$2" || exit 126\n"$3" -f -- "$1"\nshift 3\nexec "$@"\n'
"""``$1`` the options file, ``$2`` the status file, ``$3`` ``rm``, then ``env -i bwrap …``."""

SCRIPT_FD = 5
"""The descriptor a long command is on in the editor's terminal (:mod:`shell.tools.longcommand`)."""
LAUNCHER_SCRIPT = ('exec 3<"$1" 4>>"$2" 5<"$4" || exit 126\n"$3" -f -- "$1" "$4"\nshift 4\nexec "$@"\n')
""":data:`LAUNCHER` with ``$4``, the command's file (a command over one argument's room),
opened on :data:`SCRIPT_FD` and removed before bubblewrap starts."""

NAME = "agent-shell-sandbox"
"""The launcher's ``$0`` (what ``ps`` shows for the moment it runs)."""

MAX_STATUS = 64 * 1024
"""Bytes of bubblewrap's status read at most (two short JSON lines)."""


@dataclass(frozen=True, slots=True)
class Launch:
    """The program to start for one sandboxed command, and what it reads from."""

    argv: list[str]
    """``sh -c LAUNCHER …`` or ``bwrap --args N -- …``: no hidden path and no variable of
    the environment in it; started with an empty environment."""
    folder: str = ""
    """The launcher's private folder of the options and status files (removed by :meth:`close`)."""
    fds: list[int] = field(default_factory=list)
    """For a direct start, what the caller passes to the child (``pass_fds``): the status
    and the options, in memory (``memfd``, no file anywhere), closed by :meth:`close`."""

    def status(self) -> str:
        """What bubblewrap wrote about the sandbox (empty if nothing, or unreadable)."""
        try:
            if self.fds:
                return os.pread(self.fds[0], MAX_STATUS, 0).decode("utf-8", "replace")
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
        """Close the descriptors (once) and remove the folder (the options file is gone already)."""
        while self.fds:
            with contextlib.suppress(OSError):
                os.close(self.fds.pop())
        if self.folder:
            shutil.rmtree(self.folder, ignore_errors=True)


def launch(wrapped: Sequence[str], command: Sequence[str], env: Mapping[str, str], *,
           direct: bool = False, script: bytes = b"") -> Launch:
    """The launcher for bubblewrap's command line ``wrapped`` (``bwrap OPTIONS -- COMMAND``,
    as :meth:`Sandbox.wrap` makes it), giving the command ``env``: OPTIONS and ``env`` are
    written to a private file; only ``--args N -- COMMAND`` stays on the command line.
    ``direct``: bubblewrap itself, reading descriptors the caller passes (:attr:`Launch.fds`).
    ``script``: the command's text, for a launcher to open on :data:`SCRIPT_FD` (not ``direct``)."""
    cut = len(wrapped) - len(command) - 1
    if cut < 1 or wrapped[cut] != "--" or list(wrapped[cut + 1 :]) != list(command):
        raise ValueError("the bubblewrap command line does not end with -- and the command")
    options = ["--clearenv"]
    for name, value in env.items():
        options += ["--setenv", name, value]
    if direct:
        return _direct(wrapped, cut, command, options)
    options += ["--json-status-fd", "4", *wrapped[1:cut]]
    folder = tempfile.mkdtemp(prefix="agent-shell-launch-", dir=_private_base())
    path, status = os.path.join(folder, "args"), os.path.join(folder, "status")
    files = [(path, _nul_separated(options))] + ([(os.path.join(folder, "script"), script)] if script else [])
    try:
        for name, data in files:
            fd = os.open(name, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
            with os.fdopen(fd, "wb") as fh:
                fh.write(data)
    except BaseException:
        shutil.rmtree(folder, ignore_errors=True)
        raise
    programs = [which("rm") or "/bin/rm", *(name for name, _ in files[1:]),  # $4: the script, if any
                which("env") or "/usr/bin/env", "-i", wrapped[0]]
    argv = [which("sh") or "/bin/sh", "-c", LAUNCHER_SCRIPT if script else LAUNCHER, NAME, path, status,
            *programs, "--args", "3", "--", *command]  # fmt: skip
    return Launch(argv, folder)


def _direct(wrapped: Sequence[str], cut: int, command: Sequence[str], options: list[str]) -> Launch:
    """bubblewrap started by the caller, its options and status in memory: no folder to
    make and remove (1 ms CPU, 5 ms under load), nothing on any disk. Descriptors are not
    inherited unless passed (PEP 446)."""
    started = Launch([])
    try:
        started.fds.append(os.memfd_create("agent-shell-status", os.MFD_CLOEXEC))
        started.fds.append(os.memfd_create("agent-shell-args", os.MFD_CLOEXEC))
        data = _nul_separated([*options, "--json-status-fd", str(started.fds[0]), *wrapped[1:cut]])
        written = 0
        while written < len(data):
            written += os.write(started.fds[1], data[written:])
        os.lseek(started.fds[1], 0, os.SEEK_SET)
    except BaseException:
        started.close()
        raise
    started.argv[:] = [wrapped[0], "--args", str(started.fds[1]), "--", *command]
    return started


def _nul_separated(options: Sequence[str]) -> bytes:
    return b"".join(os.fsencode(o) + b"\0" for o in options)


def _private_base() -> str | None:
    """The host's ``/tmp``, which no sandboxed command sees (it gets an empty one),
    else the usual temporary folder."""
    return "/tmp" if os.path.isdir("/tmp") and os.access("/tmp", os.W_OK | os.X_OK) else None


__all__ = ["LAUNCHER", "LAUNCHER_SCRIPT", "NAME", "SCRIPT_FD", "Launch", "launch"]
