"""The second net under what the sandbox hides (findings Q17, Q18): a command that
rebuilds git's index drops the skip-worktree marks, and a ``!.env`` line in
``.gitignore`` beats every exclude. After the command, the index entries of hidden
paths are compared with those before it: what it dropped is put back, what it staged
of a hidden untracked file is taken out, and a commit it made that deletes or adds one
is said loudly with the commands that undo it. Real bubblewrap, real git."""

from __future__ import annotations

import shlex
from collections.abc import Iterator
from pathlib import Path

import pytest

from ..sandboxing import require_sandbox
from .later_ws import git, later_workspace
from .test_read_deny_git import COMMIT, KEY, changed_in_head, marked, repo, sandbox, sh, tree_at

pytestmark = pytest.mark.anyio

COMMIT_ONLY = "git -c user.name=t -c user.email=t@t commit -qm"


@pytest.fixture
def ws(monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    yield from later_workspace(monkeypatch, ".agent-shell-test-readdeny-net-")


REBUILDS = {
    "rm-index-reset": f"rm -f .git/index && git reset -q && echo f >> README.md && git add -A && "
                      f"{COMMIT_ONLY} fix",
    "read-tree": f"git read-tree HEAD; echo d >> README.md; git add -A; {COMMIT_ONLY} z",
}


@pytest.mark.parametrize("how", sorted(REBUILDS))
async def test_a_commit_after_the_index_is_rebuilt_is_said_loudly_and_the_entries_put_back(
    ws: Path, how: str
) -> None:
    """Finding Q17: the marks are lost, and the commit deletes the read-denied folder. It is
    not rewritten, but the result says so with the line that restores it, which works."""
    require_sandbox()
    repo(ws)
    before = tree_at(ws, "HEAD", "config")
    box = sandbox(ws, "config/secrets")
    result = await sh(box, REBUILDS[how])
    assert "[exit code 0]" in result.text, result.text
    assert "WARNING: a commit this command made" in result.text and "DELETES" in result.text, result.text
    assert "config/secrets/db.txt" in result.text and "Tell the user" in result.text
    amend = f"git -C {shlex.quote(str(ws))} commit --amend --no-edit"
    assert amend in result.text
    # the index holds them as before; the user's files are untouched; no mark of ours is left
    assert git(ws, "ls-files", "config").splitlines() == [e.split("\t")[1] for e in before.splitlines()]
    assert (ws / "config" / "secrets" / "db.txt").read_text().startswith("DBPASS=")
    assert marked(ws) == []
    git(ws, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "--amend", "--no-edit", "-q")
    assert tree_at(ws, "HEAD", "config") == before and changed_in_head(ws) == "M\tREADME.md\n"
    assert git(ws, "status", "--porcelain") == ""


async def test_entries_a_rebuilt_index_drops_are_put_back_without_a_commit(ws: Path) -> None:
    require_sandbox()
    repo(ws)
    box = sandbox(ws, "config/secrets")
    assert "put back" not in (await sh(box, "git status --porcelain")).text  # its snapshot is then reused
    result = await sh(box, "git read-tree HEAD && git add -A")
    assert "[exit code 0]" in result.text, result.text
    assert "put back as they were staged" in result.text and "WARNING" not in result.text, result.text
    assert git(ws, "status", "--porcelain") == "" and marked(ws) == []


def untracked_env(ws: Path, gitignore: str = "") -> None:
    (ws / "a.txt").write_text("a\n")
    if gitignore:
        (ws / ".gitignore").write_text(gitignore)
    git(ws, "init", "-q")
    git(ws, "add", "-A")
    git(ws, "commit", "-qm", "start")
    (ws / ".env").write_text(KEY + "\n")


async def test_a_repository_without_info_exclude_does_not_commit_the_env_empty(ws: Path) -> None:
    """Finding Q18 (a): git-secrets' hooks-only template leaves no ``info/exclude``; the
    exclude view was skipped there. Now one is made for the command and removed after."""
    require_sandbox()
    untracked_env(ws)
    (ws / ".git" / "info" / "exclude").unlink()
    (ws / ".git" / "info").rmdir()
    box = sandbox(ws)
    result = await sh(box, "echo b >> a.txt; " + COMMIT)
    assert "[exit code 0]" in result.text, result.text
    assert changed_in_head(ws) == "M\ta.txt\n", changed_in_head(ws)
    assert git(ws, "status", "--porcelain") == "?? .env\n"
    assert not (ws / ".git" / "info").exists()  # the repository as the user had it
    assert "WARNING" not in result.text and "sk-proj-REALKEY" not in result.text
    assert "quarantine" not in result.text, result.text


async def test_a_negated_gitignore_line_commits_the_env_empty_and_the_result_says_how_to_undo(
    ws: Path,
) -> None:
    """Finding Q18 (b): ``!.env`` in ``.gitignore`` beats info/exclude. The commit is said
    loudly, the index entry is taken out, and the line the result gives undoes the commit."""
    require_sandbox()
    untracked_env(ws, "*.log\n")
    box = sandbox(ws)
    result = await sh(box, "echo IS5lbnYK | base64 -d >> .gitignore; echo b >> a.txt; " + COMMIT)
    assert "[exit code 0]" in result.text, result.text
    assert "WARNING: a commit this command made" in result.text and "ADDS .env EMPTY" in result.text
    assert "(the first half is done)" in result.text, result.text
    assert git(ws, "ls-files", ".env") == ""  # out of the index: the next `git commit -a` cannot publish it
    assert (ws / ".env").read_text() == KEY + "\n"
    git(ws, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "--amend", "--no-edit", "-q")
    assert tree_at(ws, "HEAD", ".env") == ""


async def test_a_negated_gitignore_line_staging_the_env_is_undone_without_a_commit(ws: Path) -> None:
    require_sandbox()
    untracked_env(ws, "!.env\n")
    box = sandbox(ws)
    result = await sh(box, "git add -A; git status --porcelain")
    assert "[exit code 0]" in result.text, result.text
    assert "staged hidden files" in result.text and "taken out of the index again" in result.text
    assert git(ws, "status", "--porcelain") == "?? .env\n"


async def test_the_everyday_commit_says_nothing_of_the_net(ws: Path) -> None:
    require_sandbox()
    repo(ws)
    (ws / ".env").write_text(KEY + "\n")
    box = sandbox(ws, "config/secrets")
    result = await sh(box, "echo y >> README.md; " + COMMIT)
    assert "[exit code 0]" in result.text, result.text
    assert changed_in_head(ws) == "M\tREADME.md\n"
    assert "WARNING" not in result.text and "put back" not in result.text
    assert "staged hidden" not in result.text
    assert git(ws, "status", "--porcelain") == "?? .env\n" and marked(ws) == []


def test_an_info_exclude_made_for_commands_running_at_once_stays_until_the_last_ends(ws: Path) -> None:
    """Two commands in one repository share the ``info/exclude`` made for them: the first to
    end must not take it from under the second (its view would be gone)."""
    from shell.permissions.gitexclude import hold_exclude, release

    untracked_env(ws)
    (ws / ".git" / "info" / "exclude").unlink()
    first, second = hold_exclude(ws), hold_exclude(ws)
    assert first == second == ws / ".git" / "info" / "exclude" and first.is_file()
    release(first)
    assert first.is_file()
    release(second)
    assert not first.exists() and (ws / ".git" / "info").is_dir()  # info/ was the user's: kept
    (ws / ".git" / "info" / "exclude").write_text("# mine\n")
    assert hold_exclude(ws) is None  # the user's own is never made or removed
