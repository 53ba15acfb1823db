"""What the sandbox hides never looks deleted, emptied or new to any git it runs
(findings M8, P8, P10, P15), and no program reads a copy of it (finding P1).

The sandbox hides ``config/secrets/`` (``deny read_file(config/secrets/**)``) as an empty
folder, ``prod.toml`` as an empty file, ``[sandbox] hide`` folders the same, and secret
files (``.env``) as empty files. git in there took the tracked ones for deleted, and a
routine ``git add -A && git commit`` committed that; an untracked ``.env`` was committed
empty. Now their index entries are marked skip-worktree for the command's length (every
git honours that, however it is started: make, a script, npm), an untracked hidden file
is excluded for the command, and what the user had (their own bits, their excludes) is
as it was after. Real bubblewrap runs, real git."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import pytest

from shell.permissions import gitmarkrecords, gitmarks
from shell.permissions.sandbox import Sandbox
from shell.tools.shell_cmd import ShellToolError, run_command

from ..sandboxing import require_sandbox
from .later_ws import git, later_workspace

pytestmark = pytest.mark.anyio

SECRET = "DBPASS=hunter2-committed"
EDIT = "LOCAL-EDIT-NOT-STAGED-7f3a"
KEY = "OPENAI_API_KEY=sk-proj-REALKEY0123456789abcdefXYZ"
COMMIT = "git add -A && git -c user.name=t -c user.email=t@t commit -qm wip; git status --porcelain"


@pytest.fixture
def ws(monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    yield from later_workspace(monkeypatch, ".agent-shell-test-readdeny-git-")


def repo(ws: Path) -> None:
    """A repository with a tracked secrets folder and a tracked prod.toml, committed."""
    (ws / "config" / "secrets" / "deep").mkdir(parents=True)
    (ws / "config" / "secrets" / "db.txt").write_text(SECRET + "\n")
    (ws / "config" / "secrets" / "deep" / "api.txt").write_text("api=1\n")
    os.symlink("db.txt", ws / "config" / "secrets" / "current")
    (ws / "prod.toml").write_text("prod = 1\n")
    (ws / "README.md").write_text("hello\n")
    git(ws, "init", "-q")
    git(ws, "add", "-A")
    git(ws, "commit", "-qm", "start")


def sandbox(ws: Path, *denied: str) -> Sandbox:
    box = Sandbox(ws)
    box.denied_reads = lambda: [box.workspace / d for d in denied]  # the policy answers thus
    box.may_write_hidden = lambda _: True  # and no write rule covers them, nor is it plan mode
    return box


async def sh(box: Sandbox, command: str) -> Any:
    return await run_command(command, box.workspace, 60, lambda _: None, sandbox=box)


def tree_at(ws: Path, rev: str, path: str) -> str:
    return git(ws, "ls-tree", "-r", rev, "--", path)


def marked(ws: Path) -> list[str]:
    """The index entries marked skip-worktree now."""
    return [line[2:] for line in git(ws, "ls-files", "-t").splitlines() if line.startswith("S ")]


def changed_in_head(ws: Path) -> str:
    return git(ws, "show", "--name-status", "--format=", "HEAD")


async def test_commit_all_leaves_hidden_tracked_files_unchanged_and_nothing_reads_them(ws: Path) -> None:
    require_sandbox()
    repo(ws)
    before = tree_at(ws, "HEAD", "config") + tree_at(ws, "HEAD", "prod.toml")
    with (ws / "config" / "secrets" / "db.txt").open("a") as f:
        f.write(EDIT + "\n")  # the user's edit, not staged
    (ws / "prod.toml").write_text(f"prod = 1\n# {EDIT}\n")
    box = sandbox(ws, "config/secrets", "prod.toml")
    result = await sh(box, "git status --short; find config -type f -exec cat {} +; cat prod.toml; "
                           "grep -r hunter2 . --exclude-dir=.git; echo y >> README.md; " + COMMIT)
    assert "[exit code 0]" in result.text, result.text
    assert EDIT not in result.text and SECRET not in result.text and "prod = 1" not in result.text  # P1
    assert " D " not in result.text and " M prod.toml" not in result.text, result.text
    assert changed_in_head(ws) == "M\tREADME.md\n"
    assert tree_at(ws, "HEAD", "config") + tree_at(ws, "HEAD", "prod.toml") == before
    # the user's files are as they left them, no mark is left, and git on the host sees their edits
    assert EDIT in (ws / "config" / "secrets" / "db.txt").read_text()
    assert marked(ws) == []
    status = git(ws, "status", "--porcelain")
    assert " M config/secrets/db.txt" in status and " M prod.toml" in status
    assert "git leaves what it tracks there as staged" in result.text


SCRIPTS = {
    "make": ("Makefile", "commit:\n\tgit add -A && git -c user.name=t -c user.email=t@t commit -qm wip\n",
             "make -s commit"),
    "script": ("commit.sh", "#!/bin/sh\ngit add -A && git -c user.name=t -c user.email=t@t commit -qm wip\n",
               "./commit.sh"),
    "npm": ("package.json", json.dumps({"name": "x", "version": "1.0.0", "scripts": {
        "c": "git add -A && git -c user.name=t -c user.email=t@t commit -qm wip"}}), "npm run -s c"),
}


@pytest.mark.parametrize("runner", sorted(SCRIPTS))
async def test_git_a_script_runs_commits_the_hidden_folder_unchanged(ws: Path, runner: str) -> None:
    """Finding P10: the staged view went only to a line naming git; ``make commit``,
    ``./commit.sh`` and ``npm run c`` committed the read-denied folder deleted."""
    require_sandbox()
    name, text, command = SCRIPTS[runner]
    if runner in ("make", "npm") and not any(os.access(os.path.join(d, runner), os.X_OK)
                                             for d in os.environ.get("PATH", "").split(os.pathsep)):
        pytest.skip(f"{runner} is not installed")
    repo(ws)
    (ws / name).write_text(text)
    (ws / name).chmod(0o755)
    git(ws, "add", name)
    git(ws, "commit", "-qm", "runner")
    (ws / "README.md").write_text("changed\n")
    box = sandbox(ws, "config/secrets")
    result = await sh(box, command)
    assert "[exit code 0]" in result.text, result.text
    assert changed_in_head(ws) == "M\tREADME.md\n", result.text
    assert "config/secrets/db.txt" in git(ws, "ls-files") and marked(ws) == []


@pytest.mark.parametrize("relative", [True, False])
async def test_a_folder_the_config_hides_is_committed_unchanged(ws: Path, relative: bool) -> None:
    """Finding P8: ``[sandbox] hide = ["private"]`` (relative) got no staged view, so a
    sandboxed commit deleted its files; the absolute form got one, which ``grep`` read."""
    require_sandbox()
    (ws / "private").mkdir()
    (ws / "private" / "x.txt").write_text("HIDDENFOLDERDATA\n")
    (ws / "a.txt").write_text("a\n")
    git(ws, "init", "-q")
    git(ws, "add", "-A")
    git(ws, "commit", "-qm", "start")
    box = Sandbox(ws, hidden=["private" if relative else str(ws / "private")])
    result = await sh(box, "git status --short; grep -r HIDDEN . --exclude-dir=.git; echo y >> a.txt; "
                           + COMMIT)
    assert "[exit code 0]" in result.text, result.text
    assert "HIDDENFOLDERDATA" not in result.text and " D " not in result.text, result.text
    assert changed_in_head(ws) == "M\ta.txt\n"
    assert git(ws, "status", "--porcelain") == "" and marked(ws) == []


async def test_an_untracked_secret_file_is_not_committed_empty(ws: Path) -> None:
    """Finding P15: ``git add -A && git commit`` committed an untracked ``.env`` as an empty
    file; on the host the real key then read as a change to a tracked file."""
    require_sandbox()
    (ws / "a.txt").write_text("a\n")
    git(ws, "init", "-q")
    git(ws, "add", "-A")
    git(ws, "commit", "-qm", "start")
    (ws / ".env").write_text(KEY + "\n")
    (ws / "sub").mkdir()
    (ws / "sub" / "id_ed25519").write_text("-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaA\n")
    exclude = ws / ".git" / "info" / "exclude"
    own = exclude.read_bytes()
    box = Sandbox(ws)
    result = await sh(box, "echo b >> a.txt; " + COMMIT)
    assert "[exit code 0]" in result.text, result.text
    assert changed_in_head(ws) == "M\ta.txt\n", changed_in_head(ws)
    assert git(ws, "status", "--porcelain", "--untracked-files=all") == "?? .env\n?? sub/id_ed25519\n"
    assert exclude.read_bytes() == own  # the user's excludes as they were
    assert "sk-proj-REALKEY" not in result.text


async def test_the_users_own_skip_worktree_bits_stay_and_only_ours_are_cleared(ws: Path) -> None:
    require_sandbox()
    repo(ws)
    git(ws, "update-index", "--skip-worktree", "config/secrets/db.txt", "README.md")  # the user's own
    git(ws, "update-index", "--assume-unchanged", "config/secrets/deep/api.txt")
    box = sandbox(ws, "config/secrets")
    result = await sh(box, "echo y >> prod.toml; " + COMMIT)
    assert "[exit code 0]" in result.text, result.text
    assert changed_in_head(ws) == "M\tprod.toml\n"
    assert marked(ws) == ["README.md", "config/secrets/db.txt"]  # theirs, and none of ours
    assert git(ws, "ls-files", "-v", "config/secrets/deep/api.txt").startswith("h ")  # assume-unchanged kept


async def test_a_merge_conflict_in_a_hidden_folder_is_not_resolved_as_deleted(ws: Path) -> None:
    require_sandbox()
    repo(ws)
    git(ws, "checkout", "-qb", "other")
    (ws / "config" / "secrets" / "db.txt").write_text("other\n")
    git(ws, "commit", "-qam", "other")
    git(ws, "checkout", "-q", "-")
    (ws / "config" / "secrets" / "db.txt").write_text("mine\n")
    git(ws, "commit", "-qam", "mine")
    with pytest.raises(subprocess.CalledProcessError):
        git(ws, "merge", "-q", "other")  # a conflict in db.txt
    box = sandbox(ws, "config/secrets")
    with pytest.raises(ShellToolError, match=r"config/secrets/db\.txt is in a merge conflict"):
        await sh(box, "touch ran; " + COMMIT)
    assert not (ws / "ran").exists()
    assert "UU config/secrets/db.txt" in git(ws, "status", "--porcelain") and marked(ws) == []


async def test_a_locked_index_refuses_the_command_and_marks_nothing(
    ws: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    require_sandbox()
    repo(ws)
    monkeypatch.setattr(gitmarks, "LOCK_TRIES", 2)
    (ws / ".git" / "index.lock").write_text("")  # another git is writing the index
    box = sandbox(ws, "config/secrets")
    with pytest.raises(ShellToolError, match="could not be marked"):
        await sh(box, "touch ran")
    (ws / ".git" / "index.lock").unlink()
    assert not (ws / "ran").exists() and marked(ws) == []


CRASH = """
import os, sys
from pathlib import Path
from shell.permissions import gitmarkrecords, gitmarks
marks, problem = gitmarks.mark([Path(sys.argv[1])])
assert marks and not problem, problem
os._exit(0)  # as a crash or a kill would: no unmark
"""


async def test_bits_a_crashed_session_left_are_cleared_when_a_sandbox_is_next_made(ws: Path) -> None:
    repo(ws)
    git(ws, "update-index", "--skip-worktree", "README.md")  # the user's own
    await anyio.run_process([sys.executable, "-c", CRASH, str(ws / "config" / "secrets")], check=True)
    assert len(marked(ws)) == 4  # README.md and the three under config/secrets
    Sandbox(ws)
    assert marked(ws) == ["README.md"]
    assert gitmarkrecords.records() == []  # no record left (the lock file they share stays)


async def test_bits_that_could_not_be_cleared_are_said_and_tried_again_later(
    ws: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Left set, a mark hides the user's edits from their next ``git commit -a``: the
    next command's result says so, with what to run, and the next start tries again."""
    require_sandbox()
    repo(ws)
    await anyio.run_process([sys.executable, "-c", CRASH, str(ws / "config" / "secrets")], check=True)
    monkeypatch.setattr(gitmarks, "LOCK_TRIES", 1)
    (ws / ".git" / "index.lock").write_text("")  # another git holds the index as the session starts
    box = Sandbox(ws)
    (ws / ".git" / "index.lock").unlink()
    result = await sh(box, "echo ran")
    assert "an earlier session ended before it cleared them: skip-worktree bits" in result.text, result.text
    assert "cleared as soon as it is gone" in result.text
    assert marked(ws) == []  # tried again before that command: the lock was gone
    assert "cleared them" not in (await sh(box, "echo again")).text  # said once


async def test_a_checkout_that_changes_a_hidden_file_brings_it_to_the_other_branch(ws: Path) -> None:
    """git stages the other branch's version but cannot write the hidden file: left, the
    old version read as a change that ``git commit -a`` would commit back (finding Q20).
    The shell writes it once the mark is cleared, as the checkout would have."""
    require_sandbox()
    repo(ws)
    git(ws, "checkout", "-qb", "other")
    (ws / "config" / "secrets" / "db.txt").write_text("other\n")
    git(ws, "commit", "-qam", "other")
    git(ws, "checkout", "-q", "-")
    box = sandbox(ws, "config/secrets")
    result = await sh(box, "git checkout -q other; git status --porcelain")
    assert "agent-shell brought them to that version" in result.text, result.text
    assert "(config/secrets/db.txt)" in result.text and "other" not in result.text.split("[exit code")[0]
    assert git(ws, "status", "--porcelain") == "" and marked(ws) == []
    assert (ws / "config" / "secrets" / "db.txt").read_text() == "other\n"
    plain = await sh(box, "echo y >> README.md; " + COMMIT)
    assert "brought" not in plain.text and "changed what git has staged" not in plain.text, plain.text


async def test_naming_a_tracked_secret_file_shown_as_staged_in_git_add_still_works(ws: Path) -> None:
    """A tracked ``.envrc`` reads as its staged copy, which git sees unchanged: it needs no
    mark, and a marked one made ``git add .envrc notes.md`` fail ("outside of your
    sparse-checkout definition"), so the commit after it never ran."""
    require_sandbox()
    (ws / ".envrc").write_text("export PATH=$PWD/bin:$PATH\n")
    (ws / "notes.md").write_text("a\n")
    git(ws, "init", "-q")
    git(ws, "add", "-A")
    git(ws, "commit", "-qm", "start")
    (ws / ".envrc").write_text(f"export PATH=$PWD/bin:$PATH\nexport {KEY}\n")
    box = Sandbox(ws)
    result = await sh(box, "echo b >> notes.md; git add .envrc notes.md && "
                           "git -c user.name=t -c user.email=t@t commit -qm notes && echo COMMITTED")
    assert "COMMITTED" in result.text and "sparse-checkout" not in result.text, result.text
    assert changed_in_head(ws) == "M\tnotes.md\n" and marked(ws) == []
    assert KEY in (ws / ".envrc").read_text()


async def test_git_add_of_a_hidden_file_says_why_git_will_not(ws: Path) -> None:
    """Named outright (the policy asks first), git refuses a marked file as outside a
    sparse checkout, which this repository is not: the result says what happened."""
    require_sandbox()
    repo(ws)
    box = sandbox(ws, "config/secrets")
    result = await sh(box, "git add config/secrets/db.txt")
    assert "sparse-checkout" in result.text and "hidden from this command" in result.text, result.text
    assert "not a sparse checkout" in result.text and marked(ws) == []


async def test_in_a_sparse_checkout_the_marks_of_files_present_hold(ws: Path) -> None:
    """In a sparse checkout git clears the skip-worktree bit of a file it finds present,
    and a hidden file is present (empty): the sandbox tells git to expect such files."""
    require_sandbox()
    repo(ws)
    git(ws, "sparse-checkout", "set", "--no-cone", "/*")
    box = sandbox(ws, "prod.toml")
    result = await sh(box, "git status --porcelain; echo y >> README.md; " + COMMIT)
    assert "[exit code 0]" in result.text and " prod.toml" not in result.text, result.text  # no M, no error
    assert changed_in_head(ws) == "M\tREADME.md\n" and marked(ws) == []
