"""Whether ``run_shell`` commands can be sandboxed here: one probe of bubblewrap per
process (can it make namespaces?), started ahead while the shell builds, and what to
tell the user when it cannot.

Apart from :mod:`.sandbox` (the walls) because the start-up path needs only this,
and one answer serves the runtime, the policy and every ``Sandbox``.
"""

from __future__ import annotations

import contextlib
import functools
import subprocess
import sys
from dataclasses import dataclass

from shell.core.programs import host_environment, which

INSTALL_HINT = (
    "install bubblewrap (Debian/Ubuntu: sudo apt install bubblewrap; Fedora: sudo dnf install "
    "bubblewrap; Arch: sudo pacman -S bubblewrap)"
)


@dataclass(frozen=True, slots=True)
class SandboxStatus:
    """Whether commands can be sandboxed here; if not, why, and what would help."""

    available: bool
    reason: str = ""
    hint: str = ""

    def notice(self) -> str:
        """One line for the user (empty when the sandbox works)."""
        if self.available:
            return ""
        tail = f"; {self.hint}" if self.hint else ""
        return f"run_shell has no sandbox: {self.reason}, so every command asks first{tail}."


_ahead: subprocess.Popen[str] | None = None


def probe_ahead() -> None:
    """Start the probe of :func:`sandbox_status` now, so that bubblewrap makes its
    namespaces (10-20 ms, in a process of its own, on another core) while the
    caller goes on building; the first ``sandbox_status()`` then reads its answer.
    Only the start is done here: a thread waiting on it would need the GIL at
    every step, which a thread busy importing holds 5 ms at a time. Once per process."""
    global _ahead
    if _ahead is not None or _probe.cache_info().currsize or not sys.platform.startswith("linux"):
        return
    path = which("bwrap")
    if path is None:
        return
    with contextlib.suppress(OSError):  # the probe proper then says why
        _ahead = subprocess.Popen(_probe_command(path), stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                  stderr=subprocess.PIPE, text=True, env=host_environment())


def sandbox_status(bwrap: str | None = None) -> SandboxStatus:
    """Probe once per process: is there a bwrap that can make namespaces here?"""
    return _probe(bwrap)


def _probe_command(bwrap: str) -> list[str]:
    return [bwrap, "--die-with-parent", "--unshare-all", "--ro-bind", "/", "/", "--dev", "/dev",
            "--proc", "/proc", "--", "/bin/true"]  # fmt: skip


@functools.cache
def _probe(bwrap: str | None = None) -> SandboxStatus:
    global _ahead
    if not sys.platform.startswith("linux"):
        return SandboxStatus(False, f"there is no sandbox for {sys.platform} yet")
    path = bwrap or which("bwrap")
    if path is None:
        return SandboxStatus(False, "bubblewrap (bwrap) is not installed", INSTALL_HINT)
    started, _ahead = (_ahead, None) if bwrap is None else (None, _ahead)
    try:
        if started is not None:
            try:
                _, stderr = started.communicate(timeout=10)
            except subprocess.TimeoutExpired:
                started.kill()
                started.communicate()
                raise
            returncode = started.returncode
        else:
            done = subprocess.run(_probe_command(path), capture_output=True, text=True, timeout=10,
                                  stdin=subprocess.DEVNULL, env=host_environment())
            returncode, stderr = done.returncode, done.stderr
    except (OSError, subprocess.TimeoutExpired) as exc:
        return SandboxStatus(False, f"bubblewrap could not be started ({exc})")
    if returncode != 0:
        said = (stderr.strip().splitlines() or ["no message"])[-1]
        return SandboxStatus(
            False,
            f"bubblewrap cannot create namespaces here ({said})",
            "allow unprivileged user namespaces (e.g. sysctl kernel.unprivileged_userns_clone=1, or an "
            "AppArmor profile for bwrap), or run outside this container",
        )
    return SandboxStatus(True)


def sandbox_available() -> bool:
    """Whether ``run_shell`` commands run inside bubblewrap on this machine."""
    return sandbox_status().available


def will_sandbox(command: str, network: bool = False) -> bool:
    """Whether ``run_shell`` would confine this command: bubblewrap works here and
    the call did not ask for the network (``auto`` mode runs such calls unasked)."""
    return sandbox_available() and not network


__all__ = ["INSTALL_HINT", "SandboxStatus", "probe_ahead", "sandbox_available", "sandbox_status",
           "will_sandbox"]
