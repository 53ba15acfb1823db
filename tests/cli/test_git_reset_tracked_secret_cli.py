"""Finding Y8 through the console script, real bubblewrap and real git: in a repository
that tracks a secret-looking file holding no values (``.env`` with ``DEBUG=1``, shown in
the sandbox as git's staged copy, read-only), ``git reset --hard HEAD~1`` failed
half-way ("unable to unlink old '.env': Device or resource busy"): the commit's file
deleted, HEAD and the index unmoved, nothing said. ``git restore .`` and a plain ``git
reset --hard`` failed the same way though ``.env`` was not theirs to change. Git now
leaves the file alone when the command keeps its version; one that must write another
version still stops at it, and the result names the file, why, and what git changed."""

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
def workspace(cli_env: dict[str, str]) -> Iterator[Path]:
    """main: .env + a.txt, then imp.txt; b2 (from the first commit) changes .env, adds b.txt."""
    with cli_home(cli_env, ".agent-shell-test-reset-secret-") as base:
        ws = base / "projects" / "proj"
        ws.mkdir(parents=True)
        git(ws, "init", "-q", "-b", "main")
        (ws / ".env").write_text("DEBUG=1\n")
        (ws / "a.txt").write_text("main\n")
        git(ws, "add", "-f", ".env", "a.txt")
        git(ws, "commit", "-qm", "main")
        git(ws, "checkout", "-qb", "b2")
        (ws / ".env").write_text("DEBUG=2\n")
        (ws / "b.txt").write_text("b2\n")
        git(ws, "add", "-f", ".")
        git(ws, "commit", "-qm", "b2")
        git(ws, "checkout", "-q", "main")
        (ws / "imp.txt").write_text("important\n")
        git(ws, "add", "imp.txt")
        git(ws, "commit", "-qm", "important")
        yield ws


def run(run_cli: RunCli, script: Callable[[list[Any]], str], command: str) -> str:
    turns = [{"tool_calls": [{"name": "run_shell", "args": {"command": command}}]}, "Done."]
    r = run_cli("-p", "go", "--model", script(turns), "--permission-mode", "auto", "--approve", "never",
                "--no-session", "--output-format", "json", timeout=120)
    assert r.returncode == 0, r.stderr
    messages = json.loads(r.stdout.splitlines()[-1])["messages"]
    results = [m["content"] for m in messages if m.get("role") == "tool"]
    assert len(results) == 1, results
    return str(results[0])


def subjects(ws: Path) -> list[str]:
    return git(ws, "log", "--format=%s").split()


def test_reset_hard_to_a_commit_with_the_same_env_works(
    run_cli: RunCli, script: Callable[[list[Any]], str], workspace: Path
) -> None:
    require_sandbox()
    text = run(run_cli, script, "git reset -q --hard HEAD~1; echo rc=$?")
    assert "rc=0" in text and "unable to unlink" not in text, text
    assert subjects(workspace) == ["main"] and git(workspace, "status", "--porcelain") == ""
    assert not (workspace / "imp.txt").exists() and (workspace / ".env").read_text() == "DEBUG=1\n"


def test_discarding_edits_leaves_the_env_alone(
    run_cli: RunCli, script: Callable[[list[Any]], str], workspace: Path
) -> None:
    require_sandbox()
    text = run(run_cli, script, "echo x > a.txt; git restore .; echo rc=$?; echo y > a.txt; "
                                "git reset -q --hard; echo rc=$?")
    assert text.count("rc=0") == 2 and "unable to unlink" not in text, text
    assert git(workspace, "status", "--porcelain") == "" and (workspace / "a.txt").read_text() == "main\n"


def test_a_reset_that_must_change_the_env_says_why_it_stopped_and_what_it_changed(
    run_cli: RunCli, script: Callable[[list[Any]], str], workspace: Path
) -> None:
    require_sandbox()
    text = run(run_cli, script, "git reset -q --hard b2; echo rc=$?")
    assert "rc=128" in text and "git could not replace .env" in text, text
    assert "HEAD and the index stayed where they were" in text and "D imp.txt" in text, text
    assert subjects(workspace) == ["important", "main"]  # git's own state, as the note says
    assert (workspace / ".env").read_text() == "DEBUG=1\n"
