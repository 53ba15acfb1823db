"""How a long command reaches bash: in memory on a descriptor, not as one argument.

``bash -c COMMAND`` puts the whole command in one argument, and Linux refuses an
argument over ``MAX_ARG_STRLEN`` (128 KiB): a model writing a file through a heredoc
got ``OSError: [Errno 7] Argument list too long: '/usr/bin/bwrap'``, not its file.
A command past :data:`ARGV_ROOM` is written to an anonymous in-memory file
(``memfd``: nothing on any disk, nothing left in the workspace) that bash is passed
as a descriptor; a short fixed stub on the command line reads it whole, closes the
descriptor (the command's children do not inherit it) and ``eval``\\ s it, which
parses and runs the text as ``-c`` does. Shorter commands keep ``bash -c``
unchanged. The permission check is not concerned: it has already seen the whole
command, as the model wrote it, before any of this.

Past :data:`MAX_COMMAND_BYTES` a command is refused with what to do instead, so the
size is a stated limit, not whatever the kernel allows.
"""

from __future__ import annotations

import contextlib
import os
from dataclasses import dataclass, field

ARGV_ROOM = 100_000
"""Bytes of a command still passed as ``bash -c``'s argument (the kernel's limit is 131,072)."""

MAX_COMMAND_BYTES = 4 * 1024 * 1024
"""The longest command run, in bytes of UTF-8 (4 MiB); documented in the README."""


class CommandTooLong(ValueError):
    """A command over :data:`MAX_COMMAND_BYTES`; the message says what to do."""


@dataclass(slots=True)
class CommandLine:
    """bash's command line for one command, and the descriptor it reads the command from
    (passed to the child, closed by :meth:`close` once the child started)."""

    argv: list[str]
    fds: list[int] = field(default_factory=list)

    def close(self) -> None:
        while self.fds:
            with contextlib.suppress(OSError):
                os.close(self.fds.pop())


def stub(fd: int) -> str:
    """The fixed program on bash's command line that runs the command on ``fd``: ``read -d ''``
    takes it whole (it holds no NUL), the descriptor is closed, and the variable is
    unset before the command runs (the expansion has already happened)."""
    return f'IFS= read -r -d "" -u {fd} __agent_shell_command; exec {fd}<&-; ' \
        'eval "unset __agent_shell_command; $__agent_shell_command"'


def checked(command: str) -> bytes:
    """The command's bytes; :class:`CommandTooLong` past :data:`MAX_COMMAND_BYTES`."""
    data = command.encode("utf-8", "surrogateescape")
    if len(data) > MAX_COMMAND_BYTES:
        raise CommandTooLong(
            f"The command is {len(data):,} bytes, over the {MAX_COMMAND_BYTES // (1024 * 1024)} MiB limit on "
            "one command. To write a large file, use write_file, or write it in parts (one command per part, "
            "appending with >>); to run a long script, write it to a file first and run that file.")
    return data


def command_line(shell: str, command: str) -> CommandLine:
    """``[shell, "-c", command]``, or for a command past :data:`ARGV_ROOM` the stub
    reading it from an in-memory file; :class:`CommandTooLong` past the cap."""
    data = checked(command)
    if len(data) <= ARGV_ROOM:
        return CommandLine([shell, "-c", command])
    fd = os.memfd_create("agent-shell-command", os.MFD_CLOEXEC)  # the child gets it by pass_fds
    try:
        written = 0
        while written < len(data):
            written += os.write(fd, data[written:])
        os.lseek(fd, 0, os.SEEK_SET)
    except BaseException:
        os.close(fd)
        raise
    return CommandLine([shell, "-c", stub(fd)], [fd])


__all__ = ["ARGV_ROOM", "MAX_COMMAND_BYTES", "CommandLine", "CommandTooLong", "checked", "command_line",
           "stub"]
