"""What a deny rule on reading hides, git in the sandbox sees as git has it staged
(finding M8, second half: data lost from the user's history).

The sandbox hid ``config/secrets/`` (``deny read_file(config/secrets/**)``) as an empty
folder and ``prod.toml`` as ``/dev/null``: git in there took every tracked file in the
folder for deleted, and a routine ``git add -A && git commit -m wip`` committed the
deletions. Now the index's staged copies stand in their place, read-only: the commit
leaves them unchanged, while local edits not staged and untracked files stay hidden.
Where that cannot be shown (too many files, a staged copy not here), the command is
not run, and the result says why. Real bubblewrap runs, real git."""

from __future__ import annotations

import os
import stat
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from shell.permissions import gitstaged, stagedtree
from shell.permissions.sandbox import Sandbox
from shell.tools import shell_cmd
from shell.tools.shell_cmd import ShellToolError, run_command

from ..sandboxing import require_sandbox
from .later_ws import git, later_workspace

pytestmark = pytest.mark.anyio

SECRET = "DBPASS=hunter2-committed"
EDIT = "LOCAL-EDIT-NOT-STAGED-7f3a"
COMMIT = "git add -A && git -c user.name=t -c user.email=t@t commit -qm wip; git status --porcelain"


@pytest.fixture
def ws(monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    yield from later_workspace(monkeypatch, ".agent-shell-test-readdeny-git-")


def repo(ws: Path) -> None:
    """A repository with a tracked secrets folder and a tracked prod.toml, committed."""
    (ws / "config" / "secrets" / "deep").mkdir(parents=True)
    (ws / "config" / "secrets" / "db.txt").write_text(SECRET + "\n")
    (ws / "config" / "secrets" / "deep" / "api.txt").write_text("api=1\n")
    (ws / "config" / "secrets" / "run.sh").write_text("#!/bin/sh\necho run\n")
    (ws / "config" / "secrets" / "run.sh").chmod(0o755)
    os.symlink("db.txt", ws / "config" / "secrets" / "current")
    (ws / "prod.toml").write_text("prod = 1\n")
    (ws / "README.md").write_text("hello\n")
    git(ws, "init", "-q")
    git(ws, "add", "-A")
    git(ws, "commit", "-qm", "start")


@pytest.fixture
def viewed(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every line gets the staged view, as a line of git commands alone does, so one
    command can both run git and look at what the view shows (these tests check the view)."""
    monkeypatch.setattr(shell_cmd, "only_git", lambda command: True)


def sandbox(ws: Path, *denied: str) -> Sandbox:
    box = Sandbox(ws)
    box.denied_reads = lambda: [box.workspace / d for d in denied]  # the policy answers thus
    return box


async def sh(box: Sandbox, command: str) -> Any:
    return await run_command(command, box.workspace, 60, lambda _: None, sandbox=box)


def tree_at(ws: Path, rev: str, path: str) -> str:
    return git(ws, "ls-tree", "-r", rev, "--", path)


async def test_commit_all_leaves_hidden_tracked_files_unchanged_and_edits_stay_hidden(
    ws: Path, viewed: None
) -> None:
    require_sandbox()
    repo(ws)
    before = tree_at(ws, "HEAD", "config") + tree_at(ws, "HEAD", "prod.toml")
    with (ws / "config" / "secrets" / "db.txt").open("a") as f:
        f.write(EDIT + "\n")  # the user's edit, not staged
    (ws / "config" / "secrets" / "new.txt").write_text(EDIT + "-untracked\n")
    (ws / "prod.toml").write_text(f"prod = 1\n# {EDIT}\n")
    box = sandbox(ws, "config/secrets", "prod.toml")
    result = await sh(box, "find config -type f -exec cat {} +; cat $(ls | grep toml); echo y >> README.md; "
                           + COMMIT)
    assert EDIT not in result.text, result.text  # neither the edits nor the untracked file
    assert SECRET in result.text and "api=1" in result.text and "prod = 1" in result.text  # as staged
    assert "[exit code 0]" in result.text, result.text
    committed = git(ws, "show", "--stat", "--format=%s", "HEAD")
    assert committed.startswith("wip") and "README.md" in committed
    assert "config" not in committed and "prod.toml" not in committed, committed
    assert tree_at(ws, "HEAD", "config") + tree_at(ws, "HEAD", "prod.toml") == before
    # the user's files are as they left them; git on the host still sees their edits
    assert EDIT in (ws / "config" / "secrets" / "db.txt").read_text()
    status = git(ws, "status", "--porcelain")
    assert " M config/secrets/db.txt" in status and " M prod.toml" in status


async def test_a_command_that_runs_no_git_sees_them_hidden_not_as_committed(ws: Path) -> None:
    """The staged view is for git only: a command that does not run git (a recursive grep,
    find -exec cat) reads nothing of a read-denied file, not even its committed content."""
    require_sandbox()
    repo(ws)
    box = sandbox(ws, "config/secrets", "prod.toml")
    result = await sh(box, "find config -type f -exec cat {} +; grep -r hunter2 . --exclude-dir=.git; "
                           "cat $(ls | grep toml); echo END")
    assert "END" in result.text, result.text
    assert SECRET not in result.text and "api=1" not in result.text and "prod = 1" not in result.text
    assert "by a command that runs git, as git has them staged" in result.text, result.text


async def test_a_folder_the_config_hides_is_committed_unchanged_too(ws: Path) -> None:
    """``[sandbox] hide`` hid a tracked folder as empty just as a deny rule did, so a
    sandboxed commit deleted its files from the next commit."""
    require_sandbox()
    repo(ws)
    box = Sandbox(ws, hidden=[ws / "config" / "secrets"])
    (ws / "README.md").write_text("y\n")
    result = await sh(box, COMMIT)
    assert "[exit code 0]" in result.text, result.text
    committed = git(ws, "show", "--stat", "--format=%s", "HEAD")
    assert "README.md" in committed and "config" not in committed, committed
    assert "hunter2" not in (await sh(box, "grep -r hunter2 config; echo END")).text  # no git: hidden


async def test_only_a_line_of_git_commands_alone_gets_the_view(ws: Path) -> None:
    """Verify round P1: ``git status --short; grep -r …`` read the staged view with grep. A
    line that runs git beside other programs sees the folder hidden (the policy asks first)."""
    require_sandbox()
    repo(ws)
    box = sandbox(ws, "config/secrets")
    mixed = await sh(box, "git status --short; grep -r hunter2 config; echo END")
    assert "END" in mixed.text and SECRET not in mixed.text, mixed.text
    assert " D config/secrets/db.txt" in mixed.text  # hidden: git takes them for deleted here
    alone = await sh(box, "git status --short && git diff --stat")
    assert "(no output)" in alone.text and " D " not in alone.text, alone.text  # the view: nothing deleted


async def test_without_the_staged_copies_the_commit_deletes_them(ws: Path) -> None:
    """The control: the same command with the folder hidden empty (as before) commits
    the tracked files deleted. So the test above can fail."""
    require_sandbox()
    repo(ws)
    box = sandbox(ws, "config/secrets")
    box.staged_in_place = lambda hidden: {}  # type: ignore[method-assign]
    await sh(box, "echo y >> README.md; " + COMMIT)
    assert "config/secrets/db.txt" in git(ws, "show", "--stat", "HEAD")


async def test_links_modes_submodules_and_odd_names_look_unchanged_to_git(ws: Path, viewed: None) -> None:
    require_sandbox()
    repo(ws)
    sub = ws.parent / "lib"
    sub.mkdir()
    git(sub, "init", "-q")
    (sub / "x").write_text("x\n")
    git(sub, "add", "x")
    git(sub, "commit", "-qm", "lib")
    odd = os.fsdecode(b"odd\nname \xff;$(touch PWNED).txt")  # a newline, a byte no UTF-8 has, shell words
    (ws / "config" / "secrets" / odd).write_bytes(b"odd\n")
    git(ws, "-c", "protocol.file.allow=always", "submodule", "add", "-q", str(sub), "config/secrets/vendored")
    git(ws, "add", "-A")
    git(ws, "commit", "-qm", "more")
    box = sandbox(ws, "config/secrets")
    result = await sh(box, "git status --porcelain; echo ==; readlink config/secrets/current; "
                           "test -x config/secrets/run.sh && echo EXEC; "
                           "ls -A config/secrets/vendored | wc -l; cat config/secrets/odd*")
    status, _, rest = result.text.partition("==\n")
    assert status.strip() == "", result.text  # nothing changed, nothing deleted
    assert rest.startswith("db.txt\nEXEC\n0\nodd\n"), result.text  # a link, a mode, an empty submodule
    assert not (ws / "PWNED").exists() and not (ws / "config" / "secrets" / "PWNED").exists()


async def test_a_file_staged_as_deleted_stays_deleted_and_unreadable(ws: Path, viewed: None) -> None:
    require_sandbox()
    repo(ws)
    git(ws, "rm", "-q", "--cached", "config/secrets/db.txt")  # the user staged its removal, kept the file
    box = sandbox(ws, "config/secrets")
    result = await sh(box, "git status --porcelain; find config -type f -exec cat {} +")
    assert "D  config/secrets/db.txt" in result.text
    assert SECRET not in result.text and "api=1" in result.text


async def test_a_nested_repository_shows_its_own_staged_files(ws: Path, viewed: None) -> None:
    require_sandbox()
    git(ws, "init", "-q")
    (ws / "README.md").write_text("outer\n")
    git(ws, "add", "README.md")
    git(ws, "commit", "-qm", "outer")
    inner = ws / "app"
    (inner / "secrets").mkdir(parents=True)
    (inner / "secrets" / "key.txt").write_text(SECRET + "\n")
    git(inner, "init", "-q")
    git(inner, "add", "-A")
    git(inner, "commit", "-qm", "inner")
    (inner / "secrets" / "key.txt").write_text(EDIT + "\n")
    box = sandbox(ws, "app/secrets")
    result = await sh(box, "cd app && cat secrets/* && git commit -qam wip; git status --porcelain")
    assert SECRET in result.text and EDIT not in result.text, result.text
    assert git(inner, "log", "--format=%s") == "inner\n"  # nothing to commit: nothing deleted


async def test_too_many_tracked_files_are_not_shown_and_the_command_is_not_run(
    ws: Path, monkeypatch: pytest.MonkeyPatch, viewed: None
) -> None:
    require_sandbox()
    repo(ws)
    monkeypatch.setattr(gitstaged, "MAX_TREE_FILES", 3)
    box = sandbox(ws, "config/secrets")
    with pytest.raises(ShellToolError) as refused:
        await sh(box, "touch ran; " + COMMIT)
    text = str(refused.value)
    assert "not run" in text and "config/secrets: 4 tracked files, more than the 3" in text, text
    assert "git add -A" in text and "/permissions" in text
    assert not (ws / "ran").exists()
    assert git(ws, "log", "--format=%s") == "start\n"


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
    with pytest.raises(ShellToolError, match="1 file is in a merge conflict"):
        await sh(box, COMMIT)
    assert "UU config/secrets/db.txt" in git(ws, "status", "--porcelain")


async def test_a_staged_copy_missing_from_a_partial_clone_is_not_fetched_and_the_command_not_run(
    ws: Path,
) -> None:
    require_sandbox()
    repo(ws)
    marker = ws.parent / "FETCHED"
    (ws / "config" / "secrets" / "lazy.txt").write_text("lazy\n")
    git(ws, "add", "config/secrets/lazy.txt")
    blob = git(ws, "hash-object", "config/secrets/lazy.txt").strip()
    (ws / ".git" / "objects" / blob[:2] / blob[2:]).unlink()
    with (ws / ".git" / "config").open("a") as f:
        f.write(f'[extensions]\n\tpartialClone = origin\n[remote "origin"]\n\turl = {ws.parent}/nowhere\n'
                f"\tpromisor = true\n\tuploadpack = \"touch '{marker}'; git-upload-pack\"\n")
    git(ws, "config", "core.repositoryformatversion", "1")
    box = sandbox(ws, "config/secrets")
    with pytest.raises(ShellToolError, match=r"1 staged copy could not be read \(not in this partial clone"):
        await sh(box, "git status")
    assert "hi" in (await sh(box, "echo hi")).text  # runs no git: hidden as empty, nothing to refuse
    assert not marker.exists()


def test_names_from_a_hostile_index_cannot_reach_outside_the_folder(tmp_path: Path) -> None:
    """The index a command wrote may hold names git itself never checks out."""
    base = tmp_path / "base"
    base.mkdir()
    blob = tmp_path / "blob"
    blob.write_text("x")
    blobs = {("a" * 40, False): str(blob)}
    for names in ([b"../escaped"], [b"a/../../escaped"], [b"sub/.GIT/config"], [b"a", b"a/b"],
                  [b"a//b"], [b"./a"]):
        entries = [stagedtree.Entry(n, stagedtree.REGULAR, "a" * 40) for n in names]
        shown, why = stagedtree.build(str(base), entries, blobs)
        assert shown == "" and why, names
    link = [stagedtree.Entry(b"l", stagedtree.SYMLINK, "a" * 40),
            stagedtree.Entry(b"l/b", stagedtree.REGULAR, "a" * 40)]  # beneath a link to anywhere
    assert stagedtree.build(str(base), link, blobs)[0] == ""
    assert not (tmp_path / "escaped").exists() and os.listdir(base) == []
    ok = [stagedtree.Entry(b"d/f", stagedtree.REGULAR, "a" * 40)]
    shown, why = stagedtree.build(str(base), ok, blobs)
    assert why == "" and (Path(shown) / "d" / "f").read_text() == "x"
    assert stat.S_IMODE(os.stat(shown).st_mode) == 0o755


async def test_what_the_user_stages_next_is_what_the_next_command_sees(ws: Path, viewed: None) -> None:
    """The folder follows the index: a version the user stages shows in the next command,
    and git's own index rewrites in between (status, stash) change nothing it shows."""
    require_sandbox()
    repo(ws)
    box = sandbox(ws, "config/secrets")
    (ws / "README.md").write_text("changed\n")
    first = await sh(box, "git status --porcelain; git stash -q && git stash pop -q; git status --porcelain; "
                          "find config -name db.txt -exec cat {} +")
    assert first.text.count(" M README.md") == 2 and " D " not in first.text, first.text
    assert SECRET in first.text
    (ws / "config" / "secrets" / "db.txt").write_text("password = second\n")
    git(ws, "add", "config/secrets/db.txt")  # the user stages a new version
    second = await sh(box, "find config -name db.txt -exec cat {} +; git status --porcelain")
    assert "password = second" in second.text and SECRET not in second.text, second.text
    assert "M  config/secrets/db.txt" in second.text and " D " not in second.text


@pytest.mark.parametrize(("command", "runs"), [
    ("git add -A && git commit -m wip", True), ("cd x && /usr/bin/git status", True),
    ("bash -c 'git stash'", True), ("env GIT_DIR=.git git log", True), ("xargs git add < list", True),
    ("pre-commit run -a", True), ("x=$(echo git); $x status", True), ("ls; git -C . commit -am x", True),
    ("grep -r TOP .", False), ("find config -type f -exec cat {} +", False), ("echo git", False),
    ("cat notes | grep git", False),
])
def test_which_commands_get_the_staged_view(command: str, runs: bool) -> None:
    from shell.permissions.gitinvoked import runs_git

    assert runs_git(command) is runs
