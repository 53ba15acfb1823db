"""Finding D4 through the console script, bubblewrap and real git: a ``.env`` staged and
then deleted from the work tree (``git status``: ``AD .env``) is held by git's index only.
``git diff --cached`` printed its key in clear, unasked, as did a zlib loop over
``.git/objects``: the index's secret files now join the values net, and git's readers ask
while one is staged and gone from the work tree."""

from __future__ import annotations

import json
import os
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ..sandboxing import require_sandbox
from .conftest import RunCli

Script = Callable[[list[Any]], str]
STAGED = "Lm4nBv8cXz2q" + "We6rTyStaged"
GIT_ENV = {"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.org", "GIT_COMMITTER_NAME": "t",
           "GIT_COMMITTER_EMAIL": "t@example.org", "GIT_CONFIG_NOSYSTEM": "1"}
ZLIB_LOOP = ("for f in $(find .git/objects -type f); do python3 -c \"import zlib,sys;"
             "sys.stdout.buffer.write(zlib.decompress(sys.stdin.buffer.read()))\" < $f; echo; done "
             "| tr '\\0' '\\n' | grep -a KEY")


def _staged_then_deleted(workspace: Path) -> None:
    def git(*args: str) -> None:
        subprocess.run(["git", *args], cwd=workspace, check=True, capture_output=True,
                       env={**os.environ, **GIT_ENV})

    git("init", "-q", "-b", "main")
    (workspace / "a.txt").write_text("a\n")
    git("add", "a.txt")
    git("commit", "-qm", "init")
    (workspace / ".env").write_text(f"SENDGRID_KEY={STAGED}\n")
    git("add", ".env")
    (workspace / ".env").unlink()


def _results(stdout: str) -> list[str]:
    events = [json.loads(e) for e in stdout.splitlines()]
    return [json.dumps(e.get("result")) for e in events if e.get("type") == "ToolExecutionEnd"]


def test_a_staged_then_deleted_env_is_redacted_from_what_git_and_a_zlib_loop_print(
    run_cli: RunCli, script: Script, workspace: Path
) -> None:
    require_sandbox()
    _staged_then_deleted(workspace)
    commands = ["git diff --cached", ZLIB_LOOP, "git show :.env"]
    turns = [{"tool_calls": [{"name": "run_shell", "args": {"command": c}} for c in commands]}, "Done."]
    r = run_cli("-p", "look around", "--model", script(turns), "--permission-mode", "bypass",
                "--output-format", "jsonl")
    assert r.returncode == 0, r.stderr
    assert STAGED not in r.stdout
    out = _results(r.stdout)
    assert len(out) == 3 and all("SENDGRID_KEY=[REDACTED]" in t for t in out), out  # each ran and printed
    assert ".env (staged in git's index)" in r.stdout  # the note names whose values they were


def test_git_diff_cached_asks_in_auto_while_a_staged_env_is_gone_from_the_work_tree(
    run_cli: RunCli, script: Script, workspace: Path
) -> None:
    require_sandbox()
    _staged_then_deleted(workspace)
    calls = ["git diff --cached | rev", "git log --oneline | rev"]
    turns = [{"tool_calls": [{"name": "run_shell", "args": {"command": c}} for c in calls]}, "Done."]
    r = run_cli("-p", "look around", "--model", script(turns), "--permission-mode", "auto",
                "--approve", "never", "--output-format", "jsonl")
    assert r.returncode == 0, r.stderr
    assert STAGED[::-1] not in r.stdout
    reader, ordinary = _results(r.stdout)
    assert "was not run" in reader, reader
    asked = [json.loads(e) for e in r.stdout.splitlines() if '"ApprovalRequested"' in e]
    assert len(asked) == 1 and "git's index stages .env" in asked[0]["request"]["reason"], asked
    assert "tini" in ordinary and "[exit code 0]" in ordinary, "a command that prints no contents runs"


DROPPED = "Qw7eRt2yUi9o" + "Pa4sDfDropped"
UNSTAGED = "Hj5kL8mN2bV4" + "cX7zUnstaged"


def test_a_dropped_stash_and_an_unstaged_env_are_redacted_from_a_zlib_loop(
    run_cli: RunCli, script: Script, workspace: Path
) -> None:
    """The everyday ``git stash -u && git stash drop``, and ``git add .env && git rm --cached
    .env && rm .env``: only objects no ref reaches hold the keys, and a loop decompressing
    ``.git/objects`` (no git word in it) printed them in clear."""
    require_sandbox()

    def git(*args: str) -> None:
        subprocess.run(["git", *args], cwd=workspace, check=True, capture_output=True,
                       env={**os.environ, **GIT_ENV})

    git("init", "-q", "-b", "main")
    (workspace / "a.txt").write_text("a\n")
    git("add", "a.txt")
    git("commit", "-qm", "init")
    (workspace / ".env").write_text(f"STRIPE_KEY={DROPPED}\n")
    git("stash", "-u", "-q")
    git("stash", "drop", "-q")
    (workspace / ".env.local").write_text(f"# local\nMAILER_KEY={UNSTAGED}\n")
    git("add", ".env.local")
    git("rm", "-q", "--cached", ".env.local")
    (workspace / ".env.local").unlink()
    turns = [{"tool_calls": [{"name": "run_shell", "args": {"command": ZLIB_LOOP}}]}, "Done."]
    r = run_cli("-p", "look around", "--model", script(turns), "--permission-mode", "bypass",
                "--output-format", "jsonl")
    assert r.returncode == 0, r.stderr
    assert DROPPED not in r.stdout and UNSTAGED not in r.stdout
    [out] = _results(r.stdout)
    assert "STRIPE_KEY=[REDACTED]" in out and "MAILER_KEY=[REDACTED]" in out, out  # it ran and printed
