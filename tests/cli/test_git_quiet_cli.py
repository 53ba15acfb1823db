"""Findings S1, S2, S6, S8 through the console script, with real bubblewrap and real git:
one ``run_shell`` call that names no denied path printed a read-denied committed file (or
one only history holds) unasked in ``auto`` mode, through git commands the quiet list took
as printing no contents. Now each asks, and ``--approve never`` refuses it, so the
denied content reaches neither the model nor the output; truly quiet commands still run."""

from __future__ import annotations

import json
import os
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from ..sandboxing import require_sandbox
from .conftest import RunCli

PLAN = "TOPSECRETPLAN"
INI = "TOPSECRETINI"
ASKED = "need approval are not allowed in this run (--approve never)"
EMPTY_TREE = "4b825dc642cb6eb9a060e54bf8d69288fbee4904"
GIT_ENV = {"GIT_CONFIG_GLOBAL": "/dev/null", "GIT_CONFIG_NOSYSTEM": "1", "GIT_AUTHOR_NAME": "t",
           "GIT_AUTHOR_EMAIL": "t@t", "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@t"}


def git(ws: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=ws, check=True, capture_output=True, text=True,
                          env={**os.environ, **GIT_ENV}).stdout


def committed(ws: Path, *, then_removed: bool = False) -> str:
    """The tester's ws1 (``secrets/`` committed) or ws3 (committed, then ``git rm``: only
    history holds it); returns the denied plan's blob id."""
    (ws / "secrets").mkdir()
    (ws / "secrets" / "plan.txt").write_text(PLAN + "\n")
    (ws / "secrets" / "creds.ini").write_text(f"[client]\npassword = {INI}\n")  # parses as git config
    (ws / "a.txt").write_text("a\n")
    git(ws, "init", "-q", "-b", "master")
    git(ws, "add", "-A")
    git(ws, "commit", "-qm", "one")
    blob = git(ws, "rev-parse", "HEAD:secrets/plan.txt").strip()
    if then_removed:
        git(ws, "rm", "-rq", "secrets")
        git(ws, "commit", "-qm", "two")
        git(ws, "branch", "keep")  # at HEAD: its tree holds no denied file, until a ref moves
    return blob


@pytest.fixture
def deny(tmp_path: Path) -> Path:
    config = tmp_path / "deny.toml"
    config.write_text('[permissions]\ndeny = ["read_file(secrets/**)"]\n')
    return config


def run(run_cli: RunCli, script: Callable[[list[Any]], str], deny: Path, command: str) -> tuple[str, str]:
    """One ``run_shell`` call in ``auto`` mode with ``--approve never``: what the model was
    sent back (the tool result) and everything printed."""
    turns = [{"tool_calls": [{"name": "run_shell", "args": {"command": command}}]}, "Done."]
    done = run_cli("-p", "go", "--model", script(turns), "--output-format", "json", "--no-session",
                   "--config", str(deny), "--permission-mode", "auto", "--approve", "never", timeout=120)
    assert done.returncode in (0, 1), done.stderr
    results = [json.dumps(m) for m in _messages(done.stdout) if m.get("role") == "tool"]
    return "\n".join(results), done.stdout + done.stderr


def _messages(out: str) -> list[dict[str, Any]]:
    found: list[dict[str, Any]] = []
    for line in out.splitlines():
        try:
            item = json.loads(line)
        except ValueError:
            continue
        if isinstance(item, dict):
            found.extend(m for m in item.get("messages", []) if isinstance(m, dict))
    return found


CURRENT = {
    "S1 update-index clears the marks": "git ls-files -z | xargs -0 git update-index --no-skip-worktree; "
                                        "git diff",
    "S1 index rebuilt": "rm -f .git/index; git reset -q; git diff | grep '^-[^-]'",
    "S1 config --blob": "git config --blob {creds} --list",
    "S6 stat with -U0": f"git diff --stat -U0 {EMPTY_TREE} HEAD",
    "a command word known at run time": "G=git; $G log -p | grep '^+[^+]'",
    "S6 patch-with-stat": f"git diff --shortstat --patch-with-stat {EMPTY_TREE} HEAD | grep '^+[^+]'",
    "S8 commit -v": "git checkout -q --orphan tmp && git commit --dry-run -v | grep '^+[^+]'; "
                    "git checkout -q master",
}
HISTORY_ONLY = {
    "S2 checkout HEAD~1": "git checkout -q HEAD~1; cat s*/*; git checkout -q -",
    "S2 a branch moved, then checked out": "git branch -f keep HEAD~1; git checkout -q keep; cat s*/*; "
                                           "git checkout -q master",
    "S2 cacheinfo and restore": "git update-index --add --cacheinfo 100644,{plan},x.txt && git restore x.txt "
                                "&& cat x.txt",
}


@pytest.mark.parametrize("name", sorted(CURRENT))
def test_a_git_line_that_prints_a_denied_committed_file_asks(
    run_cli: RunCli, script: Callable[[list[Any]], str], deny: Path, workspace: Path, name: str
) -> None:
    require_sandbox()
    committed(workspace)
    creds = git(workspace, "rev-parse", "HEAD:secrets/creds.ini").strip()
    sent, shown = run(run_cli, script, deny, CURRENT[name].format(creds=creds))
    assert PLAN not in shown and INI not in shown, (name, shown)
    assert ASKED in sent, (name, sent)
    assert git(workspace, "status", "--porcelain") == ""


@pytest.mark.parametrize("name", sorted(HISTORY_ONLY))
def test_a_git_line_that_lays_out_a_denied_file_only_history_holds_asks(
    run_cli: RunCli, script: Callable[[list[Any]], str], deny: Path, workspace: Path, name: str
) -> None:
    require_sandbox()
    plan = committed(workspace, then_removed=True)
    sent, shown = run(run_cli, script, deny, HISTORY_ONLY[name].format(plan=plan))
    assert PLAN not in shown, (name, shown)
    assert ASKED in sent, (name, sent)
    assert git(workspace, "status", "--porcelain") == ""  # nothing staged under a new name
    assert not (workspace / "x.txt").exists() and not (workspace / "secrets").exists()


def test_quiet_git_lines_still_run_unasked(
    run_cli: RunCli, script: Callable[[list[Any]], str], deny: Path, workspace: Path
) -> None:
    """What users rely on: status, log, a names-only diff of history, a branch made and
    left at HEAD's tree, a commit; and a bare ``git diff`` of the work tree."""
    require_sandbox()
    committed(workspace)
    (workspace / "a.txt").write_text("a\nb\n")
    line = (f"git status --short && git log --oneline -3 && git diff --stat {EMPTY_TREE} HEAD && "
            "git switch -q -c feat && git commit -qam more && git checkout -q master && git status -sb")
    sent, shown = run(run_cli, script, deny, line)
    assert "[exit code 0]" in sent and "secrets/plan.txt" in sent and "## master" in sent, sent
    assert PLAN not in shown and ASKED not in sent
    (workspace / "a.txt").write_text("a\nc\n")
    sent, shown = run(run_cli, script, deny, "git diff")
    assert "+c" in sent and "[exit code 0]" in sent and PLAN not in shown, sent
