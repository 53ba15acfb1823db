"""What runs later, planted by a command that covers its tracks: the after-command
check must not trust what the command itself can set (a folder's mtime), and must
know a git directory by git's own rules, not by its name. Against the real bubblewrap."""

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

from ..sandboxing import require_sandbox

pytestmark = pytest.mark.anyio

GIT_ENV = {"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.org", "GIT_COMMITTER_NAME": "t",
           "GIT_COMMITTER_EMAIL": "t@example.org", "GIT_CONFIG_NOSYSTEM": "1"}


@pytest.fixture
def ws(monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A workspace outside /tmp (the sandbox's /tmp is private), the shell's data dir
    (where the quarantine goes) beside it."""
    base = Path(tempfile.mkdtemp(prefix=".agent-shell-test-forged-", dir=Path.home()))
    (base / "project").mkdir()
    monkeypatch.setenv("AGENT_SHELL_DATA_DIR", str(base / "data"))
    monkeypatch.setenv("HOME", str(base))
    for name, value in GIT_ENV.items():
        monkeypatch.setenv(name, value)
    try:
        yield base / "project"
    finally:
        shutil.rmtree(base, ignore_errors=True)


async def run(box: Sandbox, command: str) -> Any:
    return await run_command(command, box.workspace, 30, lambda _: None, sandbox=box)


def git(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True,
                          env={**os.environ, **GIT_ENV})


@pytest.mark.parametrize("plant, planted", [
    ("git init -q pkg/lib && printf '#!/bin/sh\\ntouch pwned\\n' > pkg/lib/.git/hooks/pre-commit "
     "&& chmod +x pkg/lib/.git/hooks/pre-commit", "pkg/lib/.git/hooks/pre-commit"),
    ("mkdir pkg/.vscode && echo '{}' > pkg/.vscode/tasks.json", "pkg/.vscode"),
])
async def test_a_folder_mtime_put_back_does_not_hide_what_was_planted(
        ws: Path, plant: str, planted: str) -> None:
    """Tester finding H21: the walk kept each folder's listing by its mtime, which
    ``touch -d`` puts back; a nested hook or .vscode planted that way stayed."""
    require_sandbox()
    (ws / "pkg").mkdir()
    old = 1_000_000_000
    os.utime(ws / "pkg", (old, old))
    box = Sandbox(ws)
    await run(box, "echo warmup")  # the walk has listed pkg/ by now
    result = await run(box, f"m=$(stat -c %Y pkg); {plant} && touch -d @$m pkg && echo planted")
    assert "planted" in result.text
    assert not (ws / planted).exists()
    assert planted in result.text and "moved out of the workspace" in result.text
