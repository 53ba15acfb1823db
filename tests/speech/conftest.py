"""Fixtures for the speech engines: real espeak-ng and a real aimock server.

Both are external programs. Missing, their tests skip locally but fail under
``CI=true`` (CI installs them with ``.ci/setup.d/espeak.sh`` and ``aimock.sh``),
so CI never passes by skipping.
"""

from __future__ import annotations

import base64
import json
import os
import socket
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from shell.speech import find_espeak

ROOT = Path(__file__).resolve().parents[2]


def missing(what: str) -> None:
    if os.environ.get("CI", "").lower() == "true":
        pytest.fail(f"{what} (CI must not skip this)")
    pytest.skip(what)


@pytest.fixture
def espeak() -> str:
    binary = find_espeak()
    if binary is None:
        missing("espeak-ng is not installed: run .ci/setup.d/espeak.sh")
    assert binary is not None
    return binary


def tiny_wav() -> bytes:
    """A 10 ms 16 kHz mono WAV: what the aimock fixture answers with."""
    import io
    import wave

    out = io.BytesIO()
    with wave.open(out, "wb") as w:
        w.setnchannels(1)
        w.setsampwidth(2)
        w.setframerate(16000)
        w.writeframes(b"\x01\x00" * 160)
    return out.getvalue()


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture(scope="module")
def aimock(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """aimock serving ``/v1/audio/speech`` from a fixture; yields its base URL."""
    binary = Path(os.environ.get("AIMOCK_BIN") or ROOT / ".ci/node/node_modules/.bin/llmock")
    if not binary.exists():
        missing("aimock is not installed: run .ci/setup.d/aimock.sh (or set AIMOCK_BIN)")
    audio = base64.b64encode(tiny_wav()).decode()
    fixtures = tmp_path_factory.mktemp("aimock") / "speech.json"
    fixtures.write_text(
        json.dumps(
            {
                "fixtures": [
                    {
                        "match": {"userMessage": "Hello from the speech test."},
                        "response": {"audio": audio, "format": "wav"},
                    }
                ]
            }
        )
    )
    port = _free_port()
    args = [str(binary), "-p", str(port), "-h", "127.0.0.1", "-f", str(fixtures), "--log-level", "warn"]
    proc = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
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
