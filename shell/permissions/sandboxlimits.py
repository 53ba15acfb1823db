"""Resource limits on ``run_shell``'s commands: what stops a runaway before it takes the machine.

Without them a brace expansion of 20,000 pairs (``echo {a,b}{a,b}…``) or a fork bomb,
run unasked in ``auto`` after a prompt injection, grew until the timeout, and a machine
with less memory than the command wanted swapped or lost other programs to the OOM
killer first. Each command, sandboxed or not, starts under ``prlimit`` (util-linux)
with these limits, soft and hard alike (a command cannot raise them again), inherited
by all it starts:

- **memory** (``RLIMIT_DATA``, per process; default: half of physical memory): what a
  process may allocate (heap and private writable mappings). Not ``RLIMIT_AS``, which
  also counts address space only reserved (a JVM, node's V8, Go and sanitizers reserve
  far more than they use) and would break them.
- **processes** (``RLIMIT_NPROC``; default 4,096 more than the system runs now): the
  kernel counts the *user's* processes and threads everywhere, not the sandbox's PID
  namespace, so the limit is the threads running system-wide (``/proc/loadavg``, an
  upper bound of the user's) plus this headroom. It does not bind root, whom the kernel
  exempts.
- **file size** (``RLIMIT_FSIZE``; default 16 GiB): the largest file a process writes
  (``yes > f`` fills a disk at a gigabyte a second).
- **CPU time** (``RLIMIT_CPU``): the timeout times the cores, plus a margin; honest work
  meets the timeout first. It bounds what outlives the timeout without the sandbox (a
  ``setsid`` child the process group missed), which would spin on otherwise.

Each stays under the hard limit the user already runs under (only root may raise one:
``prlimit`` would refuse, and no command would run).

Not a cgroup: the memory of all the command's processes together and a fork bomb run
as root are not bounded (``systemd-run --user --scope`` would need a user manager,
which containers and SSH sessions often lack). Codex's Linux sandbox (Landlock,
seccomp) sets no resource limit at all.

The settings are ``[sandbox] memory``, ``processes`` and ``file_size`` in the config;
:func:`limit_notes` says which limit stopped a command and which setting raises it.
"""

from __future__ import annotations

import os
import re
import resource
from collections.abc import Mapping
from dataclasses import dataclass

from shell.core.programs import which

GIB = 1024**3
DEFAULT_PROCESSES = 4096
DEFAULT_FILE_SIZE = 16 * GIB
CPU_MARGIN = 10
UNLIMITED = 0
"""A setting of ``"unlimited"`` (or 0): that limit is not set."""


@dataclass(frozen=True, slots=True)
class Limits:
    """The limits a command starts under; :data:`UNLIMITED` leaves one unset."""

    memory: int
    processes: int
    file_size: int

    def prefix(self, timeout: float) -> list[str]:
        """``prlimit --data=… --nproc=… --fsize=… --cpu=… --`` for a command with ``timeout``,
        or nothing where ``prlimit`` is missing (the README says so)."""
        program = which("prlimit")
        if program is None:
            return []
        cpu = int(timeout * (os.cpu_count() or 1)) + CPU_MARGIN
        soft, hard = _under_hard(resource.RLIMIT_CPU, cpu), _under_hard(resource.RLIMIT_CPU, cpu + 5)
        argv = [program, f"--cpu={soft}:{hard}"]
        if self.memory:
            argv.append(f"--data={_under_hard(resource.RLIMIT_DATA, self.memory)}")
        if self.processes:
            argv.append(f"--nproc={_under_hard(resource.RLIMIT_NPROC, running_threads() + self.processes)}")
        if self.file_size:
            argv.append(f"--fsize={_under_hard(resource.RLIMIT_FSIZE, self.file_size)}")
        return [*argv, "--"]


def _under_hard(which_limit: int, value: int) -> int:
    """``value``, or the hard limit the user already runs under when it is lower: only
    root may raise a hard limit, so prlimit would refuse and no command would run."""
    try:
        hard = resource.getrlimit(which_limit)[1]
    except (OSError, ValueError):
        return value
    return value if hard == resource.RLIM_INFINITY or hard < 0 else min(value, hard)


def default_limits() -> Limits:
    return Limits(memory=physical_memory() // 2, processes=DEFAULT_PROCESSES, file_size=DEFAULT_FILE_SIZE)


def physical_memory() -> int:
    try:
        return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (ValueError, OSError):
        return 8 * GIB


def running_threads() -> int:
    """Threads the system runs now (``/proc/loadavg``'s ``5/140``): at least the user's."""
    try:
        with open("/proc/loadavg", encoding="ascii") as fh:
            return int(fh.read().split()[3].split("/")[1])
    except (OSError, ValueError, IndexError):
        return 65_536


_SIZE = re.compile(r"(\d+(?:\.\d+)?)\s*([kmgt]?)i?b?", re.IGNORECASE)
_UNITS = {"": 1, "k": 1024, "m": 1024**2, "g": GIB, "t": 1024**4}


def parse_size(value: object) -> int:
    """``"8G"``, ``"512M"``, ``"16GiB"``, a number of bytes, or ``"unlimited"`` (0);
    :class:`ValueError` saying what is accepted."""
    if isinstance(value, bool):
        raise ValueError("a size such as \"8G\" or \"unlimited\"")
    if isinstance(value, int) and value >= 0:
        return value
    if isinstance(value, str):
        if value.strip().lower() == "unlimited":
            return UNLIMITED
        match = _SIZE.fullmatch(value.strip())
        if match:
            return int(float(match.group(1)) * _UNITS[match.group(2).lower()])
    raise ValueError("a size such as \"8G\", \"512M\" or \"unlimited\"")


def limits_from(table: Mapping[str, object], problems: list[str]) -> Limits:
    """The limits of the config's ``[sandbox]`` table; a bad value is said and its default kept."""
    default = default_limits()
    values = {"memory": default.memory, "processes": default.processes, "file_size": default.file_size}
    for key in values:
        if key not in table:
            continue
        raw = table[key]
        try:
            if key == "processes":
                if raw == "unlimited":
                    values[key] = UNLIMITED
                elif isinstance(raw, int) and not isinstance(raw, bool) and raw >= 0:
                    values[key] = raw
                else:
                    raise ValueError("a number of processes, or \"unlimited\"")
            else:
                values[key] = parse_size(raw)
        except ValueError as exc:
            problems.append(f"In the config file, [sandbox] {key} must be {exc}; the default was kept.")
    return Limits(**values)


def _size(n: int) -> str:
    return f"{n / GIB:.1f} GiB" if n >= GIB else f"{n // (1024 * 1024)} MiB"


_MEMORY = re.compile(r"x(?:m|re|c)alloc: cannot allocate|Cannot allocate memory|\bMemoryError\b|"
                     r"std::bad_alloc|out of memory|memory allocation failed|runtime: cannot allocate",
                     re.IGNORECASE)
_PROCESSES = re.compile(r"(fork|clone|thread)[^\n]{0,80}Resource temporarily unavailable|"
                        r"fork: retry|can't start new thread|pthread_create failed", re.IGNORECASE)
_FILE_SIZE = re.compile(r"File too large|File size limit exceeded")
_CPU = re.compile(r"CPU time limit exceeded")
SIGXCPU_EXIT = 128 + 24
SIGXFSZ_EXIT = 128 + 25


def limit_notes(output: str, code: int | None, limits: Limits, timeout: float) -> list[str]:
    """Which limit a command seems stopped by, and the setting that raises it (the output
    is the command's: a note it forges only adds a note)."""
    notes: list[str] = []
    how = "If the command is honest work, ask the user to raise it: "
    if limits.memory and _MEMORY.search(output):
        notes.append(f"[agent-shell: a process of this command ran out of memory: each may use "
                     f"{_size(limits.memory)} (half the machine's memory by default). A runaway (a huge "
                     f"brace expansion, an endless list) is stopped there. {how}"
                     "`[sandbox] memory = \"16G\"` in the config (or \"unlimited\").]")
    if limits.processes and _PROCESSES.search(output):
        notes.append(f"[agent-shell: this command could not start more processes: it may run "
                     f"{limits.processes:,} more than the system ran when it started. A fork bomb is stopped "
                     f"there. {how}`[sandbox] processes = 16384` in the config (or \"unlimited\").]")
    if limits.file_size and (code == SIGXFSZ_EXIT or _FILE_SIZE.search(output)):
        notes.append(f"[agent-shell: a file this command wrote reached the {_size(limits.file_size)} limit "
                     f"on one file and was cut there. {how}`[sandbox] file_size = \"64G\"` in the config (or "
                     "\"unlimited\").]")
    if code == SIGXCPU_EXIT or _CPU.search(output):
        notes.append(f"[agent-shell: a process of this command used its CPU time (the {timeout:g} s timeout "
                     "on each core) and was stopped. Give it a longer timeout, or split the work.]")
    return notes


__all__ = ["Limits", "default_limits", "limit_notes", "limits_from", "parse_size"]
