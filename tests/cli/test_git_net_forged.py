"""What the net under hidden tracked files must hold against a command that forges what
it judges (tester findings S17, S18 and the reset note of r17), through the real console
script, real bubblewrap and real git.

``deny = ["read_file(secrets/**)"]`` over a committed ``secrets/plan.txt``. What a user
relies on: a commit the command made that deletes or adds a hidden file is said loudly
whatever date it carries, and agent-shell itself never deletes, nor writes content the
command chose into, a hidden file; a version they staged and had not committed is not
discarded by a sandboxed reset."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from ..sandboxing import require_sandbox
from .conftest import RunCli
from .test_git_net_gaps import OLD, PLAN, git, marked, repo, run

BACKDATED = 'GIT_COMMITTER_DATE="2001-01-01T00:00:00" GIT_AUTHOR_DATE="2001-01-01T00:00:00" '
BRANCH_TRICK = ("P=$(git ls-files | grep pla); git checkout -q -b b2 && "
                "git update-index --cacheinfo 100644,$B,$P; git commit -qm x; "
                "git checkout -q master; git checkout -q b2")
"""A branch the command makes, staging a blob it chose for the hidden file, checked out again."""
RW_CONFIG = ('[permissions]\nmode = "auto"\n'
             'deny = ["read_file(secrets/**)", "write_file(secrets/**)", "edit_file(secrets/**)"]\n')


def test_a_back_dated_commit_that_deletes_the_hidden_file_is_said_and_the_file_kept(
    run_cli: RunCli, cli_env: dict[str, str], script: Callable[[list[Any]], str], workspace: Path
) -> None:
    """Finding S18: a commit dated 2001 passed for one made elsewhere; the net stayed
    silent and agent-shell unlinked the user's real file, "bringing it along"."""
    require_sandbox()
    repo(workspace, cli_env)
    out = run(run_cli, script, "P=$(git ls-files | grep pla); git update-index --force-remove $P; "
              + BACKDATED + "git commit -qm 'chore: tidy'")
    assert (workspace / "secrets" / "plan.txt").read_text() == PLAN, out
    assert "WARNING: a commit this command made" in out and "DELETES secrets/plan.txt" in out, out
    assert git(workspace, "ls-files", "secrets") == "secrets/plan.txt\n"  # the entry put back
    assert marked(workspace) == []


def test_a_back_dated_commit_that_adds_a_hidden_env_file_is_said_and_taken_out(
    run_cli: RunCli, cli_env: dict[str, str], script: Callable[[list[Any]], str], workspace: Path
) -> None:
    """The Q18 half of S18: ``!.env`` in .gitignore, ``git add -A`` and a back-dated commit
    committed the sandbox's empty stand-in; the user's key was one ``git commit -a`` away."""
    require_sandbox()
    repo(workspace, cli_env)
    (workspace / ".gitignore").write_text("*.log\n!.env\n")
    git(workspace, "add", ".gitignore")
    git(workspace, "commit", "-qm", "ignore", env=OLD)
    (workspace / ".env").write_text("API_KEY=sk-live-abcdef0123456789abcdef\n")
    out = run(run_cli, script, "git add -A; " + BACKDATED + "git commit -qm 'chore: sync'")
    assert "WARNING: a commit this command made" in out and "ADDS .env EMPTY" in out, out
    assert git(workspace, "ls-files", ".env") == ""  # taken out of the index again
    assert (workspace / ".env").read_text().startswith("API_KEY=")


def test_content_the_command_chose_is_not_written_into_a_write_denied_hidden_file(
    run_cli: RunCli, cli_env: dict[str, str], script: Callable[[list[Any]], str], workspace: Path
) -> None:
    """Finding S17: a branch the command made staging its own blob, then a checkout of
    it: agent-shell wrote that blob into a file the user had denied writes to."""
    require_sandbox()
    repo(workspace, cli_env)
    (Path(cli_env["AGENT_SHELL_CONFIG_DIR"]) / "config.toml").write_text(RW_CONFIG)
    out = run(run_cli, script,
              "echo EVILCONTENT > t.txt; git add t.txt; B=$(git rev-parse :t.txt); git rm -q --cached t.txt; "
              "rm t.txt; " + BRANCH_TRICK)
    assert (workspace / "secrets" / "plan.txt").read_text() == PLAN, out
    assert "NOT written" in out and "secrets/plan.txt" in out, out


def test_a_branch_the_command_made_is_not_brought_along_even_without_a_write_rule(
    run_cli: RunCli, cli_env: dict[str, str], script: Callable[[list[Any]], str], workspace: Path
) -> None:
    """The other half of S17: only a commit that existed before the command is a
    checkout the shell completes; the command's own is content it chose."""
    require_sandbox()
    repo(workspace, cli_env)
    out = run(run_cli, script,
              "echo EVILCONTENT > t.txt; git add t.txt; B=$(git rev-parse :t.txt); git rm -q --cached t.txt; "
              "rm t.txt; " + BRANCH_TRICK)
    assert (workspace / "secrets" / "plan.txt").read_text() == PLAN, out
    assert "NOT written" in out, out


def test_a_reset_keeps_the_version_the_user_staged_of_a_hidden_file(
    run_cli: RunCli, cli_env: dict[str, str], script: Callable[[list[Any]], str], workspace: Path
) -> None:
    """r17 note: a sandboxed reset to an earlier commit rewrote the hidden file the user
    had staged and not committed (it held the staged blob, so it was "brought along"):
    only a file holding what HEAD held is."""
    require_sandbox()
    repo(workspace, cli_env)
    (workspace / "README.md").write_text("two\n")
    git(workspace, "commit", "-qam", "two", env=OLD)
    (workspace / "secrets" / "plan.txt").write_text("MY-STAGED-PLAN\n")
    git(workspace, "add", "secrets/plan.txt")
    out = run(run_cli, script, "git reset -q HEAD~1")
    assert (workspace / "secrets" / "plan.txt").read_text() == "MY-STAGED-PLAN\n", out
    assert "NOT written" in out and "secrets/plan.txt" in out, out
    assert marked(workspace) == []
