"""The gaps of the net under read-denied tracked files (findings Q20, Q22 and the r17
list), through the real console script, real bubblewrap and real git.

``deny = ["read_file(secrets/**)"]`` over a committed ``secrets/plan.txt``: the sandbox
hides the folder and marks the file skip-worktree for each command (:mod:`.gitmarks`),
and after it a second net (:mod:`.gitnet`) compares git's index and HEAD with before.
What a user relies on here: a checkout leaves no reverse diff for their next
``git commit -a``; no mark is left on their index once agent-shell is gone, even past a
lock a command left; two agent-shells in one repository do not clear each other's marks
mid-command; a commit made with plumbing that deletes the hidden file is said; a
fast-forward to commits made elsewhere is not."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ..sandboxing import require_sandbox
from .conftest import RunCli

CONFIG = '[permissions]\nmode = "auto"\ndeny = ["read_file(secrets/**)"]\n'
PLAN = "TOPSECRETPLAN\n"
OLD = {"GIT_AUTHOR_DATE": "2020-01-01T00:00:00", "GIT_COMMITTER_DATE": "2020-01-01T00:00:00"}
"""Commits made before the command (another machine's, fetched): dated then."""


def git(cwd: Path, *args: str, env: dict[str, str] | None = None) -> str:
    return subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@t", *args], cwd=cwd, check=True,
                          capture_output=True, text=True, env={**os.environ, **(env or {})}).stdout


def repo(workspace: Path, cli_env: dict[str, str]) -> None:
    config = Path(cli_env["AGENT_SHELL_CONFIG_DIR"])
    config.mkdir(parents=True, exist_ok=True)
    (config / "config.toml").write_text(CONFIG)
    (workspace / "secrets").mkdir()
    (workspace / "secrets" / "plan.txt").write_text(PLAN)
    (workspace / "README.md").write_text("hello\n")
    git(workspace, "init", "-q", "-b", "master")
    git(workspace, "add", "-A")
    git(workspace, "commit", "-qm", "start", env=OLD)


def run(run_cli: RunCli, script: Callable[[list[Any]], str], *commands: str) -> str:
    calls = [{"name": "run_shell", "args": {"command": c}, "id": f"c{i}"} for i, c in enumerate(commands)]
    r = run_cli("-p", "go", "--model", script([{"tool_calls": calls}, "Done."]), "--approve", "never",
                "--no-session", "--output-format", "jsonl")
    assert r.returncode == 0, r.stderr
    return r.stdout


def marked(workspace: Path) -> list[str]:
    return [line[2:] for line in git(workspace, "ls-files", "-t").splitlines() if line.startswith("S ")]


def test_a_checkout_brings_the_hidden_file_to_the_new_branch(
    run_cli: RunCli, cli_env: dict[str, str], script: Callable[[list[Any]], str], workspace: Path
) -> None:
    """Finding Q20: git in the sandbox could not write the hidden file; the user was left
    on b2 with master's content, a reverse diff their next ``git commit -a`` commits."""
    require_sandbox()
    repo(workspace, cli_env)
    git(workspace, "checkout", "-qb", "b2")
    (workspace / "secrets" / "plan.txt").write_text("B2PLAN\n")
    (workspace / "secrets" / "new.txt").write_text("B2NEW\n")
    git(workspace, "add", "-A")
    git(workspace, "commit", "-qm", "b2 plan", env=OLD)
    git(workspace, "checkout", "-q", "master")
    out = run(run_cli, script, "git checkout -q b2; git branch --show-current")
    assert git(workspace, "branch", "--show-current") == "b2\n"
    assert (workspace / "secrets" / "plan.txt").read_text() == "B2PLAN\n", out
    assert (workspace / "secrets" / "new.txt").read_text() == "B2NEW\n"  # git could not create it either
    assert git(workspace, "status", "--porcelain") == "" and marked(workspace) == []
    assert "B2PLAN" not in out and "TOPSECRETPLAN" not in out  # the shell wrote it; the model read nothing
    assert "secrets/plan.txt" in out and "secrets/new.txt" in out  # the result says which it brought along


def test_a_checkout_keeps_the_users_edit_of_a_hidden_file_and_says_so(
    run_cli: RunCli, cli_env: dict[str, str], script: Callable[[list[Any]], str], workspace: Path
) -> None:
    require_sandbox()
    repo(workspace, cli_env)
    git(workspace, "checkout", "-qb", "b2")
    (workspace / "secrets" / "plan.txt").write_text("B2PLAN\n")
    git(workspace, "commit", "-qam", "b2 plan", env=OLD)
    git(workspace, "checkout", "-q", "master")
    (workspace / "secrets" / "plan.txt").write_text("MY-EDIT\n")
    out = run(run_cli, script, "git checkout -q b2")
    assert (workspace / "secrets" / "plan.txt").read_text() == "MY-EDIT\n"  # never overwritten
    assert "git checkout -- PATH" in out and "secrets/plan.txt" in out, out


def test_marks_behind_a_lock_a_command_left_are_cleared_by_exit(
    run_cli: RunCli, cli_env: dict[str, str], script: Callable[[list[Any]], str], workspace: Path
) -> None:
    """Finding Q22: the command's leftover ``index.lock`` kept the marks from being
    cleared, and they stayed on the user's index until agent-shell next started."""
    require_sandbox()
    repo(workspace, cli_env)
    run(run_cli, script, "touch .git/index.lock")
    assert marked(workspace) == []
    assert not (workspace / ".git" / "index.lock").exists()  # our own sandbox's stale lock


def test_marks_are_cleared_as_soon_as_the_lock_is_gone(
    run_cli: RunCli, cli_env: dict[str, str], script: Callable[[list[Any]], str], workspace: Path
) -> None:
    require_sandbox()
    repo(workspace, cli_env)
    out = run(run_cli, script, "touch .git/index.lock", "rm .git/index.lock",
              "git ls-files -t secrets; echo x >> README.md; git commit -qam x; git show --stat HEAD")
    assert marked(workspace) == [] and git(workspace, "ls-files", "secrets") == "secrets/plan.txt\n"
    assert "plan.txt |" not in out, out  # the third command's commit did not touch it


def start(cli_env: dict[str, str], script: Callable[[list[Any]], str], workspace: Path,
          command: str) -> subprocess.Popen[str]:
    calls = [{"name": "run_shell", "args": {"command": command, "timeout": 120}, "id": "c0"}]
    return subprocess.Popen(
        [sys.executable, "-m", "shell", "-p", "go", "--model", script([{"tool_calls": calls}, "Done."]),
         "--approve", "never", "--no-session", "--output-format", "jsonl"],
        stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=workspace,
        env=cli_env, start_new_session=True)


def wait_for(path: Path, proc: subprocess.Popen[str]) -> None:
    """Until ``path`` exists (a step the other process reached), failing if it ended first."""
    for _ in range(1200):
        if path.exists():
            return
        assert proc.poll() is None, proc.communicate()
        time.sleep(0.1)
    raise AssertionError(f"{path} never appeared")


def test_two_agent_shells_in_one_repository_do_not_clear_each_others_marks(
    cli_env: dict[str, str], script: Callable[[list[Any]], str], workspace: Path
) -> None:
    """The first to end cleared the marks the second's command still relied on: its
    ``git add -A && git commit`` then committed the hidden file deleted."""
    require_sandbox()
    repo(workspace, cli_env)
    loop = "until [ -e {0} ]; do sleep 0.1; done"
    first = start(cli_env, script, workspace, "touch a.go; " + loop.format("b.go"))
    try:
        wait_for(workspace / "a.go", first)  # its marks are set
        second = start(cli_env, script, workspace, "touch b.go; " + loop.format("go") +
                       "; git add -A && git commit -qm second && git show --stat --format=%s HEAD")
        try:
            wait_for(workspace / "b.go", second)
            first.communicate(timeout=120)
            assert first.returncode == 0
            (workspace / "go").touch()  # the first has ended and cleared what it may
            out, err = second.communicate(timeout=120)
        finally:
            second.kill()
    finally:
        first.kill()
    assert second.returncode == 0, err
    assert git(workspace, "log", "-1", "--format=%s") == "second\n"
    assert git(workspace, "ls-tree", "-r", "--name-only", "HEAD", "secrets") == "secrets/plan.txt\n", out
    assert "DELETES" not in out and marked(workspace) == []


def test_a_commit_made_with_plumbing_that_deletes_the_hidden_file_is_said(
    run_cli: RunCli, cli_env: dict[str, str], script: Callable[[list[Any]], str], workspace: Path
) -> None:
    """``git commit-tree`` + ``git update-ref`` leave the index untouched: the net looked
    at the index only."""
    require_sandbox()
    repo(workspace, cli_env)
    (workspace / "plumb.sh").write_text(  # a script: as the model writes one, or a Makefile's target
        "t=$(git ls-tree HEAD | grep -v secrets | git mktree)\n"
        "c=$(git -c user.name=t -c user.email=t@t commit-tree -p HEAD -m gone $t)\n"
        "git update-ref refs/heads/master $c\n")
    out = run(run_cli, script, "sh plumb.sh")
    assert git(workspace, "ls-tree", "-r", "--name-only", "HEAD") == "README.md\n", out  # it happened
    result = json.dumps(out)
    assert "WARNING: a commit this command made" in out and "DELETES secrets/plan.txt" in out, result
    assert (workspace / "secrets" / "plan.txt").read_text() == PLAN


def test_a_fast_forward_to_commits_made_elsewhere_is_no_false_alarm(
    run_cli: RunCli, cli_env: dict[str, str], script: Callable[[list[Any]], str], workspace: Path
) -> None:
    """Upstream deleted the hidden file: the fast-forward takes that on purpose, as outside
    the sandbox; the net judged the fetched commit as if the command had made it."""
    require_sandbox()
    repo(workspace, cli_env)
    git(workspace, "checkout", "-qb", "up")
    git(workspace, "rm", "-q", "secrets/plan.txt")
    git(workspace, "commit", "-qm", "upstream drops the plan", env=OLD)
    git(workspace, "checkout", "-q", "master")
    out = run(run_cli, script, "git merge -q --ff-only up")
    assert git(workspace, "rev-parse", "master") == git(workspace, "rev-parse", "up")
    assert "WARNING" not in out and "DELETES" not in out, out
    assert git(workspace, "status", "--porcelain") == "", out  # no entry put back, no file left over
    assert marked(workspace) == []


def test_another_agent_shells_marks_set_during_a_command_are_not_taken_for_the_commands(
    tmp_path: Path, cli_env: dict[str, str], script: Callable[[list[Any]], str], workspace: Path
) -> None:
    """An agent-shell without the rule sees the bits the other one set while its command
    ran as that command's hiding of edits (.gitflags), and cleared them from under the
    other's command."""
    require_sandbox()
    repo(workspace, cli_env)
    plain_config = tmp_path / "plain-config"
    plain_config.mkdir()
    (plain_config / "config.toml").write_text('[permissions]\nmode = "auto"\n')
    loop = "until [ -e {0} ]; do sleep 0.1; done"
    plain = start({**cli_env, "AGENT_SHELL_CONFIG_DIR": str(plain_config)}, script, workspace,
                  "touch b.go; " + loop.format("go"))
    try:
        wait_for(workspace / "b.go", plain)  # its flags are read
        ruled = start(cli_env, script, workspace, "touch a.go; " + loop.format("go2") +
                      "; git add -A && git commit -qm ruled && git show --stat --format=%s HEAD")
        try:
            wait_for(workspace / "a.go", ruled)  # its marks are set
            (workspace / "go").touch()
            plain.communicate(timeout=120)
            (workspace / "go2").touch()
            out, err = ruled.communicate(timeout=120)
        finally:
            ruled.kill()
    finally:
        plain.kill()
    assert ruled.returncode == 0, err
    assert git(workspace, "ls-tree", "-r", "--name-only", "HEAD", "secrets") == "secrets/plan.txt\n", out
    assert "DELETES" not in out and marked(workspace) == []
