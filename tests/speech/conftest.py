"""Fixtures for the speech engines: real espeak-ng and a real aimock server.

Both are external programs. Missing, their tests skip locally but fail under
``CI=true`` (CI installs them with ``.ci/setup.d/espeak.sh`` and ``aimock.sh``),
so CI never passes by skipping.
"""

from __future__ import annotations

import base64
import json
import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from shell.speech import find_espeak
from tests.aimock import run_aimock

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


@pytest.fixture(scope="module")
def aimock(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """aimock serving ``/v1/audio/speech`` from a fixture; yields its base URL."""
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
    with run_aimock(fixtures) as url:
        yield url
