"""Finding N0 through the console script and bubblewrap: what git keeps of a hidden
``.env`` (a ``git stash -u`` entry, a blob staged then unstaged) is printed by an
unasked command in ``auto`` mode; the values reach neither the model's side of the
output (``--output-format jsonl``: every event, tool results included) nor the
session file, and the result says they were redacted, not hidden."""

from __future__ import annotations

import os
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ..sandboxing import require_sandbox
from .conftest import RunCli

Script = Callable[[list[Any]], str]
STASHED = "pl41n-stashed-cli-5e4d3c2b1a"
DANGLING = "pl41n-dangling-cli-9f8e7d6c5b"
GIT_ENV = {"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.org", "GIT_COMMITTER_NAME": "t",
           "GIT_COMMITTER_EMAIL": "t@example.org", "GIT_CONFIG_NOSYSTEM": "1"}


def test_stashed_and_unstaged_secret_files_are_redacted_from_git_output(
    run_cli: RunCli, script: Script, workspace: Path, tmp_path: Path
) -> None:
    require_sandbox()

    def git(*args: str) -> None:
        subprocess.run(["git", *args], cwd=workspace, check=True, capture_output=True,
                       env={**os.environ, **GIT_ENV})

    git("init", "-q", "-b", "main")
    (workspace / "a.txt").write_text("a\n")
    git("add", "a.txt")
    git("commit", "-qm", "init")
    (workspace / ".env").write_text(f"DATABASE={STASHED}\n")
    git("stash", "-u")
    git("stash", "apply")
    (workspace / ".env.local").write_text(f"SERVICE_TOKEN={DANGLING}\nNODE_ENV=production\n")
    git("add", ".env.local")
    git("rm", "-q", "--cached", ".env.local")
    commands = ["git stash show -p --include-untracked",
                "git cat-file --batch-all-objects --batch | grep -a =",
                "cat a.txt; echo NODE_ENV=production"]
    turns = [{"tool_calls": [{"name": "run_shell", "args": {"command": c}} for c in commands]}, "Done."]
    r = run_cli("-p", "look around", "--model", script(turns), "--permission-mode", "auto",
                "--approve", "never", "--output-format", "jsonl")
    assert r.returncode == 0, r.stderr
    assert STASHED not in r.stdout and DANGLING not in r.stdout
    assert "+DATABASE=[REDACTED]" in r.stdout and "SERVICE_TOKEN=[REDACTED]" in r.stdout  # both ran, unasked
    assert "values of hidden secret files (.env" in r.stdout
    assert "hidden from this command" not in r.stdout
    assert '"content": "a\\nNODE_ENV=production\\n[exit code 0]' in r.stdout  # ordinary output, as it was
    sessions = [p for p in (tmp_path / "data").rglob("*") if p.is_file()]
    saved = b"".join(p.read_bytes() for p in sessions)
    assert b"SERVICE_TOKEN=[REDACTED]" in saved  # the session holds the results
    assert STASHED.encode() not in saved and DANGLING.encode() not in saved


def test_a_short_password_in_a_hidden_file_is_redacted_with_its_name(
    run_cli: RunCli, script: Script, workspace: Path
) -> None:
    """Finding P16: ``DB_PASSWORD=hunter2`` (shorter than a value redacted alone) printed
    in full from a loose blob of the hidden ``.env`` while its longer neighbours were
    redacted. Taken with its name, it is redacted where the file's line is printed, and
    an ordinary "hunter2" or "root" elsewhere in the output stays as it is."""
    require_sandbox()

    def git(*args: str) -> None:
        subprocess.run(["git", *args], cwd=workspace, check=True, capture_output=True,
                       env={**os.environ, **GIT_ENV})

    git("init", "-q", "-b", "main")
    (workspace / ".env").write_text("DB_PASSWORD=hunter2\nexport PGPASSWORD='root'\nDEBUG_AUTH=true\n")
    git("add", ".env")
    git("rm", "-q", "--cached", ".env")
    commands = ["git cat-file --batch-all-objects --batch | grep -a =", "echo hunter2 root"]
    turns = [{"tool_calls": [{"name": "run_shell", "args": {"command": c}} for c in commands]}, "Done."]
    r = run_cli("-p", "look around", "--model", script(turns), "--permission-mode", "bypass",
                "--output-format", "jsonl")
    assert r.returncode == 0, r.stderr
    assert "DB_PASSWORD=hunter2" not in r.stdout and "PGPASSWORD='root'" not in r.stdout
    assert "[REDACTED]\\nexport [REDACTED]'\\nDEBUG_AUTH=true" in r.stdout
    assert "2 values of hidden secret files (.env) were redacted" in r.stdout
    assert '"content": "hunter2 root\\n[exit code 0]' in r.stdout  # the words alone are no secret
