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
    "git commit --dry-run -v", "git commit -qv -m x", "git diff --stat -U0 HEAD~0", "git diff --raw --binary",
    "git diff --name-only --word-diff", "git diff --stat --patch-with-stat", "git diff --cached",
    "git rev-list --objects --all", "git config --blob HEAD:README.md --list", "git config -f x --list",
    "git update-index --no-skip-worktree README.md", "git update-index --add --cacheinfo 100644,0,x",
    "git tag -n9 -l", "git symbolic-ref HEAD refs/heads/old", "git remote add c ../copy",
    "git status --bogus", "git push copy HEAD", "git fetch -- .. main:x", "git remote add c copy",
    "git -C copy checkout x", "cd copy && git reset -q --hard", "env -C copy git status",
    "env -Ccopy git status", "env --ch copy git status", "env -iCcopy git status",
    "env -S'-C copy git status'",
    "GIT_DIR=copy/.git git status", "/usr/lib/git-core/git-grep -h x HEAD", "git-log -p",
    "echo x > .git/refs/replace/y; git show --stat HEAD", "echo x > .git/HEAD; git reset -q --hard",
    "git --no-replace-objects show --stat HEAD",
    "git tag t HEAD; git fetch -q -- . refs/tags/t:refs/replace/x; git show --stat HEAD",
    "timeout 5 /usr/lib/git-core/git-show HEAD", "env git-log -p", "nice -n 5 git-grep x HEAD",
    "d=.git; echo x > $d/HEAD; git reset -q --hard",
    "git rev-parse HEAD > \"$D\"/refs/replace/x; git show -s",
    "git update-index --no-skip-worktree x; git diff", "git diff | cat", "bash -c 'git diff'",
    "G=git; $G log -p", "echo 'git log -p' | sh", "git $(echo log) -p",
])
def test_a_git_command_not_known_to_be_quiet_asks(tmp_path: Path, command: str) -> None:
    """Each printed or laid out the denied file's committed content unasked: ``plan`` is a
    tag naming its blob (``git show -s`` prints a blob whole), a note can be any blob."""
    tracked_repo(tmp_path)
    git(tmp_path, "tag", "plan", "HEAD:config/secrets/db.txt")
    (tmp_path / "README.md").write_text("two\n")
    git(tmp_path, "commit", "-qam", "two")  # HEAD~1 is another tree
    action, reason = decide(tmp_path, command)
    assert action == "ask", (command, reason)
    assert "deny read_file(config/secrets/**)" in reason


def test_git_in_a_folder_another_command_of_the_line_may_make_a_repository_asks(tmp_path: Path) -> None:
    """Finding U1: ``q`` is a folder of the workspace's repository when the line is read;
    after the copy it is a repository of its own, whose tree the sandbox does not hide."""
    tracked_repo(tmp_path)
    (tmp_path / "q").mkdir()
    assert decide(tmp_path, "cp -r . /tmp/c && cp -r /tmp/c/. q/ && git -C q reset -q --hard")[0] == "ask"
    assert decide(tmp_path, "cd q && cp -r /tmp/c/. . && git reset -q --hard")[0] == "ask"
    assert decide(tmp_path, "cd q && git status")[0] == "allow"


def test_a_replace_ref_is_resolved_as_the_sandboxs_git_resolves_it(tmp_path: Path) -> None:
    """Finding U7: the check asked git with replace refs off and saw HEAD's commit; the
    sandbox's git honours ``refs/replace/`` and ``git show --stat HEAD`` printed the blob."""
    tracked_repo(tmp_path)
    head = subprocess.run(["git", "-C", str(tmp_path), "rev-parse", "HEAD"], env=ENV, capture_output=True,
                          text=True, check=True).stdout.strip()
    git(tmp_path, "replace", "-f", head, "HEAD:config/secrets/db.txt")
    assert decide(tmp_path, "git show --stat HEAD")[0] == "ask"


@pytest.mark.parametrize("command", [
    "git log --graph --decorate --oneline --all", "git log -n 3 --format=%H%x09%s --stat",
    "git show --stat HEAD", "git show -s --format=%B HEAD", "git diff --stat HEAD~0",
    "git commit -s -m x", "git -c user.name=t commit -qm x", "git push -u origin main", "git fetch -p",
    "git switch -c feat", "git checkout -b feat main", "git stash -u", "git stash list", "git branch -a",
    "git remote -v", "git tag -l", "git rev-parse HEAD", "git status -sb", "git restore --staged .",
    "git diff", "git diff README.md", "git diff --stat -M HEAD~0 HEAD", "git status -uno",
    "git checkout main", "git checkout README.md", "git reset --hard", "git reset -q HEAD README.md",
    "git commit -qam 'x y'",
    "git checkout -q --orphan t", "git update-index -q --refresh", "git config --get user.name",
])
def test_everyday_git_commands_run_as_the_mode_says(tmp_path: Path, command: str) -> None:
    """Truly quiet, so unasked (a bare ``git diff`` is the work tree against an index whose
    marks hide the denied files, and nothing else on its line can drop them)."""
    tracked_repo(tmp_path)
    git(tmp_path, "tag", "plan", "HEAD:config/secrets/db.txt")
    git(tmp_path, "branch", "main")  # HEAD's tree
    git(tmp_path, "remote", "add", "origin", "https://example.invalid/r.git")  # a remote elsewhere
    assert decide(tmp_path, command)[0] == "allow", command


MOVES = ["git checkout -q HEAD~1", "git switch --detach HEAD~1", "git checkout -b old HEAD~1",
         "git checkout old", "git reset --hard HEAD~1", "git reset --soft HEAD~1", "git merge old",
         "git pull", "git revert HEAD", "git branch -f main HEAD~1; git checkout main",
         "git tag -f v HEAD~1; git checkout -q v", "git switch -C main HEAD~1; git checkout main"]


@pytest.mark.parametrize("command", MOVES)
def test_laying_out_another_tree_asks_while_a_denied_file_is_only_in_history(
    tmp_path: Path, command: str
) -> None:
    """Finding S2: ``config/secrets`` was committed, then removed; the sandbox hides only
    what exists, so ``git checkout HEAD~1; cat config/secrets/*`` printed it unasked."""
    history_only(tmp_path)
    action, reason = decide(tmp_path, command)
    assert action == "ask", (command, reason)
    assert "deny read_file(config/secrets/**)" in reason


def history_only(root: Path) -> None:
    tracked_repo(root)
    git(root, "branch", "old")
    git(root, "tag", "v")
    git(root, "rm", "-rq", "config/secrets")
    git(root, "commit", "-qm", "gone")
    git(root, "branch", "main")


@pytest.mark.parametrize("command", [
    "git checkout main", "git checkout -b feat main && git commit -qm x", "git status && git checkout main",
    "git switch -c feat && git commit -qam m && git checkout -q main", "git reset --hard",
])
def test_staying_on_heads_tree_runs_while_a_denied_file_is_only_in_history(
    tmp_path: Path, command: str
) -> None:
    """``main`` names HEAD's tree, and nothing on the line moves it first."""
    history_only(tmp_path)
    assert decide(tmp_path, command)[0] == "allow", command


@pytest.mark.parametrize("command", MOVES[:7])
def test_laying_out_another_tree_runs_while_the_sandbox_hides_every_denied_file(
    tmp_path: Path, command: str
) -> None:
    """The denied folder exists, so the sandbox hides it from whatever tree the command
    lays out: a branch switch stays unasked."""
    tracked_repo(tmp_path)
    git(tmp_path, "branch", "old")
    (tmp_path / "README.md").write_text("two\n")
    git(tmp_path, "commit", "-qam", "two")
    assert decide(tmp_path, command)[0] == "allow", command
