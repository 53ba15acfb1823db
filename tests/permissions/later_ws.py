"""The workspace the runs-later tests share: outside /tmp (the sandbox's /tmp is
private) unless a test asks for it there, the shell's data dir (where the quarantine
goes) beside it, a git identity."""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from shell.permissions.sandbox import Sandbox
from shell.tools.shell_cmd import run_command
from tests.homes import homes_root

GIT_ENV = {"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.org", "GIT_COMMITTER_NAME": "t",
           "GIT_COMMITTER_EMAIL": "t@example.org", "GIT_CONFIG_NOSYSTEM": "1"}


def later_workspace(
    monkeypatch: pytest.MonkeyPatch, prefix: str, under: Path | None = None
) -> Iterator[Path]:
    """For a fixture to ``yield from``: the project folder, removed with its home after
    (in the home directory, away from the secret search's: :mod:`tests.homes`; or in ``under``)."""
    base = Path(tempfile.mkdtemp(prefix=prefix, dir=under or homes_root()))
    (base / "project").mkdir()
    monkeypatch.setenv("AGENT_SHELL_DATA_DIR", str(base / "data"))
    monkeypatch.setenv("HOME", str(base))
    for name, value in GIT_ENV.items():
        monkeypatch.setenv(name, value)
    try:
        yield base / "project"
    finally:
        shutil.rmtree(base, ignore_errors=True)


def git(cwd: Path, *args: str) -> str:
    """Run git as the user would (outside the sandbox); its output, failing loudly."""
    return subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True, text=True,
                          env={**os.environ, **GIT_ENV}).stdout


async def sh(ws: Path, command: str) -> Any:
    """Run ``command`` as run_shell does, in a fresh sandbox of ``ws``."""
    box = Sandbox(ws)
    return await run_command(command, box.workspace, 30, lambda _: None, sandbox=box)
