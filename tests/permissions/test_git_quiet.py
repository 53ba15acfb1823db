"""Finding Q9 at the policy: while a deny rule names content git holds, a git command
runs as the mode says only when it is known to print and copy no contents
(:mod:`shell.permissions.gitquiet`); every other spelling asks, naming the rule."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from .test_read_deny_commands import decide, tracked_repo

ENV = {"GIT_CONFIG_GLOBAL": "/dev/null", "GIT_CONFIG_NOSYSTEM": "1", "PATH": "/usr/bin:/bin",
       "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@t", "GIT_COMMITTER_NAME": "t",
       "GIT_COMMITTER_EMAIL": "t@t"}


def git(root: Path, *args: str) -> None:
    subprocess.run(["git", "-C", str(root), *args], check=True, env=ENV, capture_output=True)


@pytest.mark.parametrize("command", [
    "git log -U1", "git log --unified=1", "git log --binary", "git whatchanged -U0",
    "git -c alias.v=show v HEAD", "git st", "git checkout-index -a -f --prefix=out/",
    "git read-tree -u --prefix=copy/ HEAD", "git restore --source HEAD -- .", "git checkout HEAD -- .",
    "git show -s plan", "git show --stat plan", "git log -1 --format=%N", "git stash list -p",
    "git push ../copy HEAD", "git status -v", "git --git-dir=.git log --oneline",
])
def test_a_git_command_not_known_to_be_quiet_asks(tmp_path: Path, command: str) -> None:
    """Each printed or laid out the denied file's committed content unasked: ``plan`` is a
    tag naming its blob (``git show -s`` prints a blob whole), a note can be any blob."""
    tracked_repo(tmp_path)
    git(tmp_path, "tag", "plan", "HEAD:config/secrets/db.txt")
    action, reason = decide(tmp_path, command)
    assert action == "ask", (command, reason)
    assert "deny read_file(config/secrets/**)" in reason


@pytest.mark.parametrize("command", [
    "git log --graph --decorate --oneline --all", "git log -n 3 --format=%H%x09%s --stat",
    "git show --stat HEAD", "git show -s --format=%B HEAD", "git diff --stat HEAD~0",
    "git commit -s -m x", "git -c user.name=t commit -qm x", "git push -u origin main", "git fetch -p",
    "git switch -c feat", "git checkout -b feat main", "git stash -u", "git stash list", "git branch -a",
    "git remote -v", "git tag -l", "git rev-parse HEAD", "git status -sb", "git restore --staged .",
])
def test_everyday_git_commands_run_as_the_mode_says(tmp_path: Path, command: str) -> None:
    tracked_repo(tmp_path)
    git(tmp_path, "tag", "plan", "HEAD:config/secrets/db.txt")
    assert decide(tmp_path, command)[0] == "allow", command
