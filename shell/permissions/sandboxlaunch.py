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

from . import sandboxmounts

LAUNCHER = 'exec 3<"$1" 4>>"$2" || exit 126\n"$3" -f -- "$1"\nshift 3\nexec "$@"\n'
"""``$1`` the options file, ``$2`` the status file, ``$3`` ``rm``, then ``env -i bwrap …``."""

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
    and the options, in memory (``memfd``, no file anywhere), closed by :meth:`close`; with
    the launcher of :mod:`.sandboxmounts`, its binds and its marker too."""
    marker: list[int] = field(default_factory=list)
    """The launcher's marker (``ok`` once its mounts are made and its capabilities dropped),
    when it makes the file binds (:mod:`.sandboxmounts`); empty when bubblewrap makes them all."""

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
        bubblewrap says so in the status file, which the command cannot reach.

        With the launcher of :mod:`.sandboxmounts`: whenever it did not write its ``ok``
        (which it writes just before it execs the command; the command cannot reach it), and
        the next set-up is bubblewrap's own (:func:`.sandboxmounts.fast_path_failed`)."""
        if self.marker:
            try:
                said = os.pread(self.marker[0], 2, 0)
            except OSError:
                said = b""
            if said != b"ok":
                sandboxmounts.fast_path_failed(output)
                return True
            return False
        return code == 1 and output.lstrip().startswith("bwrap: ") and '"exit-code"' not in self.status()

    def close(self) -> None:
        """Close the descriptors (once) and remove the folder (the options file is gone already)."""
        while self.fds:
            with contextlib.suppress(OSError):
                os.close(self.fds.pop())
        if self.folder:
            shutil.rmtree(self.folder, ignore_errors=True)


def launch(wrapped: Sequence[str], command: Sequence[str], env: Mapping[str, str], *,
           direct: bool = False, mounts: bool = True) -> Launch:
    """The launcher for bubblewrap's command line ``wrapped`` (``bwrap OPTIONS -- COMMAND``,
    as :meth:`Sandbox.wrap` makes it), giving the command ``env``: OPTIONS and ``env`` are
    written to a private file; only ``--args N -- COMMAND`` stays on the command line.
    ``direct``: bubblewrap itself, reading descriptors the caller passes (:attr:`Launch.fds`),
    and, when there are enough of them and ``mounts``, the file binds made by the launcher of
    :mod:`.sandboxmounts` (``mounts=False``: all by bubblewrap, as after it failed)."""
    cut = len(wrapped) - len(command) - 1
    if cut < 1 or wrapped[cut] != "--" or list(wrapped[cut + 1 :]) != list(command):
        raise ValueError("the bubblewrap command line does not end with -- and the command")
    options = ["--clearenv"]
    for name, value in env.items():
        options += ["--setenv", name, value]
    if direct:
        return _direct(wrapped, cut, command, options, env if mounts else None)
    options += ["--json-status-fd", "4", *wrapped[1:cut]]
    folder = tempfile.mkdtemp(prefix="agent-shell-launch-", dir=_private_base())
    path, status = os.path.join(folder, "args"), os.path.join(folder, "status")
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, "wb") as fh:
            fh.write(_nul_separated(options))
    except BaseException:
        shutil.rmtree(folder, ignore_errors=True)
        raise
    programs = [which("rm") or "/bin/rm", which("env") or "/usr/bin/env", "-i", wrapped[0]]
    argv = [which("sh") or "/bin/sh", "-c", LAUNCHER, NAME, path, status, *programs, "--args", "3", "--",
            *command]  # fmt: skip
    return Launch(argv, folder)


def _direct(wrapped: Sequence[str], cut: int, command: Sequence[str], options: list[str],
            mounts: Mapping[str, str] | None) -> Launch:
    """bubblewrap started by the caller, its options and status in memory: no folder to
    make and remove (1 ms CPU, 5 ms under load), nothing on any disk. Descriptors are not
    inherited unless passed (PEP 446). ``mounts``: the command's environment, when the
    launcher of :mod:`.sandboxmounts` may make the file binds (it gives the command that)."""
    started = Launch([])
    bwrap_options, run = list(wrapped[1:cut]), list(command)
    moved = _moved(bwrap_options) if mounts is not None else None
    try:
        started.fds.append(os.memfd_create("agent-shell-status", os.MFD_CLOEXEC))
        started.fds.append(os.memfd_create("agent-shell-args", os.MFD_CLOEXEC))
        if moved is not None:
            moved_options, python = moved
            listing = os.memfd_create("agent-shell-mounts", os.MFD_CLOEXEC)
            started.fds.append(listing)
            _write_all(listing, moved_options.payload(mounts or {}))
            started.marker.append(os.memfd_create("agent-shell-mounted", os.MFD_CLOEXEC))
            started.fds.append(started.marker[0])
            bwrap_options = moved_options.options
            run = moved_options.command(python, listing, started.marker[0], command)
        data = _nul_separated([*options, "--json-status-fd", str(started.fds[0]), *bwrap_options])
        _write_all(started.fds[1], data)
    except BaseException:
        started.close()
        raise
    started.argv[:] = [wrapped[0], "--args", str(started.fds[1]), "--", *run]
    return started


def _moved(options: list[str]) -> tuple[sandboxmounts.Moved, str] | None:
    """The file binds the launcher takes, and the interpreter that runs it, when it is on,
    can run safely here, and has enough of them to be worth its start."""
    if not sandboxmounts.fast_path_on():
        return None
    python = sandboxmounts.python_for_launcher(sandboxmounts.writable_targets(options))
    if python is None:
        return None
    moved = sandboxmounts.split(options)
    if not sandboxmounts.worth_it(len(moved.binds), sandboxmounts.host_mounts()):
        return None
    return moved, python


def _write_all(fd: int, data: bytes) -> None:
    """``data`` into the memfd ``fd``, which is then read from its start."""
    written = 0
    while written < len(data):
        written += os.write(fd, data[written:])
    os.lseek(fd, 0, os.SEEK_SET)


def _nul_separated(options: Sequence[str]) -> bytes:
    return b"".join(os.fsencode(o) + b"\0" for o in options)


def _private_base() -> str | None:
    """The host's ``/tmp``, which no sandboxed command sees (it gets an empty one),
    else the usual temporary folder."""
    return "/tmp" if os.path.isdir("/tmp") and os.access("/tmp", os.W_OK | os.X_OK) else None


__all__ = ["LAUNCHER", "NAME", "Launch", "launch"]
