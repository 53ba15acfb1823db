"""The workspace the runs-later tests share: outside /tmp (the sandbox's /tmp is
private), the shell's data dir (where the quarantine goes) beside it, a git identity."""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

GIT_ENV = {"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.org", "GIT_COMMITTER_NAME": "t",
           "GIT_COMMITTER_EMAIL": "t@example.org", "GIT_CONFIG_NOSYSTEM": "1"}


def later_workspace(monkeypatch: pytest.MonkeyPatch, prefix: str) -> Iterator[Path]:
    """For a fixture to ``yield from``: the project folder, removed with its home after."""
    base = Path(tempfile.mkdtemp(prefix=prefix, dir=Path.home()))
    (base / "project").mkdir()
    monkeypatch.setenv("AGENT_SHELL_DATA_DIR", str(base / "data"))
    monkeypatch.setenv("HOME", str(base))
    for name, value in GIT_ENV.items():
        monkeypatch.setenv(name, value)
    try:
        yield base / "project"
    finally:
        shutil.rmtree(base, ignore_errors=True)
