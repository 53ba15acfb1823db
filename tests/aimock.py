"""aimock (npm ``@copilotkit/aimock``, binary ``llmock``): a mock LLM server written by
others, started on 127.0.0.1 by the tests that check real wire formats against it.

Missing, the tests skip locally and fail under ``CI=true`` (.ci/setup.d/aimock.sh
installs it), so CI never passes by skipping.
"""

from __future__ import annotations

import os
import socket
import subprocess
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx
import pytest

ROOT = Path(__file__).resolve().parent.parent


def llmock_bin() -> Path:
    """The binary, or skip (locally) / fail (CI) saying how to install it."""
    binary = Path(os.environ.get("AIMOCK_BIN") or ROOT / ".ci/node/node_modules/.bin/llmock")
    if not binary.exists():
        message = "aimock is not installed: run .ci/setup.d/aimock.sh (or set AIMOCK_BIN)"
        if os.environ.get("CI", "").lower() == "true":
            pytest.fail(message)
        pytest.skip(message)
    return binary


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@contextmanager
def run_aimock(fixtures: Path, *extra: str) -> Iterator[str]:
    """aimock serving ``fixtures`` on a free port until the block ends; its base URL."""
    port = free_port()
    args = [str(llmock_bin()), "-p", str(port), "-h", "127.0.0.1", "-f", str(fixtures), *extra]
    proc = subprocess.Popen([*args, "--log-level", "warn"], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 20
        while True:
            try:
                if httpx.get(f"{url}/health", timeout=0.5).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            if proc.poll() is not None or time.monotonic() > deadline:
                err = proc.stderr.read().decode() if proc.stderr and proc.poll() is not None else ""
                pytest.fail(f"aimock did not start on {url}: {err}")
            time.sleep(0.1)
        yield url
    finally:
        proc.terminate()
        try:
            proc.wait(5)
        except subprocess.TimeoutExpired:
            proc.kill()
