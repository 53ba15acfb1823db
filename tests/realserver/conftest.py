"""Fixtures for the real-server tests: one llama.cpp server per session, an isolated
home for each test, and the real ``agent-shell`` console script (as a subprocess,
or on a pseudo-terminal for ``--plain``)."""

from __future__ import annotations

import os
import re
import select
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from .llama import LlamaServer, gguf_path, llama_python

AGENT_SHELL = Path(sys.executable).parent / "agent-shell"
MAX_TOKENS = 40
"""Output cap for every test reply: the 135M model is fast, but nothing waits for 2048 tokens."""


@pytest.fixture
def llama(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LlamaServer]:
    """A fresh server per test. Shared across tests, llama-cpp-python's server keeps
    state from one request to the next (the evaluated prompt it reuses as a prefix):
    in full CI runs a forced tool call then came back empty, depending on which tests
    had asked before. Each test's answer must depend on its own requests only."""
    python = llama_python()
    log = tmp_path_factory.mktemp("llama") / "server.log"
    server = LlamaServer(python, gguf_path(python), log)
    server.start()
    yield server
    server.stop()


@pytest.fixture
def own_llama(tmp_path: Path) -> Iterator[LlamaServer]:
    """A server of this test's own, to kill and restart without disturbing the others."""
    python = llama_python()
    server = LlamaServer(python, gguf_path(python), tmp_path / "own-server.log")
    server.start()
    yield server
    server.stop()


class Home:
    """An isolated user: config dir, data dir, workspace, environment."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.config = root / "config"
        self.data = root / "data"
        self.workspace = root / "ws"
        for d in (self.config, self.data, self.workspace):
            d.mkdir(parents=True, exist_ok=True)
        self.env = {
            k: v
            for k, v in os.environ.items()
            if not k.startswith(("ANTHROPIC_", "OPENAI_", "AGENT_SHELL_", "OLLAMA_"))
        }
        self.env.update(
            AGENT_SHELL_CONFIG_DIR=str(self.config),
            XDG_DATA_HOME=str(self.data),
            AGENT_SHELL_DATA_DIR=str(self.data / "agent-shell"),
            OLLAMA_HOST="http://127.0.0.1:9",
            PYTHONUNBUFFERED="1",
            TERM="xterm-256color",
            COLUMNS="100",
            LINES="30",
        )
        self.env.pop("EDITOR", None)
        self.env.pop("VISUAL", None)

    def configure(self, base_url: str, **options: Any) -> None:
        """``[providers.llama]`` at ``base_url`` with no model named (the server's own is used)."""
        # min_tokens: SmolLM2-135M now and then ends a reply before its first token (an
        # empty answer, which the shell rightly reports as an error), depending on what
        # the server's prompt cache held from the test before; llama.cpp's server can
        # forbid that, so a test of the shell does not fail on the model's whim.
        opts = {"max_tokens": MAX_TOKENS, "temperature": 0.0, "extra_body": {"min_tokens": 1}, **options}
        shown = ", ".join(f"{k} = {_toml(v)}" for k, v in opts.items())
        (self.config / "config.toml").write_text(
            f'model = "llama"\n\n[providers.llama]\ntype = "openai"\nbase_url = "{base_url}"\n'
            f"options = {{ {shown} }}\n",
            encoding="utf-8",
        )

    def run(self, *args: str, timeout: float = 180, **kw: Any) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [str(AGENT_SHELL), *_steady(args)],
            cwd=self.workspace,
            env=self.env,
            capture_output=True,
            text=True,
            timeout=timeout,
            stdin=subprocess.DEVNULL,
            start_new_session=True,
            **kw,
        )

    def popen(self, *args: str) -> subprocess.Popen[str]:
        return subprocess.Popen(
            [str(AGENT_SHELL), *_steady(args)],
            cwd=self.workspace,
            env=self.env,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            start_new_session=True,
        )

    def terminal(self, *args: str) -> Terminal:
        return Terminal([str(AGENT_SHELL), *args], cwd=self.workspace, env=self.env)


def _toml(value: Any) -> str:
    if isinstance(value, dict):
        return "{ " + ", ".join(f"{k} = {_toml(v)}" for k, v in value.items()) + " }"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'
    return repr(value)


_ANSI = re.compile(
    r"\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b[()][0-9A-Za-z]|\x1b[=>78]"
)


class Terminal:
    """The program on a pseudo-terminal: what a user at a real terminal gets."""

    def __init__(self, argv: list[str], cwd: Path, env: dict[str, str]) -> None:
        import pty

        self.master, slave = pty.openpty()
        os.set_blocking(self.master, False)
        import fcntl
        import struct
        import termios

        fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 30, 100, 0, 0))

        def controlling_terminal() -> None:
            """A session of its own whose controlling terminal is the pty, so that
            Ctrl+C there sends SIGINT to the program, as at a real terminal."""
            os.setsid()
            fcntl.ioctl(0, termios.TIOCSCTTY, 0)

        self.proc = subprocess.Popen(
            argv,
            cwd=cwd,
            env=env,
            stdin=slave,
            stdout=slave,
            stderr=slave,
            close_fds=True,
            preexec_fn=controlling_terminal,
        )
        os.close(slave)
        self.raw = b""

    @property
    def text(self) -> str:
        return _ANSI.sub("", self.raw.decode("utf-8", "replace")).replace("\r", "")

    def pump(self, seconds: float = 0.05) -> None:
        ready, _, _ = select.select([self.master], [], [], seconds)
        if not ready:
            return
        while True:
            try:
                data = os.read(self.master, 65536)
            except (BlockingIOError, OSError):
                return
            if not data:
                return
            self.raw += data
            for _ in range(data.count(b"\x1b[6n")):  # answer cursor position requests, as terminals do
                os.write(self.master, b"\x1b[1;1R")

    def expect(self, pattern: str | Callable[[str], bool], timeout: float = 60.0, after: int = 0) -> float:
        """Wait until the screen text (from character ``after``) matches; returns when."""
        test = pattern if callable(pattern) else (lambda text: pattern in text)
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            self.pump()
            if test(self.text[after:]):
                return time.monotonic()
            if self.proc.poll() is not None:
                self.pump()
                if test(self.text[after:]):
                    return time.monotonic()
                break
        state = "still running" if self.proc.poll() is None else f"exited with {self.proc.returncode}"
        shown = self.text[-3000:]
        raise AssertionError(f"timed out waiting for {pattern!r} ({state}); the terminal shows:\n{shown}")

    def send(self, data: str) -> None:
        os.write(self.master, data.encode())

    def close(self) -> None:
        if self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGKILL)
            self.proc.wait(timeout=10)
        os.close(self.master)


@pytest.fixture
def home(tmp_path: Path) -> Home:
    return Home(tmp_path)


STEADY_SYSTEM = "You are a helpful assistant. Answer in one or two short sentences."


def _steady(args: tuple[str, ...]) -> tuple[str, ...]:
    """A headless run gets a fixed system prompt unless it names one. The default one
    holds today's date and the test's temporary workspace path, so the prompt changed
    from run to run, and now and then SmolLM2-135M answered it with nothing at all
    (an empty reply, which the shell rightly reports as an error): a test of the
    shell failed on the model's whim. At temperature 0 a fixed prompt gets a fixed
    answer. ``test_context_llama.py`` measures the default prompt itself."""
    if "-p" in args and "--system" not in args:
        return (*args, "--system", STEADY_SYSTEM)
    return args
