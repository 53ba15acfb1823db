"""Findings C17 and C11 through the console script, with real bubblewrap and real git: a
linked worktree's own git files (``.git/worktrees/NAME``: HEAD, index, reflog) removed,
the ``worktrees`` folder moved away, or a worktree's checkout moved inside the workspace,
by one unasked ``run_shell`` in ``auto`` mode. Before: the checkout was "not a git
repository", its detached commit reachable from nothing, and nothing was said. Now what
git needs is put back at once, the rest said (``/rewind`` puts it back:
``tests/sessions/test_git_worktrees_rewind.py``), the folder cannot be moved, a moved
checkout is said with ``git worktree repair``, and git's own worktree commands still work."""

from __future__ import annotations

import json
import subprocess
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from ..sandboxing import require_sandbox
from .conftest import RunCli, cli_home

Script = Callable[[list[Any]], str]


@pytest.fixture
def home(cli_env: dict[str, str]) -> Iterator[Path]:
    with cli_home(cli_env, "agent-shell-test-worktrees-") as base:
        yield base


def git(cwd: Path, *args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True, check=check,
                          env={"PATH": "/usr/bin:/bin", "HOME": str(cwd), "GIT_CONFIG_NOSYSTEM": "1",
                               "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@t",
                               "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@t"})


def _repo(ws: Path, home: Path) -> tuple[Path, str]:
    """The tester's ws29: a repository with a detached linked worktree outside the workspace
    whose commit only its HEAD reaches, and a staged file there; returns it and the commit."""
    git(ws, "init", "-q", "-b", "main")
    (ws / "a.txt").write_text("a\n")
    (ws / ".gitignore").write_text("wt2/\n")
    git(ws, "add", "-A")
    git(ws, "commit", "-qm", "c")
    outside = home / "ws29-wt"
    git(ws, "worktree", "add", "-q", "--detach", str(outside))
    (outside / "d.txt").write_text("d\n")
    git(outside, "add", "d.txt")
    git(outside, "commit", "-qm", "detached-work")
    (outside / "s.txt").write_text("staged\n")
    git(outside, "add", "s.txt")
    return outside, git(outside, "rev-parse", "HEAD").stdout.strip()


def _run(run_cli: RunCli, script: Script, command: str) -> str:
    """One ``run_shell`` in ``auto`` mode (a session: the history keep runs); the tool result."""
    require_sandbox()
    turns = [{"tool_calls": [{"name": "run_shell", "args": {"command": command}}]}, "Done."]
    done = run_cli("-p", "go", "--model", script(turns), "--output-format", "json",
                   "--permission-mode", "auto", "--approve", "never", timeout=120)
    assert done.returncode in (0, 1), done.stderr
    results: list[str] = []
    for line in done.stdout.splitlines():
        try:
            item = json.loads(line)
        except ValueError:
            continue
        if isinstance(item, dict):
            results += [json.dumps(m) for m in item.get("messages", [])
                        if isinstance(m, dict) and m.get("role") == "tool"]
    assert results, done.stdout + done.stderr
    return "\n".join(results)


def _whole(outside: Path, commit: str) -> None:
    """The user's checks: the worktree is a repository at its commit, the staged file staged."""
    assert git(outside, "rev-parse", "HEAD").stdout.strip() == commit
    assert git(outside, "diff", "--cached", "--name-only").stdout.split() == ["s.txt"]


def test_a_worktrees_head_and_index_removed_are_put_back_at_once_and_said(
    run_cli: RunCli, script: Script, workspace: Path, home: Path
) -> None:
    outside, commit = _repo(workspace, home)
    said = _run(run_cli, script, "rm -rf .git/worktrees/ws29-wt; echo done")
    _whole(outside, commit)
    assert "this command removed HEAD, index of the linked git worktree" in said, said
    assert "They were put back as they were before it ran" in said, said
    assert "ORIG_HEAD, logs/HEAD" in said and "/rewind to before this message puts them back" in said, said


def test_the_worktrees_folder_cannot_be_moved_away(
    run_cli: RunCli, script: Script, workspace: Path, home: Path
) -> None:
    outside, commit = _repo(workspace, home)
    _run(run_cli, script, "mv .git/worktrees .git/wt-old; echo done")
    assert not (workspace / ".git" / "wt-old").exists()
    _whole(outside, commit)


def test_a_moved_worktree_checkout_is_said_with_the_repair_that_keeps_it(
    run_cli: RunCli, script: Script, workspace: Path, home: Path
) -> None:
    """C11: ``mv wt2 wt3`` was said as a removal, and the user's prune then dropped the
    worktree's index (its staged work) and HEAD."""
    _repo(workspace, home)
    git(workspace, "worktree", "add", "-q", "wt2", "-b", "feature")
    (workspace / "wt2" / "wip.txt").write_text("wip\n")
    git(workspace / "wt2", "add", "wip.txt")
    said = _run(run_cli, script, "mv wt2 wt3")
    assert "moved the linked git worktree wt2/ to wt3/" in said, said
    assert "git worktree repair wt3/" in said, said
    assert "removed paths .gitignore ignores" not in said, said  # it was moved, not removed
    git(workspace, "worktree", "repair", "wt3/")  # as the note says
    git(workspace, "worktree", "prune", "--expire=now")
    assert git(workspace / "wt3", "diff", "--cached", "--name-only").stdout.split() == ["wip.txt"]


def test_gits_own_worktree_commands_still_work_beside_a_kept_worktree(
    run_cli: RunCli, script: Script, workspace: Path, home: Path
) -> None:
    """With ``.git/worktrees`` pinned, a command's add, commit there, remove and prune run as
    they do outside the sandbox, and nothing is put back or said of them."""
    outside, commit = _repo(workspace, home)
    said = _run(run_cli, script,
                "git worktree add -q wt5 -b five && git -C wt5 commit -q --allow-empty -m five "
                "&& git worktree remove wt5 && git worktree add -q wt6 && rm -rf wt6 "
                "&& git worktree prune && git worktree list --porcelain | grep -c '^worktree'")
    assert '"content": "2\\n[exit code 0]' in said, said  # two worktrees listed: the main one and ws29-wt
    assert "linked git worktree" not in said, said
    assert sorted(p.name for p in (workspace / ".git" / "worktrees").iterdir()) == ["ws29-wt"]
    assert git(workspace, "log", "-1", "--format=%s", "five").stdout.strip() == "five"
    _whole(outside, commit)


def test_the_submodules_folder_cannot_be_moved_away_and_submodule_add_still_works(
    run_cli: RunCli, script: Script, workspace: Path, home: Path
) -> None:
    """``mv .git/modules x`` left every submodule "not a git repository", as the worktrees'
    folder did its worktrees; pinned alike, while a command's ``git submodule add`` writes there."""
    lib = home / "lib"
    lib.mkdir()
    git(lib, "init", "-q", "-b", "main")
    (lib / "l.txt").write_text("l\n")
    git(lib, "add", "-A")
    git(lib, "commit", "-qm", "l")
    git(workspace, "init", "-q", "-b", "main")
    git(workspace, "-c", "protocol.file.allow=always", "submodule", "add", "-q", str(lib), "lib")
    git(workspace, "commit", "-qm", "sub")
    said = _run(run_cli, script, "mv .git/modules .git/m-old; echo done")
    assert not (workspace / ".git" / "m-old").exists(), said
    assert git(workspace / "lib", "rev-parse", "HEAD").stdout.strip()
    said = _run(run_cli, script, f"git -c protocol.file.allow=always submodule add -q {lib} lib2 && ls lib2")
    assert "l.txt" in said and (workspace / ".git" / "modules" / "lib2").is_dir(), said
