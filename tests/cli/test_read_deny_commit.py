"""Finding M8 (second half) through the real console script: with
``deny = ["read_file(config/secrets/**)"]``, a model's routine
``git add -A && git commit -m wip`` in auto mode (sandboxed, unasked) committed the
tracked files there as deleted: the sandbox showed git an empty folder. Now their index
entries are marked skip-worktree for each command: the commit leaves them unchanged, and
neither their committed content nor the user's edit reaches the model."""

from __future__ import annotations

import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ..sandboxing import require_sandbox
from .conftest import RunCli

EDIT = "LOCAL-EDIT-NOT-STAGED-9c1e"
CONFIG = '[permissions]\nmode = "auto"\ndeny = ["read_file(config/secrets/**)"]\n'


def git(cwd: Path, *args: str) -> str:
    return subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@t", *args], cwd=cwd, check=True,
                          capture_output=True, text=True).stdout


def test_a_sandboxed_commit_all_keeps_read_denied_tracked_files(
    run_cli: RunCli, cli_env: dict[str, str], script: Callable[[list[Any]], str], workspace: Path
) -> None:
    require_sandbox()
    config = Path(cli_env["AGENT_SHELL_CONFIG_DIR"])
    config.mkdir(parents=True, exist_ok=True)
    (config / "config.toml").write_text(CONFIG)
    (workspace / "config" / "secrets").mkdir(parents=True)
    (workspace / "config" / "secrets" / "db.txt").write_text("password = committed\n")
    (workspace / "README.md").write_text("hello\n")
    git(workspace, "init", "-q")
    git(workspace, "add", "-A")
    git(workspace, "commit", "-qm", "start")
    with (workspace / "config" / "secrets" / "db.txt").open("a") as f:
        f.write(f"password = {EDIT}\n")
    commit = ("git add -A && git -c user.name=t -c user.email=t@t commit -qm wip && "
              "git show --stat --format=%s HEAD")
    calls = [("c1", "echo more >> README.md"), ("c2", commit), ("c3", "find config -type f -exec cat {} +"),
             ("c4", "git status --short; grep -r password .")]
    turns = [{"tool_calls": [{"name": "run_shell", "args": {"command": c}, "id": i} for i, c in calls]},
             "Done."]
    r = run_cli("-p", "commit my work", "--model", script(turns), "--approve", "never", "--no-session",
                "--output-format", "jsonl")
    assert r.returncode == 0, r.stderr
    assert git(workspace, "log", "--format=%s") == "wip\nstart\n"
    assert git(workspace, "show", "--name-status", "--format=", "HEAD") == "M\tREADME.md\n"  # no D
    assert git(workspace, "ls-tree", "-r", "--name-only", "HEAD") == "README.md\nconfig/secrets/db.txt\n"
    assert "password = committed" not in r.stdout  # no copy is shown: find and grep read nothing
    assert EDIT not in r.stdout
    assert "git leaves what it tracks there as staged" in r.stdout  # the mixed line ran, unasked
    assert git(workspace, "ls-files", "-t").startswith("H ")  # no skip-worktree mark left behind
    assert EDIT in (workspace / "config" / "secrets" / "db.txt").read_text()
