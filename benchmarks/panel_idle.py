"""Idle CPU of the TUI with the middleware panel (F2) open, against the panel closed.

Why: a shell left open at "ready" must cost nothing, whatever is on screen (a
laptop's battery, a shared machine). The panel's live stats once re-laid out every
row four times a second: ~30% of a core with nothing happening (finding F1).

The real ``agent-shell --model demo`` runs on a pseudo-terminal (120x40, the
default middleware stack). After it is ready and has settled, the CPU time of all
its threads (``/proc/PID/task/*/schedstat``) is read over ``--seconds`` with the
panel closed, then F2 is pressed and, once the panel has settled, over the same
time with it open. Also timed: F2 until "Loading…" and until the first row's stats
line reach the terminal (the panel once showed an empty frame for up to 2 s).

    python benchmarks/panel_idle.py [--seconds 20] [--against DIR]

``--against DIR`` measures another checkout too (``PYTHONPATH=DIR``, e.g. a
``git worktree`` of main), one after the other in the same run.
"""

from __future__ import annotations

import argparse
import contextlib
import fcntl
import os
import pty
import re
import select
import signal
import struct
import subprocess
import sys
import tempfile
import termios
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
F2 = b"\x1bOQ"
ANSI = re.compile(rb"\x1b\[[0-9;?]*[A-Za-z]")


def cpu_seconds(pid: int) -> float:
    """CPU time of every live thread of ``pid`` so far (/proc schedstat, in ns)."""
    total = 0
    for task in os.listdir(f"/proc/{pid}/task"):
        with contextlib.suppress(OSError), open(f"/proc/{pid}/task/{task}/schedstat") as f:
            total += int(f.read().split()[0])
    return total / 1e9


class Terminal:
    """A child on a pseudo-terminal whose output is read (and dropped) as it comes,
    so it never blocks on a full pty; ``seen`` keeps what arrived since ``mark``."""

    def __init__(self, args: list[str], env: dict[str, str], cwd: str) -> None:
        self.leader, follower = pty.openpty()
        fcntl.ioctl(follower, termios.TIOCSWINSZ, struct.pack("HHHH", 40, 120, 0, 0))
        self.proc = subprocess.Popen(
            args, stdin=follower, stdout=follower, stderr=follower, env=env, cwd=cwd, start_new_session=True
        )
        os.close(follower)
        self.seen = b""

    def pump(self, seconds: float, marker: bytes | None = None, *also: bytes) -> float | None:
        """Read output for up to ``seconds``; with ``marker``, stop when it shows and
        give the time it took (None: it never came). ``also``: markers whose first
        appearance is noted in ``self.times`` on the way."""
        start = time.perf_counter()
        self.times: dict[bytes, float] = {}
        while (left := seconds - (time.perf_counter() - start)) > 0:
            ready, _, _ = select.select([self.leader], [], [], min(left, 0.05))
            if ready:
                try:
                    chunk = os.read(self.leader, 65536)
                except OSError:
                    break
                if b"\x1b[6n" in chunk:  # answer a cursor-position query, as a terminal would
                    os.write(self.leader, b"\x1b[1;1R")
                self.seen = (self.seen + chunk)[-200_000:]
                plain = ANSI.sub(b"", self.seen)
                for other in also:
                    if other not in self.times and other in plain:
                        self.times[other] = time.perf_counter() - start
                if marker is not None and marker in plain:
                    return time.perf_counter() - start
            if self.proc.poll() is not None:
                raise RuntimeError(f"the shell exited: {self.seen[-400:]!r}")
        return None

    def press(self, keys: bytes) -> None:
        self.seen = b""
        os.write(self.leader, keys)

    def close(self) -> None:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self.proc.pid, signal.SIGKILL)
        self.proc.wait()
        os.close(self.leader)


def measure(seconds: float, pythonpath: str | None) -> dict[str, float]:
    with tempfile.TemporaryDirectory() as tmp:
        dropped = ("ANTHROPIC_", "OPENAI_", "AGENT_SHELL_", "PYTHONDONTWRITEBYTECODE")
        env = {k: v for k, v in os.environ.items() if not k.startswith(dropped)}
        env.update(
            AGENT_SHELL_CONFIG_DIR=f"{tmp}/config", AGENT_SHELL_DATA_DIR=f"{tmp}/data",
            XDG_DATA_HOME=f"{tmp}/xdg", HOME=tmp, TERM="xterm-256color",
        )
        if pythonpath:
            env["PYTHONPATH"] = pythonpath
        term = Terminal([sys.executable, "-m", "shell", "--model", "demo", "--no-session"], env, tmp)
        try:
            if term.pump(60, b"Welcome") is None:
                raise RuntimeError(f"the TUI did not start: {term.seen[-400:]!r}")
            term.pump(3)  # startup's deferred work settles
            before = cpu_seconds(term.proc.pid)
            term.pump(seconds)
            closed = cpu_seconds(term.proc.pid) - before
            term.press(F2)
            rows = term.pump(30, b"0 calls", b"Loading")
            loading = term.times.get(b"Loading", -1.0)
            term.pump(2)
            before = cpu_seconds(term.proc.pid)
            term.pump(seconds)
            opened = cpu_seconds(term.proc.pid) - before
        finally:
            term.close()
    return {"closed": closed / seconds, "open": opened / seconds, "rows_s": -1.0 if rows is None else rows,
            "loading_s": loading}


def report(label: str, got: dict[str, float]) -> None:
    ratio = got["open"] / max(got["closed"], 0.001)
    rows = "never" if got["rows_s"] < 0 else f"{got['rows_s'] * 1000:.0f} ms"
    loading = "-" if got["loading_s"] < 0 else f"{got['loading_s'] * 1000:.0f} ms"
    print(
        f"{label:<8} idle CPU, panel closed {got['closed'] * 100:5.1f}% of a core,"
        f" open {got['open'] * 100:5.1f}%"
        f"  (open/closed {ratio:.1f}x; closed floored at 0.1%)\n"
        f"{'':<8} F2 to 'Loading…': {loading}, to the first row: {rows}"
    )


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=20.0, help="length of each idle window")
    parser.add_argument("--against", type=Path, help="another checkout to measure in the same run")
    args = parser.parse_args()
    print(f"load average before: {os.getloadavg()[0]:.1f}")
    report("this", measure(args.seconds, str(ROOT)))
    if args.against:
        report("other", measure(args.seconds, str(args.against.resolve())))
    print(f"load average after: {os.getloadavg()[0]:.1f}")
