"""The real console script in a pseudo-terminal, as a user's terminal runs it.

A benchmark that drives the TUI under Textual's pilot skips what a terminal adds:
the key reader thread (and its wait to tell a lone Esc from the start of an escape
sequence), the driver's hand-over to the event loop, and the writer thread that
puts each frame on the screen. :class:`TtyApp` starts ``python -m shell`` in a pty
of a given size, reads everything it writes (with the time each piece came), types
bytes into it and waits for a text to appear in what it wrote after a moment.

Only text the app writes in one piece is found (a word, a notice): the output is
Textual's screen updates, not a screen, so a text drawn across two updates is not.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import pty
import signal
import struct
import sys
import termios
import threading
import time
from collections.abc import Mapping, Sequence


class TtyApp:
    """``python -m shell ARGS`` in a pty of ``size`` (columns, rows) with ``env``."""

    def __init__(self, args: Sequence[str], env: Mapping[str, str], cwd: str,
                 size: tuple[int, int] = (120, 40)) -> None:
        pid, fd = pty.fork()
        if pid == 0:  # the child: the app, with the pty as its terminal
            try:
                os.chdir(cwd)
                os.execve(sys.executable, [sys.executable, "-m", "shell", *args],
                          {**env, "TERM": "xterm-256color"})
            finally:
                os._exit(127)
        self.pid, self.fd = pid, fd
        columns, rows = size
        fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", rows, columns, 0, 0))
        self._out = bytearray()
        self._arrivals: list[tuple[float, int]] = []  # (when, length of the output then)
        self._lock = threading.Lock()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        while True:
            try:
                data = os.read(self.fd, 65536)
            except OSError:  # the app exited (EIO on Linux)
                return
            if not data:
                return
            now = time.perf_counter()
            with self._lock:
                self._out.extend(data)
                self._arrivals.append((now, len(self._out)))

    @property
    def written(self) -> int:
        """How many bytes the app has written so far (a mark for :meth:`wait_for`)."""
        with self._lock:
            return len(self._out)

    def type(self, data: bytes) -> float:
        """Type ``data`` (one write, as a terminal sends a key); returns when."""
        sent = time.perf_counter()
        os.write(self.fd, data)
        return sent

    def wait_for(self, text: bytes, after: int = 0, timeout: float = 60.0) -> float | None:
        """When the app wrote ``text`` (``perf_counter``), looking only at what came
        after byte ``after``; None if it did not within ``timeout`` seconds."""
        deadline = time.perf_counter() + timeout
        while time.perf_counter() < deadline:
            with self._lock:
                at = self._out.find(text, after)
                if at >= 0:
                    end = at + len(text)
                    return next(t for t, n in self._arrivals if n >= end)
            time.sleep(0.002)
        return None

    def close(self) -> None:
        """Ctrl+Q, then make sure the process is gone."""
        with contextlib.suppress(OSError):
            os.write(self.fd, b"\x11")
        deadline = time.perf_counter() + 5
        while time.perf_counter() < deadline:
            done, _ = os.waitpid(self.pid, os.WNOHANG)
            if done:
                break
            time.sleep(0.05)
        else:
            with contextlib.suppress(ProcessLookupError):
                os.kill(self.pid, signal.SIGKILL)
            os.waitpid(self.pid, 0)
        with contextlib.suppress(OSError):
            os.close(self.fd)
