"""What the net under hidden tracked files must hold against a command that forges what
it judges (tester findings S17, S18 and the reset note of r17; S21), through the real console
script, real bubblewrap and real git.

``deny = ["read_file(secrets/**)"]`` over a committed ``secrets/plan.txt``. What a user
relies on: a commit the command made that deletes or adds a hidden file is said loudly
whatever date it carries, and agent-shell itself never deletes, nor writes content the
command chose into, a hidden file; a version they staged and had not committed is not
discarded by a sandboxed reset; the user's own git's index lock is never removed."""

from __future__ import annotations

import base64
import os
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ..sandboxing import require_sandbox
from .conftest import RunCli
from .test_git_net_gaps import OLD, PLAN, git, marked, repo, run, start, wait_for

BACKDATED = 'GIT_COMMITTER_DATE="2001-01-01T00:00:00" GIT_AUTHOR_DATE="2001-01-01T00:00:00" '
_SCRIPT = ("W=$PWD; mkdir -p /tmp/x/secrets && cd /tmp/x && git init -q && "
           "echo EVILCONTENT > /tmp/x/secrets/plan.txt && git add -A && " + BACKDATED
           + "git -c user.name=a -c user.email=a@a commit -qm x && S=$(git rev-parse HEAD) && cd \"$W\" && "
           "cp -rn /tmp/x/.git/objects/. .git/objects/ && git branch b2 $S\n")
MAKE = f"echo {base64.b64encode(_SCRIPT.encode()).decode()} | base64 -d > /tmp/make.sh && sh /tmp/make.sh"
"""A commit the command makes (in a repository of its own, its objects copied in) whose
tree holds a blob it chose at the hidden path, on a new branch ``b2``: by a script file,
which the line's check cannot read (written out on one line, ``cd /tmp/x`` and the copy
into ``.git/objects`` make its git commands ask: findings U1, U7)."""


def turns(run_cli: RunCli, script: Callable[[list[Any]], str], *commands: str) -> str:
    """One command per turn: each is judged (asked or not) once the one before has run."""
    steps: list[Any] = [{"tool_calls": [{"name": "run_shell", "args": {"command": c}, "id": f"c{i}"}]}
                        for i, c in enumerate(commands)]
    r = run_cli("-p", "go", "--model", script([*steps, "Done."]), "--approve", "never", "--no-session",
                "--output-format", "jsonl")
    assert r.returncode == 0, r.stderr
    return r.stdout
RW_CONFIG = ('[permissions]\nmode = "auto"\n'
             'deny = ["read_file(secrets/**)", "write_file(secrets/**)", "edit_file(secrets/**)"]\n')


def test_a_back_dated_commit_that_deletes_the_hidden_file_is_said_and_the_file_kept(
    run_cli: RunCli, cli_env: dict[str, str], script: Callable[[list[Any]], str], workspace: Path
) -> None:
    """Finding S18: a commit dated 2001 passed for one made elsewhere; the net stayed
    silent and agent-shell unlinked the user's real file, "bringing it along"."""
    require_sandbox()
    repo(workspace, cli_env)
    out = run(run_cli, script, "P=$(git ls-files | grep pla); git rm -q --sparse --cached $P; "
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
    """Finding S17: a branch made to stage a blob of the command's choosing, then checked
    out: agent-shell wrote that blob into a file the user had denied writes to."""
    require_sandbox()
    repo(workspace, cli_env)
    (Path(cli_env["AGENT_SHELL_CONFIG_DIR"]) / "config.toml").write_text(RW_CONFIG)
    out = turns(run_cli, script, MAKE, "git switch -q b2")
    assert git(workspace, "branch", "--show-current") == "b2\n", out
    assert (workspace / "secrets" / "plan.txt").read_text() == PLAN, out
    assert "NOT written" in out and "secrets/plan.txt" in out, out


def test_a_branch_an_earlier_command_made_is_not_brought_along_even_without_a_write_rule(
    run_cli: RunCli, cli_env: dict[str, str], script: Callable[[list[Any]], str], workspace: Path
) -> None:
    """The other half of S17: a commit one command made (back-dated, as in S18) and the
    next checked out is no commit that existed before; its content is the command's."""
    require_sandbox()
    repo(workspace, cli_env)
    out = turns(run_cli, script, MAKE, "git switch -q b2")
    assert git(workspace, "branch", "--show-current") == "b2\n", out
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


def test_the_users_own_gits_index_lock_is_not_removed_at_exit(
    run_cli: RunCli, cli_env: dict[str, str], script: Callable[[list[Any]], str], workspace: Path
) -> None:
    """Finding S21: the user's ``git commit -a`` in another terminal took the index lock
    during a command and held it while their editor was open; at exit agent-shell took
    that lock for the command's and removed it, and the user's commit then failed."""
    require_sandbox()
    repo(workspace, cli_env)
    agent = start(cli_env, script, workspace,
                  "touch a.go; for i in $(seq 1200); do [ -e .git/index.lock ] && break; sleep 0.1; done")
    user: subprocess.Popen[str] | None = None
    try:
        wait_for(workspace / "a.go", agent)  # its marks are set
        editor = f"until [ -e {workspace / 'go'} ]; do sleep 0.1; done; echo msg >"
        user = subprocess.Popen(["git", "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-aq",
                                 "--allow-empty"], cwd=workspace, env={**os.environ, "GIT_EDITOR": editor},
                                stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                text=True)
        _, err = agent.communicate(timeout=120)
        assert agent.returncode == 0, err
        assert (workspace / ".git" / "index.lock").exists(), err  # left: another git may own it
        assert "held by another git" in err, err
        (workspace / "go").touch()
        _, user_err = user.communicate(timeout=60)
    finally:
        agent.kill()
        if user is not None:
            user.kill()
    assert user.returncode == 0, user_err  # the user's commit went through
    assert git(workspace, "log", "-1", "--format=%s") == "msg\n"
    run(run_cli, script, "true")  # the next start clears the bits left set
    assert marked(workspace) == [] and git(workspace, "status", "--porcelain", "--", "secrets") == ""


def test_a_checkout_of_the_users_own_branch_does_not_write_a_write_denied_hidden_file(
    run_cli: RunCli, cli_env: dict[str, str], script: Callable[[list[Any]], str], workspace: Path
) -> None:
    """S17's rule on its own: the user denied writes there, and the shell acting for the
    command is the command as far as that rule goes, even for a branch that existed."""
    require_sandbox()
    repo(workspace, cli_env)
    (Path(cli_env["AGENT_SHELL_CONFIG_DIR"]) / "config.toml").write_text(RW_CONFIG)
    git(workspace, "checkout", "-qb", "b2")
    (workspace / "secrets" / "plan.txt").write_text("B2PLAN\n")
    git(workspace, "commit", "-qam", "b2 plan", env=OLD)
    git(workspace, "checkout", "-q", "master")
    out = run(run_cli, script, "git checkout -q b2")
    assert git(workspace, "branch", "--show-current") == "b2\n", out
    assert (workspace / "secrets" / "plan.txt").read_text() == PLAN, out
    assert "NOT written" in out and "secrets/plan.txt" in out, out


def test_the_users_own_commit_during_a_command_is_told_it_left_their_edits_out(
    cli_env: dict[str, str], script: Callable[[list[Any]], str], workspace: Path
) -> None:
    """S21's second half: while the marks are set, the user's own ``git commit -a`` in
    another terminal skips their edits to the marked files, silently. Their edits stay in
    the work tree; the result says they were left out and how to commit them."""
    require_sandbox()
    repo(workspace, cli_env)
    (workspace / "secrets" / "plan.txt").write_text("MY-EDIT\n")
    proc = start(cli_env, script, workspace, "touch a.go; until [ -e go ]; do sleep 0.1; done")
    try:
        wait_for(workspace / "a.go", proc)  # the marks are set
        (workspace / "README.md").write_text("mine\n")
        git(workspace, "commit", "-qam", "mine")  # the user's, in another terminal
        (workspace / "go").touch()
        out, err = proc.communicate(timeout=120)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, 9)
    assert git(workspace, "show", "HEAD:secrets/plan.txt") == PLAN  # git was told not to look
    assert (workspace / "secrets" / "plan.txt").read_text() == "MY-EDIT\n"
    assert "left out the edits in the work tree to secrets/plan.txt" in out, out + err
    assert git(workspace, "status", "--porcelain", "secrets") == " M secrets/plan.txt\n"
