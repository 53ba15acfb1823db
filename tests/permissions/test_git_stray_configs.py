"""A config left in ``.git/modules/<name>/`` or ``.git/worktrees/<name>/`` that is not a
whole git directory (no ``HEAD``, no ``objects/``) is still shown to a sandboxed command
without the token in its remote URL: it was readable as it was (tester finding L3)."""

from __future__ import annotations

import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from shell.permissions.sandbox import Sandbox
from shell.tools.shell_cmd import run_command
from tests.homes import made_home

from ..sandboxing import require_sandbox

pytestmark = pytest.mark.anyio

TOKEN = "ghp_" + "Z9y8X7w6V5u4T3s2R1q0P9o8N7m6L5k4J3i2"


@pytest.fixture
def ws(monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    base = made_home(".agent-shell-test-straycfg-")
    monkeypatch.setenv("HOME", str(base))
    monkeypatch.setenv("AGENT_SHELL_DATA_DIR", str(base / "data"))
    monkeypatch.delenv("XDG_CONFIG_HOME", raising=False)
    root = base / "project"
    root.mkdir()
    subprocess.run(["git", "init", "-q"], cwd=root, check=True, capture_output=True)
    try:
        yield root
    finally:
        shutil.rmtree(base, ignore_errors=True)


@pytest.mark.parametrize("where", ["modules/lib/config", "modules/vendor/lib/config",
                                   "worktrees/wt/config.worktree", "worktrees/wt/config"])
async def test_a_stray_config_in_modules_or_worktrees_is_shown_without_its_token(
    ws: Path, where: str
) -> None:
    require_sandbox()
    stray = ws / ".git" / where
    stray.parent.mkdir(parents=True)
    text = f'[remote "origin"]\n\turl = https://octocat:{TOKEN}@github.com/octo/lib.git\n'
    stray.write_text(text)
    box = Sandbox(ws)
    result = await run_command(f"cat .git/{where}", ws, 30, lambda _: None, sandbox=box)
    assert "github.com/octo/lib.git" in result.text, result.text
    assert TOKEN not in result.text
    assert stray.read_text() == text  # the user's file keeps its token: git still needs it
