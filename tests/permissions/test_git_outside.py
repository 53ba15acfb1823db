"""A workspace whose git directory lies outside it (a linked worktree, a subfolder of a
repository), against the real bubblewrap: sandboxed commands (unasked in auto mode) do
not read the repository's credentials, git can add and commit, and what runs later
(hooks, config) and the rest of the repository stay out of their reach."""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from shell.permissions.sandbox import Sandbox
from shell.tools.shell_cmd import RUNS_LATER_NOTE, run_command
from tests.homes import made_home

from ..sandboxing import require_sandbox

pytestmark = pytest.mark.anyio

TOKEN = "ghp_" + "Z9y8X7w6V5u4T3s2R1q0P9o8N7m6L5k4J3i2"
HEADER = "Authorization: Bearer WORKTREEHEADER123"
ENV = {"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.org", "GIT_COMMITTER_NAME": "t",
       "GIT_COMMITTER_EMAIL": "t@example.org", "GIT_CONFIG_NOSYSTEM": "1"}
COMMIT = "echo x > f.txt && git add f.txt && git commit -qm 'agent commit' && git log -1 --format=%s"
SHOW = "git remote -v; git config --get http.extraHeader; git config --list --show-origin; cat {config}"


@pytest.fixture
def home(monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    base = made_home(".agent-shell-test-gitoutside-")
    monkeypatch.setenv("HOME", str(base))
    monkeypatch.setenv("AGENT_SHELL_DATA_DIR", str(base / "data"))
    monkeypatch.delenv("XDG_CONFIG_HOME", raising=False)
    for name, value in ENV.items():
        monkeypatch.setenv(name, value)
    try:
        yield base
    finally:
        shutil.rmtree(base, ignore_errors=True)


def git(cwd: Path, *args: str) -> str:
    done = subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True, text=True,
                          env={**os.environ, **ENV})
    return done.stdout


def repository(home: Path) -> Path:
    repo = home / "repo"
    (repo / "pkg").mkdir(parents=True)
    git(repo, "init", "-q", "-b", "main")
    git(repo, "remote", "add", "origin", f"https://x-access-token:{TOKEN}@github.com/o/r.git")
    (repo / "pkg" / "a.txt").write_text("a\n")
    (repo / "README.md").write_text("readme\n")
    git(repo, "add", ".")
    git(repo, "commit", "-qm", "init")
    git(repo, "config", "extensions.worktreeConfig", "true")
    return repo


async def run(box: Sandbox, command: str) -> str:
    result = await run_command(command, box.workspace, 30, lambda _: None, sandbox=box)
    return result.text


async def test_a_linked_worktree_shows_no_credentials_and_commits(home: Path) -> None:
    require_sandbox()
    repo = repository(home)
    wt = home / "feature"
    git(repo, "worktree", "add", "-q", str(wt), "-b", "feature")
    git(wt, "config", "--worktree", "http.extraHeader", HEADER)
    common = repo / ".git"
    config, worktree_config = (common / "config").read_text(), (common / "worktrees" / "feature" /
                                                                 "config.worktree").read_text()
    main_head, main_index = (common / "HEAD").read_bytes(), (common / "index").read_bytes()
    box = Sandbox(wt)

    shown = await run(box, SHOW.format(config=common / "config") + "; cat .git")
    assert TOKEN not in shown and "WORKTREEHEADER123" not in shown, shown
    assert "https://github.com/o/r.git" in shown  # the remote is still there, without its user part

    text = await run(box, COMMIT)
    assert "agent commit" in text and "[exit code 0]" in text, text
    assert RUNS_LATER_NOTE not in text
    assert git(repo, "log", "-1", "--format=%s", "feature").strip() == "agent commit"  # in the repository

    # what runs later, and the main checkout, stay out of reach
    hook = common / "hooks" / "pre-commit"
    text = await run(box, f"echo 'curl evil' > {hook}; chmod +x {hook}; "
                          f"git config core.hooksPath /tmp; echo x > {common}/HEAD; echo x > {common}/index; "
                          f"echo x > {repo}/README.md")
    assert not (common / "hooks" / "pre-commit").exists()
    assert (common / "config").read_text() == config
    assert (common / "worktrees" / "feature" / "config.worktree").read_text() == worktree_config
    assert (common / "HEAD").read_bytes() == main_head and (common / "index").read_bytes() == main_index
    assert (repo / "README.md").read_text() == "readme\n"


async def test_a_write_the_sandbox_keeps_out_says_why(home: Path) -> None:
    """`git pack-refs` rewrites the repository's packed-refs, which stays read-only: the
    result names the repository and what to do, not "what runs later"."""
    require_sandbox()
    repo = repository(home)
    wt = home / "feature"
    git(repo, "worktree", "add", "-q", str(wt), "-b", "feature")
    text = await run(Sandbox(wt), "git pack-refs --all")
    assert "Read-only file system" in text, text
    assert RUNS_LATER_NOTE not in text
    assert f"git repository at {repo / '.git'}, outside the workspace" in text
    assert "run this git command themselves" in text


async def test_a_subfolder_of_a_repository_shows_no_credentials_and_commits(home: Path) -> None:
    require_sandbox()
    repo = repository(home)
    git(repo, "config", "--worktree", "http.extraHeader", HEADER)
    config = (repo / ".git" / "config").read_text()
    box = Sandbox(repo / "pkg")

    shown = await run(box, SHOW.format(config="../.git/config") + "; cat ../.git/config.worktree")
    assert TOKEN not in shown and "WORKTREEHEADER123" not in shown, shown
    assert "https://github.com/o/r.git" in shown

    text = await run(box, COMMIT)
    assert "agent commit" in text and "[exit code 0]" in text, text
    assert git(repo, "log", "-1", "--format=%s").strip() == "agent commit"

    await run(box, "echo 'curl evil' > ../.git/hooks/pre-commit; chmod +x ../.git/hooks/pre-commit; "
                   "git config core.fsmonitor 'curl evil'; echo x > ../README.md; mkdir -p ../.git/info; "
                   "echo '*' >> ../.git/info/exclude")
    assert not (repo / ".git" / "hooks" / "pre-commit").exists()
    assert (repo / ".git" / "config").read_text() == config
    assert (repo / "README.md").read_text() == "readme\n"
    assert "*" not in (repo / ".git" / "info" / "exclude").read_text().splitlines()


async def test_a_switch_from_a_subfolder_says_which_files_outside_it_did_not_change(home: Path) -> None:
    """git goes on after it cannot write a file outside the workspace and exits 0: the
    repository is on the other branch with the user's files as they were."""
    require_sandbox()
    repo = repository(home)
    git(repo, "switch", "-qc", "other")
    (repo / "README.md").write_text("two\n")
    git(repo, "commit", "-qam", "two")
    git(repo, "switch", "-q", "main")
    text = await run(Sandbox(repo / "pkg"), "git switch other")
    assert (repo / "README.md").read_text() == "readme\n"  # outside the workspace: untouched
    assert "git could not write README.md" in text and "although it exited 0" in text, text
    assert "git switch -" in text and RUNS_LATER_NOTE not in text


def victim_and_folder(home: Path, pointer: str) -> tuple[Path, Path, str]:
    """Another project's repository, and a downloaded folder whose ``.git`` file names it."""
    victim = home / "projects" / "victim"
    victim.mkdir(parents=True)
    git(victim, "init", "-q", "-b", "main")
    (victim / "v.txt").write_text("v\n")
    git(victim, "add", ".")
    git(victim, "commit", "-qm", "victim1")
    folder = home / "Downloads" / "zipped"
    folder.mkdir(parents=True)
    (folder / ".git").write_text(f"gitdir: {pointer}\n")
    (folder / "evil.txt").write_text("evil\n")
    return victim, folder, git(victim, "for-each-ref").strip()


async def test_a_git_file_naming_another_repository_opens_nothing_there(home: Path) -> None:
    """Finding Q19: an unpacked archive's ``.git`` file (``gitdir: ../../projects/victim/.git``)
    made git commit into the other project and move its branches, unasked. That repository
    does not name the folder back, so it stays read-only, and the result says why."""
    require_sandbox()
    victim, folder, refs = victim_and_folder(home, "../../projects/victim/.git")
    text = await run(Sandbox(folder), "git add evil.txt && git commit -qm 'evil commit'")
    text += await run(Sandbox(folder), "git update-ref refs/heads/evilbranch HEAD; git tag v9")
    assert git(victim, "for-each-ref").strip() == refs, text  # no commit, no branch, no tag
    assert git(victim, "status", "--short").strip() == ""
    assert "does not name this folder as one of its worktrees or submodules" in text, text
    assert RUNS_LATER_NOTE not in text


async def test_a_worktree_git_file_copied_elsewhere_is_not_that_worktree(home: Path) -> None:
    """A real worktree's git directory names its own checkout: a ``.git`` file elsewhere
    that names it too (or a ``.git`` link to a repository) is not let in."""
    require_sandbox()
    repo = repository(home)
    git(repo, "worktree", "add", "-q", str(home / "feature"), "-b", "feature")
    before = git(repo, "for-each-ref")
    _victim, folder, _refs = victim_and_folder(home, str(repo / ".git" / "worktrees" / "feature"))
    text = await run(Sandbox(folder), "git add evil.txt && git commit -qm 'evil commit'")
    assert git(repo, "for-each-ref") == before and "evil" not in git(repo, "log", "--all", "--format=%s")
    assert "does not name this folder" in text, text
    linked = home / "linked"
    linked.mkdir()
    (linked / ".git").symlink_to(repo / ".git")
    (linked / "evil.txt").write_text("evil\n")
    text = await run(Sandbox(linked), "git add evil.txt; git commit -qm 'evil commit'; git branch evil")
    assert git(repo, "for-each-ref") == before, text


async def test_a_submodule_checkout_commits_into_its_own_git_directory(home: Path) -> None:
    """A submodule's git directory lives in the superproject's ``.git/modules``, outside a
    workspace that is the submodule's folder; its ``core.worktree`` names that folder, so
    git commits there as in a linked worktree."""
    require_sandbox()
    library = home / "library"
    library.mkdir()
    git(library, "init", "-q", "-b", "main")
    git(library, "commit", "-q", "--allow-empty", "-m", "lib")
    repo = repository(home)
    git(repo, "-c", "protocol.file.allow=always", "submodule", "add", "-q", str(library), "libs/lib")
    sub = repo / "libs" / "lib"
    text = await run(Sandbox(sub), COMMIT)
    assert "agent commit" in text and "[exit code 0]" in text, text
    assert git(sub, "log", "-1", "--format=%s").strip() == "agent commit"
