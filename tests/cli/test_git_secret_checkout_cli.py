"""Finding U9 through the console script, real bubblewrap and real git: a tracked ``.env``
(hidden by its name, no deny rule) reads as its staged copy in the sandbox, so a
``git checkout b2`` could not write b2's version: HEAD and the index moved to b2, the
file stayed main's, and the user's next ``git commit -a`` reverted b2's change,
nothing said. The shell then brought it along as it does a deny rule's hidden files.
Since finding X11 a ``.env`` holding values reads empty instead, and git stops such a
checkout: nothing moves, nothing is lost."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ..sandboxing import require_sandbox
from .conftest import RunCli
from .test_git_quiet_cli import git

A, B = "API_TOKEN=Aaaaaaaa1111\n", "API_TOKEN=Bbbbbbbb2222\n"


def _repo(ws: Path) -> None:
    git(ws, "init", "-q", "-b", "main")
    (ws / ".env").write_text(A)
    (ws / "a.txt").write_text("a\n")
    git(ws, "add", "-A")
    git(ws, "commit", "-qm", "one")
    git(ws, "checkout", "-qb", "b2")
    (ws / ".env").write_text(B)
    git(ws, "commit", "-qam", "two")
    git(ws, "checkout", "-q", "main")


def _checkout(run_cli: RunCli, script: Callable[[list[Any]], str]) -> str:
    turns = [{"tool_calls": [{"name": "run_shell", "args": {"command": "git checkout -q b2"}}]}, "Done."]
    done = run_cli("-p", "go", "--model", script(turns), "--output-format", "json", "--no-session",
                   "--permission-mode", "auto", "--approve", "never", timeout=120)
    assert done.returncode in (0, 1), done.stderr
    return json.dumps(json.loads(done.stdout.splitlines()[-1])["messages"])


def test_a_checkout_that_would_change_a_tracked_env_stops_and_loses_nothing(
    run_cli: RunCli, script: Callable[[list[Any]], str], workspace: Path
) -> None:
    """Finding X11 replaced the staged copy of a ``.env`` holding values by an empty file
    (git told to leave it as staged): git then stops a checkout that would change it
    (its "local changes" check reads the empty stand-in). Nothing moves, nothing is
    lost, and the result says the user can run it."""
    require_sandbox()
    _repo(workspace)
    sent = _checkout(run_cli, script)
    assert git(workspace, "rev-parse", "--abbrev-ref", "HEAD").strip() == "main"
    assert (workspace / ".env").read_text() == A
    assert git(workspace, "status", "--porcelain") == ""
    assert "would be overwritten by checkout" in sent and "a checkout that would change one stops" in sent


def test_an_env_the_user_edited_is_left(
    run_cli: RunCli, script: Callable[[list[Any]], str], workspace: Path
) -> None:
    require_sandbox()
    _repo(workspace)
    (workspace / ".env").write_text("API_TOKEN=mine\n")
    _checkout(run_cli, script)
    assert (workspace / ".env").read_text() == "API_TOKEN=mine\n"
    assert git(workspace, "rev-parse", "--abbrev-ref", "HEAD").strip() == "main"


def test_a_reset_or_merge_that_would_change_it_says_so_and_nothing_moves(
    run_cli: RunCli, script: Callable[[list[Any]], str], workspace: Path
) -> None:
    """Finding Y8, the file that reads empty: git refuses before it writes anything, and
    the result names the file and why, not only git's "local changes" error (which
    invites a stash or a delete of the user's file)."""
    require_sandbox()
    _repo(workspace)
    command = "git reset -q --hard b2; git merge -q --no-edit b2; echo end"
    turns = [{"tool_calls": [{"name": "run_shell", "args": {"command": command}}]}, "Done."]
    done = run_cli("-p", "go", "--model", script(turns), "--output-format", "json", "--no-session",
                   "--permission-mode", "auto", "--approve", "never", timeout=120)
    sent = json.dumps(json.loads(done.stdout.splitlines()[-1])["messages"])
    assert "git refused to change .env" in sent and "nothing moved" in sent, sent
    assert git(workspace, "rev-parse", "--abbrev-ref", "HEAD").strip() == "main"
    assert git(workspace, "status", "--porcelain") == "" and (workspace / ".env").read_text() == A
