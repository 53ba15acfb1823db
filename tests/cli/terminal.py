"""A pseudo-terminal to drive ``agent-shell`` as a user does: type, wait for text, read
what was drawn (wide, so nothing the tests look for is wrapped)."""

from __future__ import annotations

import fcntl
import os
import pty
import select
import struct
import subprocess
import termios
import time
from pathlib import Path


class Terminal:
    def __init__(
        self, args: list[str], env: dict[str, str], cwd: Path, cols: int = 400, rows: int = 60
    ) -> None:
        self.leader, follower = pty.openpty()
        fcntl.ioctl(follower, termios.TIOCSWINSZ, struct.pack("HHHH", rows, cols, 0, 0))
        env = {**env, "COLUMNS": str(cols), "LINES": str(rows), "TERM": "xterm-256color"}
        self.proc = subprocess.Popen(args, stdin=follower, stdout=follower, stderr=follower, env=env, cwd=cwd)
        os.close(follower)
        self.raw = b""

    @property
    def text(self) -> str:
        return self.raw.decode("utf-8", errors="replace")

    def _pump(self, wait: float) -> bool:
        ready, _, _ = select.select([self.leader], [], [], wait)
        if not ready:
            return self.proc.poll() is None
        try:
            chunk = os.read(self.leader, 65536)
        except OSError:
            return False
        self.raw += chunk
        if b"\x1b[6n" in chunk:  # a cursor position request: answer as a terminal would
            os.write(self.leader, b"\x1b[1;1R")
        return True

    def wait_for(self, needle: str, timeout: float = 30, after: int = 0) -> int:
        """Read until ``needle`` was drawn (after byte ``after``); its position."""
        target = needle.encode()
        deadline = time.monotonic() + timeout
        while (at := self.raw.find(target, after)) < 0:
            if time.monotonic() > deadline or not self._pump(0.05):
                # which one: a process that is slow to draw, or one that ended
                why = f"it ended with exit code {self.proc.poll()}" if self.proc.poll() is not None \
                    else f"it was still running after {timeout:g} s"
                raise AssertionError(f"{needle!r} never came ({why}); the screen had:\n{self.text[-3000:]}")
        return at

    def type(self, keys: str) -> None:
        os.write(self.leader, keys.encode())

    def close(self, timeout: float = 15) -> int:
        deadline = time.monotonic() + timeout
        while self.proc.poll() is None and time.monotonic() < deadline:
            self._pump(0.05)
        if self.proc.poll() is None:
            self.proc.kill()
        code = self.proc.wait(timeout=5)
        while self._pump(0):
            pass
        os.close(self.leader)
        return code
