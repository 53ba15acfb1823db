"""The second net and the refs a command parks content in (r19): the stash, its list,
notes, refs of its own, through the real console script, real bubblewrap and real git.

``deny = ["read_file(secrets/**)"]`` over a committed ``secrets/plan.txt``. A command
(approved: the net is for what got through) copies the denied content under another name
and parks it where the user's own git later shows or applies it (``git stash pop``,
``git stash show -p``, ``git log`` printing notes): what the user relies on is being told
which entry holds it and how to drop it, their stash left as it is (it may hold their work)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from ..sandboxing import require_sandbox
from .conftest import RunCli
from .test_git_net_denied_blobs import BLOB, approved
from .test_git_net_gaps import PLAN, git, repo

WORK_TREE_COPY = BLOB + "git cat-file blob $B > README.md && "
"""The denied content written over a tracked file in the work tree only (the index as HEAD)."""


def test_a_work_tree_copy_parked_in_the_stash_is_said_with_the_entry_to_drop(
    run_cli: RunCli, cli_env: dict[str, str], script: Callable[[list[Any]], str], workspace: Path
) -> None:
    """``git stash`` keeps the work tree as a merge commit (HEAD and the index its parents),
    which a diff of each commit against nothing but a single parent did not look into;
    ``git stash pop`` on the host would write the content back as README.md."""
    require_sandbox()
    repo(workspace, cli_env)
    out = approved(run_cli, script, WORK_TREE_COPY + "git stash -q")
    assert git(workspace, "stash", "list").count("\n") == 1, out  # the user's stash is not touched
    assert (workspace / "README.md").read_text() == "hello\n", out
    assert "WARNING: the command gave git a copy of a read-denied file" in out and "README.md" in out, out
    assert "stash drop stash@{0}" in out, out
    assert "branch -D" not in out, out


def test_a_copy_pushed_down_the_stash_list_is_said(
    run_cli: RunCli, cli_env: dict[str, str], script: Callable[[list[Any]], str], workspace: Path
) -> None:
    """A second stash pushes the first to ``stash@{1}``: no ref points at it, only the
    stash's reflog, which ``git stash list`` and ``git stash apply stash@{1}`` read."""
    require_sandbox()
    repo(workspace, cli_env)
    out = approved(run_cli, script, BLOB + "git update-index --add --cacheinfo 100644,$B,docs/notes.txt && "
                   "git stash -q && echo more >> README.md && git stash -q")
    assert git(workspace, "stash", "list").count("\n") == 2, out
    assert "docs/notes.txt" in out and "stash drop stash@{1}" in out, out
    assert git(workspace, "ls-files", "docs") == ""


def test_a_copy_stored_in_the_stash_by_commit_is_said(
    run_cli: RunCli, cli_env: dict[str, str], script: Callable[[list[Any]], str], workspace: Path
) -> None:
    """``git stash store`` parks any commit: one built with ``commit-tree``, the index untouched."""
    require_sandbox()
    repo(workspace, cli_env)
    out = approved(run_cli, script, BLOB + "T=$(printf '100644 blob %s\\tnotes.txt\\n' $B | git mktree) && "
                   "C=$(git commit-tree $T -p HEAD -m wip) && git stash store -m wip $C")
    assert "notes.txt" in out and "stash drop stash@{0}" in out, out


def test_a_note_holding_the_denied_content_is_said_with_its_ref(
    run_cli: RunCli, cli_env: dict[str, str], script: Callable[[list[Any]], str], workspace: Path
) -> None:
    """``git notes add -C <blob>``: ``git log`` on the host prints the note under every commit."""
    require_sandbox()
    repo(workspace, cli_env)
    out = approved(run_cli, script, BLOB + "git notes --ref=commits add -C $B HEAD")
    assert "WARNING: the command gave git a copy of a read-denied file" in out, out
    assert "refs/notes/commits" in out and "branch -D" not in out, out


def test_a_copy_on_a_ref_of_its_own_is_said_with_how_to_delete_it(
    run_cli: RunCli, cli_env: dict[str, str], script: Callable[[list[Any]], str], workspace: Path
) -> None:
    require_sandbox()
    repo(workspace, cli_env)
    out = approved(run_cli, script, BLOB + "T=$(printf '100644 blob %s\\tnotes.txt\\n' $B | git mktree) && "
                   "git update-ref refs/parked/x $(git commit-tree $T -m parked)")
    assert "notes.txt" in out and "update-ref -d refs/parked/x" in out, out


def test_a_stash_of_ordinary_work_and_dropping_the_users_own_entry_say_nothing(
    run_cli: RunCli, cli_env: dict[str, str], script: Callable[[list[Any]], str], workspace: Path
) -> None:
    """The user's earlier stash entries were there before: not the command's copies."""
    require_sandbox()
    repo(workspace, cli_env)
    (workspace / "README.md").write_text("the user's work\n")
    git(workspace, "stash", "-q")
    git(workspace, "stash", "apply", "-q")
    git(workspace, "stash", "-q")
    out = approved(run_cli, script, "echo edit >> README.md && git stash -q && git stash drop -q stash@{2}")
    assert "WARNING" not in out, out
    assert git(workspace, "stash", "list").count("\n") == 2
    assert (workspace / "secrets" / "plan.txt").read_text() == PLAN
