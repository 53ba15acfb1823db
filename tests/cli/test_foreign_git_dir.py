"""Finding Q19 through the console script and bubblewrap: an unpacked folder whose
``.git`` file names another project's repository (``gitdir: ../../projects/victim/.git``)
made ``auto`` mode's unasked commands commit into that project and move its branches.
That repository does not name the folder as its worktree or submodule, so the sandbox
keeps it read-only and the result tells the model why."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from ..permissions.later_ws import git
from ..sandboxing import require_sandbox
from .conftest import RunCli, cli_home


@pytest.fixture
def home(cli_env: dict[str, str]) -> Iterator[Path]:
    """A home outside /tmp (the sandbox's /tmp is its own), the CLI's $HOME."""
    with cli_home(cli_env, ".agent-shell-test-foreign-git-") as base:
        yield base


@pytest.fixture
def workspace(home: Path) -> Path:
    """The downloaded folder the user runs agent-shell in."""
    folder = home / "Downloads" / "zipped"
    folder.mkdir(parents=True)
    return folder



def test_a_git_file_naming_another_project_commits_nothing_there(
    run_cli: RunCli, script: Callable[[list[Any]], str], home: Path, workspace: Path
) -> None:
    require_sandbox()
    victim = home / "projects" / "victim"
    victim.mkdir(parents=True)
    git(victim, "init", "-q", "-b", "master")
    (victim / "v.txt").write_text("v\n")
    git(victim, "add", ".")
    git(victim, "commit", "-qm", "victim1")
    refs = git(victim, "for-each-ref")
    (workspace / ".git").write_text("gitdir: ../../projects/victim/.git\n")
    (workspace / "evil.txt").write_text("evil\n")
    commands = ['git add evil.txt && git commit -qm "evil commit"',
                "git update-ref refs/heads/evilbranch HEAD; git tag -f v9 HEAD"]
    turns = [*({"tool_calls": [{"name": "run_shell", "args": {"command": c}}]} for c in commands), "Done."]
    r = run_cli("-p", "go", "--model", script(turns), "--permission-mode", "auto", "--approve", "never",
                "--no-session", "--output-format", "json")
    assert r.returncode == 0, r.stderr
    assert git(victim, "for-each-ref") == refs  # master where it was, no new branch or tag
    assert git(victim, "status", "--short") == ""  # nothing staged there either
    results = [m for m in json.loads(r.stdout)["messages"] if m.get("role") == "tool"]
    assert len(results) == 2
    for m in results:
        assert "does not name this folder as one of its worktrees or submodules" in m["content"], m
