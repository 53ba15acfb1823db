"""Helpers for the command-line tests: an isolated environment and the CLI as a subprocess."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from tests.homes import made_home
from tests.scripted_cli import provider_free_env

from ..permissions.later_ws import GIT_ENV

RunCli = Callable[..., subprocess.CompletedProcess[str]]


@pytest.fixture
def cli_env(tmp_path: Path) -> dict[str, str]:
    """No provider, no user config, no user data: the CLI sees only what a test gives it."""
    env = provider_free_env(tmp_path)
    env.update(
        PYTHONUNBUFFERED="1",
    )
    env.pop("EDITOR", None)
    env.pop("VISUAL", None)
    return env


@contextmanager
def cli_home(cli_env: dict[str, str], prefix: str) -> Iterator[Path]:
    """A home outside /tmp (the sandbox's /tmp is its own) as the CLI's $HOME, with
    git's author set; removed after."""
    base = made_home(prefix)
    cli_env.update(HOME=str(base), **GIT_ENV)
    try:
        yield base
    finally:
        shutil.rmtree(base, ignore_errors=True)


@pytest.fixture
def run_cli(cli_env: dict[str, str], workspace: Path) -> RunCli:
    """Run ``python -m shell ARGS`` in its own session (so it has no terminal to ask on)."""

    def run(*args: str, stdin: str | None = None, timeout: float = 60) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-m", "shell", *args],
            input=stdin,
            stdin=None if stdin is not None else subprocess.DEVNULL,
            capture_output=True,
            text=True,
            cwd=workspace,
            env=cli_env,
            timeout=timeout,
            start_new_session=True,
        )

    return run


class Terminal:
    """The console script on a real pseudo-terminal (its controlling terminal), for
    what a user meets at a terminal: prompts, approvals, what is shown before asking."""

    def __init__(self, args: list[str], env: dict[str, str], cwd: Path, columns: int = 80) -> None:
        import fcntl
        import pty
        import struct
        import termios

        master, slave = pty.openpty()
        fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 30, columns, 0, 0))

        def controlling_terminal() -> None:
            os.setsid()
            fcntl.ioctl(0, termios.TIOCSCTTY, 0)

        self.proc = subprocess.Popen(
            [sys.executable, "-m", "shell", *args], stdin=slave, stdout=slave, stderr=slave, cwd=cwd,
            env={**env, "TERM": "xterm", "COLUMNS": str(columns)}, preexec_fn=controlling_terminal,
            close_fds=True,
        )
        os.close(slave)
        self.master = master
        self.raw = b""

    @property
    def text(self) -> str:
        """What was shown, escape sequences removed and lines unwrapped as printed."""
        import re

        text = self.raw.decode("utf-8", "replace")
        text = re.sub(r"\x1b\[[0-9;?]*[A-Za-z]|\x1b\][^\x07]*\x07|\x1b[=>()][0-9A-Za-z]?", "", text)
        return text.replace("\r", "")

    def expect(self, wanted: str, timeout: float = 30) -> None:
        import select
        import time

        deadline = time.monotonic() + timeout
        while wanted not in self.text:
            left = deadline - time.monotonic()
            if left <= 0:
                raise AssertionError(f"{wanted!r} not shown; the screen had:\n{self.text[-3000:]}")
            ready, _, _ = select.select([self.master], [], [], min(left, 0.2))
            if ready:
                try:
                    self.raw += os.read(self.master, 65536)
                except OSError:  # the program ended
                    if wanted not in self.text:
                        shown = self.text[-3000:]
                        raise AssertionError(f"{wanted!r} not shown before exit:\n{shown}") from None

    def send(self, text: str) -> None:
        os.write(self.master, text.encode())

    def close(self, timeout: float = 30) -> int:
        import select

        try:
            while True:
                ready, _, _ = select.select([self.master], [], [], timeout)
                if not ready:
                    break
                chunk = os.read(self.master, 65536)
                if not chunk:
                    break
                self.raw += chunk
        except OSError:
            pass
        code = self.proc.wait(timeout=timeout)
        os.close(self.master)
        return code


@pytest.fixture
def terminal(cli_env: dict[str, str], workspace: Path) -> Any:
    opened: list[Terminal] = []

    def start(*args: str, columns: int = 80) -> Terminal:
        t = Terminal(list(args), cli_env, workspace, columns)
        opened.append(t)
        return t

    yield start
    for t in opened:
        if t.proc.poll() is None:
            t.proc.kill()
            t.proc.wait()
