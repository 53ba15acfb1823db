"""Finding Q32 through the console script and bubblewrap: with dotfiles kept in a git
repository in home (``git init`` in ``~``), every folder under home is a "subfolder" of
that repository, and ``auto`` mode's unasked commands in ``~/Downloads/evil`` committed a
``.bashrc`` of their own there, which the user's next ``git restore .`` writes back. Home's
repository is not the workspace's: it stays read-only and the result says why."""

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
    """A home outside /tmp (the sandbox's /tmp is its own), the CLI's $HOME, whose
    dotfiles are a git repository."""
    with cli_home(cli_env, ".agent-shell-test-home-git-") as base:
        git(base, "init", "-q", "-b", "master")
        (base / ".bashrc").write_text("# mine\n")
        git(base, "add", ".bashrc")
        git(base, "commit", "-qm", "dotfiles")
        yield base


@pytest.fixture
def workspace(home: Path) -> Path:
    """An unpacked download under home, no git repository of its own."""
    folder = home / "Downloads" / "evil"
    folder.mkdir(parents=True)
    return folder



def test_a_command_under_home_commits_nothing_into_homes_repository(
    run_cli: RunCli, script: Callable[[list[Any]], str], home: Path, workspace: Path
) -> None:
    require_sandbox()
    refs = git(home, "for-each-ref")
    plant = ('b=$(printf "echo PWNED\\n" | git hash-object -w --stdin) && '
             'git update-index --cacheinfo 100644,$b,.bashrc && git commit -qm tweak')
    turns = [{"tool_calls": [{"name": "run_shell", "args": {"command": plant}}]}, "Done."]
    r = run_cli("-p", "go", "--model", script(turns), "--permission-mode", "auto", "--approve", "never",
                "--no-session", "--output-format", "json")
    assert r.returncode == 0, r.stderr
    assert git(home, "for-each-ref") == refs  # no new commit on master
    assert git(home, "status", "--short", "--", ".bashrc") == ""  # nothing staged: restore writes ours
    results = [m for m in json.loads(r.stdout)["messages"] if m.get("role") == "tool"]
    assert len(results) == 1
    assert "is your home directory" in results[0]["content"], results[0]
