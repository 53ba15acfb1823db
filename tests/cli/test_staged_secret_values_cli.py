"""Finding Q23 through the console script and bubblewrap: a tracked ``.env`` reads in the
sandbox as git has it staged (so ``git status`` sees it unchanged), but the values net
knew only the file's current values. A key committed, then changed in the file for this
machine, printed as committed from an unasked ``grep -rh KEY ~/projects/p2`` in another
project, and from ``grep -r KEY .`` in the workspace itself. The staged copy's values
are hidden values too: redacted, and the result says so."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from ..permissions.later_ws import git
from ..sandboxing import require_sandbox
from .conftest import RunCli, cli_home

OLD = "OldCommittedKey7Xq9Lm2Pv4"
NEW = "NewLocalKey3Ab8Cd1Ef6Gh"


@pytest.fixture
def home(cli_env: dict[str, str]) -> Iterator[Path]:
    """A home outside /tmp (the sandbox's /tmp is its own), the CLI's $HOME."""
    with cli_home(cli_env, ".agent-shell-test-staged-values-") as base:
        yield base


@pytest.fixture
def workspace(home: Path) -> Path:
    folder = home / "projects" / "proj"
    folder.mkdir(parents=True)
    return folder


def committed_then_changed(repo: Path) -> None:
    """``repo`` with a ``.env`` committed holding :data:`OLD`, changed (not staged) to :data:`NEW`."""
    repo.mkdir(parents=True, exist_ok=True)
    git(repo, "init", "-q", "-b", "main")
    (repo / ".env").write_text(f"STRIPE_SECRET_KEY={OLD}\n")
    (repo / "app.py").write_text("print('hi')\n")
    git(repo, "add", ".")
    git(repo, "commit", "-qm", "init")
    (repo / ".env").write_text(f"STRIPE_SECRET_KEY={NEW}\n")


def outputs(run_cli: RunCli, script: Callable[[list[Any]], str], command: str) -> str:
    turns = [{"tool_calls": [{"name": "run_shell", "args": {"command": command}}]}, "Done."]
    r = run_cli("-p", "go", "--model", script(turns), "--permission-mode", "auto", "--approve", "never",
                "--no-session", "--output-format", "json")
    assert r.returncode == 0, r.stderr
    results = [m["content"] for m in json.loads(r.stdout)["messages"] if m.get("role") == "tool"]
    assert len(results) == 1, results
    return str(results[0])


def test_another_projects_committed_key_is_redacted_when_the_file_has_changed(
    run_cli: RunCli, script: Callable[[list[Any]], str], home: Path
) -> None:
    require_sandbox()
    committed_then_changed(home / "projects" / "p2")
    text = outputs(run_cli, script, "grep -rh KEY ~/projects/p2; echo end")
    assert OLD not in text and NEW not in text, text
    assert "STRIPE_SECRET_KEY=[REDACTED]" in text and "end" in text, text
    assert "values of hidden secret files" in text or "value of hidden secret files" in text, text


def test_the_workspaces_committed_key_is_redacted_when_the_file_has_changed(
    run_cli: RunCli, script: Callable[[list[Any]], str], workspace: Path
) -> None:
    require_sandbox()
    committed_then_changed(workspace)
    text = outputs(run_cli, script, "grep -r KEY . ; git status --porcelain; echo end")
    assert OLD not in text and NEW not in text, text
    assert "STRIPE_SECRET_KEY" not in text and "end" in text, text  # it reads empty (finding X11)
    assert " M .env" not in text, text  # git still sees the staged copy, unchanged
