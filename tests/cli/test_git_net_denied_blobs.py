"""The second net's other half (tester finding S2): content a deny rule on reading keeps
from the model, given to git under another name by its object id, through the real
console script, real bubblewrap and real git.

``deny = ["read_file(secrets/**)"]`` over a committed ``secrets/plan.txt``. What a user
relies on: a command that stages or commits the denied content as ``docs/notes.txt``
(``update-index --cacheinfo``, no read of the hidden file) does not leave it staged for
their next commit or push unsaid; a checkout that lays out a denied file only history
holds is said; an ordinary commit is left alone."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from ..sandboxing import require_sandbox
from .conftest import RunCli
from .test_git_net_gaps import OLD, PLAN, git, repo

BLOB = "B=$(git rev-list --objects --all | grep ' secrets/plan' | cut -d' ' -f1); "
"""The denied file's object id, found without naming or reading it."""


def approved(run_cli: RunCli, script: Callable[[list[Any]], str], command: str) -> str:
    """The command run as a user approving it would (the net is for what got through)."""
    calls = [{"name": "run_shell", "args": {"command": command}, "id": "c0"}]
    r = run_cli(
        "-p",
        "go",
        "--model",
        script([{"tool_calls": calls}, "Done."]),
        "--approve",
        "always",
        "--no-session",
        "--output-format",
        "jsonl",
    )
    assert r.returncode == 0, r.stderr
    return r.stdout


def history_only(workspace: Path, cli_env: dict[str, str]) -> None:
    """The denied folder committed once, then removed: only history holds it."""
    repo(workspace, cli_env)
    git(workspace, "rm", "-rq", "secrets")
    git(workspace, "commit", "-qm", "drop secrets", env=OLD)


def test_a_commit_of_the_denied_content_under_another_name_is_said_and_unstaged(
    run_cli: RunCli, cli_env: dict[str, str], script: Callable[[list[Any]], str], workspace: Path
) -> None:
    require_sandbox()
    repo(workspace, cli_env)
    out = approved(
        run_cli,
        script,
        BLOB + "git update-index --add --cacheinfo 100644,$B,docs/notes.txt && git commit -qm 'docs: notes'",
    )
    assert git(workspace, "log", "-1", "--format=%s") == "docs: notes\n", out  # history is not rewritten
    assert "WARNING: the command gave git a copy of a read-denied file" in out and "docs/notes.txt" in out, (
        out
    )
    assert "commit --amend --no-edit" in out, out
    assert git(workspace, "ls-files", "docs") == ""  # the next commit does not carry it on
    assert (workspace / "secrets" / "plan.txt").read_text() == PLAN


def test_a_staged_copy_of_content_only_history_holds_is_unstaged_and_the_file_named(
    run_cli: RunCli, cli_env: dict[str, str], script: Callable[[list[Any]], str], workspace: Path
) -> None:
    require_sandbox()
    history_only(workspace, cli_env)
    out = approved(
        run_cli, script, BLOB + "git update-index --add --cacheinfo 100644,$B,x.txt && git restore x.txt"
    )
    assert git(workspace, "ls-files", "x.txt") == "", out
    assert (workspace / "x.txt").read_text() == PLAN  # the work tree's file is never deleted
    assert "x.txt holds that content too" in out, out


def test_a_checkout_laying_out_a_denied_file_from_history_is_said(
    run_cli: RunCli, cli_env: dict[str, str], script: Callable[[list[Any]], str], workspace: Path
) -> None:
    require_sandbox()
    history_only(workspace, cli_env)
    out = approved(run_cli, script, "git checkout -q HEAD~1")
    assert (workspace / "secrets" / "plan.txt").is_file(), out
    assert "WARNING: the command laid out secrets" in out, out


def test_an_ordinary_commit_is_left_alone(
    run_cli: RunCli, cli_env: dict[str, str], script: Callable[[list[Any]], str], workspace: Path
) -> None:
    require_sandbox()
    repo(workspace, cli_env)
    out = approved(
        run_cli, script, "echo hi > a.txt && touch empty.txt && git add a.txt empty.txt && git commit -qm a"
    )
    assert "WARNING" not in out, out
    assert git(workspace, "ls-files", "a.txt", "empty.txt") == "a.txt\nempty.txt\n"
    assert git(workspace, "status", "--porcelain") == ""


def test_a_copy_committed_on_another_branch_is_said(
    run_cli: RunCli, cli_env: dict[str, str], script: Callable[[list[Any]], str], workspace: Path
) -> None:
    """HEAD and the index left as they were, the copy on a side branch: ``git push --all``
    would publish it."""
    require_sandbox()
    repo(workspace, cli_env)
    out = approved(run_cli, script, BLOB + "git checkout -q -b side && git update-index --add --cacheinfo "
                   "100644,$B,docs/notes.txt && git commit -qm notes && git checkout -q master")
    assert git(workspace, "branch", "--show-current") == "master\n", out
    assert "A commit this command made on side" in out and "docs/notes.txt" in out, out
    assert "branch -D side" in out, out
