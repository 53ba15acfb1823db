"""A workspace whose git directory lies outside it (a linked worktree, a subfolder of a
repository), against the real bubblewrap: sandboxed commands (unasked in auto mode) do
not read the repository's credentials."""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from shell.permissions.sandbox import Sandbox
from shell.tools.shell_cmd import run_command

from ..sandboxing import require_sandbox

pytestmark = pytest.mark.anyio

TOKEN = "ghp_" + "Z9y8X7w6V5u4T3s2R1q0P9o8N7m6L5k4J3i2"
HEADER = "Authorization: Bearer WORKTREEHEADER123"
ENV = {"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.org", "GIT_COMMITTER_NAME": "t",
       "GIT_COMMITTER_EMAIL": "t@example.org", "GIT_CONFIG_NOSYSTEM": "1"}
SHOW = "git remote -v; git config --get http.extraHeader; git config --list --show-origin; cat {config}"


@pytest.fixture
def home(monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    base = Path(tempfile.mkdtemp(prefix=".agent-shell-test-gitoutside-", dir=Path.home()))
    monkeypatch.setenv("HOME", str(base))
    monkeypatch.setenv("AGENT_SHELL_DATA_DIR", str(base / "data"))
    monkeypatch.delenv("XDG_CONFIG_HOME", raising=False)
    for name, value in ENV.items():
        monkeypatch.setenv(name, value)
    try:
        yield base
    finally:
        shutil.rmtree(base, ignore_errors=True)


def git(cwd: Path, *args: str) -> str:
    done = subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True, text=True,
                          env={**os.environ, **ENV})
    return done.stdout


def repository(home: Path) -> Path:
    repo = home / "repo"
    (repo / "pkg").mkdir(parents=True)
    git(repo, "init", "-q", "-b", "main")
    git(repo, "remote", "add", "origin", f"https://x-access-token:{TOKEN}@github.com/o/r.git")
    (repo / "pkg" / "a.txt").write_text("a\n")
    (repo / "README.md").write_text("readme\n")
    git(repo, "add", ".")
    git(repo, "commit", "-qm", "init")
    git(repo, "config", "extensions.worktreeConfig", "true")
    return repo


async def run(box: Sandbox, command: str) -> str:
    result = await run_command(command, box.workspace, 30, lambda _: None, sandbox=box)
    return result.text


async def test_a_linked_worktree_shows_no_credentials(home: Path) -> None:
    require_sandbox()
    repo = repository(home)
    wt = home / "feature"
    git(repo, "worktree", "add", "-q", str(wt), "-b", "feature")
    git(wt, "config", "--worktree", "http.extraHeader", HEADER)
    common = repo / ".git"
    config, worktree_config = (common / "config").read_text(), (common / "worktrees" / "feature" /
                                                                 "config.worktree").read_text()
    box = Sandbox(wt)

    shown = await run(box, SHOW.format(config=common / "config") + "; cat .git")
    assert TOKEN not in shown and "WORKTREEHEADER123" not in shown, shown
    assert "https://github.com/o/r.git" in shown  # the remote is still there, without its user part

    assert (common / "config").read_text() == config  # the user's files are as they were
    assert (common / "worktrees" / "feature" / "config.worktree").read_text() == worktree_config


async def test_a_subfolder_of_a_repository_shows_no_credentials(home: Path) -> None:
    require_sandbox()
    repo = repository(home)
    git(repo, "config", "--worktree", "http.extraHeader", HEADER)
    config = (repo / ".git" / "config").read_text()
    box = Sandbox(repo / "pkg")

    shown = await run(box, SHOW.format(config="../.git/config") + "; cat ../.git/config.worktree")
    assert TOKEN not in shown and "WORKTREEHEADER123" not in shown, shown
    assert "https://github.com/o/r.git" in shown

    assert (repo / ".git" / "config").read_text() == config
