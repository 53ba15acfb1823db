"""A command that destroys the repository's history in auto mode: the result says so and
``/rewind`` brings it back (finding U14). Real bubblewrap, real git."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from shell.config import Settings
from shell.core.messages import AssistantMessage, ToolCallBlock, ToolResultMessage
from shell.providers.scripted import ScriptedModel
from shell.rewind import apply_rewind, plan_rewind
from shell.runtime import RuntimeOptions, ShellRuntime
from shell.sessions import SessionStore


def _git(ws: Path, *args: str) -> str:
    return subprocess.run(["git", "-C", str(ws), *args], capture_output=True, text=True, check=True).stdout


def _fails(ws: Path, *args: str) -> bool:
    return subprocess.run(["git", "-C", str(ws), *args], capture_output=True).returncode != 0


def _repo(tmp_path: Path) -> Path:
    ws = tmp_path / "ws"
    ws.mkdir()
    _git(ws, "init", "-q", "-b", "main")
    _git(ws, "config", "user.email", "t@t")
    _git(ws, "config", "user.name", "t")
    for n in range(3):
        (ws / "a.txt").write_text(f"{n}\n")
        _git(ws, "add", "-A")
        _git(ws, "commit", "-qm", f"c{n}")
    return ws


async def _run(ws: Path, command: str) -> tuple[ShellRuntime, str]:
    from tests.sandboxing import require_sandbox

    require_sandbox()
    call = AssistantMessage((ToolCallBlock("c1", "run_shell", {"command": command}),))
    opts = RuntimeOptions(cwd=str(ws), permission_mode="auto")
    model = ScriptedModel([call, "done"])
    rt = ShellRuntime.create(opts, settings=Settings(path=ws / "none.toml"), model=model)
    async for _ in rt.reply("tidy the repository"):
        pass
    result = next(m for m in rt.agent.messages if isinstance(m, ToolResultMessage))
    return rt, result.text


@pytest.mark.anyio
async def test_rm_rf_of_objects_and_refs_is_said_and_rewind_brings_every_commit_back(
    tmp_path: Path, store: SessionStore
) -> None:
    ws = _repo(tmp_path)
    log = _git(ws, "log", "--format=%H %s")
    rt, text = await _run(ws, "rm -rf .git/objects .git/refs; ls .git")
    assert _fails(ws, "log")
    assert "this command removed git history" in text and "refs/heads/main" in text
    assert "/rewind to before this message puts them back" in text
    plan = plan_rewind(rt, 1)
    assert "Git history" in plan.describe()
    outcome = apply_rewind(rt, plan, "files")
    assert "git history" in outcome.describe()
    assert _git(ws, "log", "--format=%H %s") == log
    assert _git(ws, "fsck", "--no-dangling") == ""


@pytest.mark.anyio
async def test_reflog_expire_and_gc_prune_lose_a_dropped_stash_and_a_reset_commit_until_rewind(
    tmp_path: Path, store: SessionStore
) -> None:
    ws = _repo(tmp_path)
    lost = _git(ws, "rev-parse", "HEAD").strip()
    _git(ws, "reset", "-q", "--hard", "HEAD~1")
    (ws / "a.txt").write_text("work in progress\n")
    _git(ws, "stash", "-q")
    stash = _git(ws, "rev-parse", "stash@{0}").strip()
    wipe = "git stash drop -q; git reflog expire --expire=now --all && git gc -q --prune=now"
    rt, text = await _run(ws, wipe)
    for gone in (lost, stash):
        assert _fails(ws, "cat-file", "-e", gone)
    assert "this command removed git history" in text and "reflog entr" in text
    apply_rewind(rt, plan_rewind(rt, 1), "files")
    assert _git(ws, "cat-file", "-t", lost).strip() == "commit"
    assert lost in _git(ws, "reflog", "--format=%H")
    assert _git(ws, "stash", "list", "--format=%H").split() == [stash]
    assert _git(ws, "show", f"{stash}:a.txt") == "work in progress\n"


@pytest.mark.anyio
async def test_an_ordinary_commit_says_nothing_of_history(tmp_path: Path, store: SessionStore) -> None:
    ws = _repo(tmp_path)
    _, text = await _run(ws, "echo 9 > a.txt && git commit -qam c9 && git gc -q")
    assert "removed git history" not in text


@pytest.mark.anyio
async def test_a_rewind_writes_nothing_outside_dot_git_whatever_the_command_left_there(
    tmp_path: Path, store: SessionStore
) -> None:
    """A ``packed-refs`` line naming ``../../outside`` and a ``refs/heads`` turned into a
    symlink out of the workspace: the rewind puts back what it can inside ``.git`` only."""
    ws = _repo(tmp_path)
    head = _git(ws, "rev-parse", "HEAD").strip()
    with (ws / ".git" / "packed-refs").open("a") as out:
        out.write(f"{head} ../../outside\n")
    away = tmp_path / "away"
    away.mkdir()
    rt, _ = await _run(ws, "rm -rf .git/packed-refs .git/refs/heads && ln -s ../../../away .git/refs/heads")
    apply_rewind(rt, plan_rewind(rt, 1), "files")
    assert not (tmp_path / "outside").exists() and not (ws / "outside").exists()
    assert list(away.iterdir()) == []


@pytest.mark.anyio
async def test_git_clean_of_ignored_work_is_said_at_once_build_folders_are_not(
    tmp_path: Path, store: SessionStore
) -> None:
    """What ``.gitignore`` ignores is not kept (dependencies and build output would fill
    the checkpoints): a command that removes the user's ignored local data says so in its
    result, so the user hears it while a copy may still be found."""
    ws = _repo(tmp_path)
    (ws / ".gitignore").write_text("data/\nlocal.db\nnode_modules/\n")
    (ws / "data").mkdir()
    (ws / "data" / "notes.txt").write_text("my notes\n")
    (ws / "local.db").write_text("rows\n")
    (ws / "node_modules").mkdir()
    (ws / "node_modules" / "x.js").write_text("1\n")
    _git(ws, "add", ".gitignore")
    _git(ws, "commit", "-qm", "ignore")
    _, quiet = await _run(ws, "echo hello > a.txt")
    assert "ignores" not in quiet
    _, text = await _run(ws, "git clean -xdfq")
    assert not (ws / "data").exists()
    assert "removed paths .gitignore ignores (data/, local.db)" in text, text
    assert "node_modules" not in text


def test_a_forks_checkpoints_keep_the_history_too(tmp_path: Path) -> None:
    """``/fork`` copies the checkpoints: a rewind in the fork puts the history back as well."""
    from shell.sessions import gitkeep
    from shell.sessions.checkpoints import Checkpoints

    ws = _repo(tmp_path)
    log = _git(ws, "log", "--format=%H %s")
    cp = Checkpoints(tmp_path / "cp")
    cp.begin_turn("go", offset=None, history_len=0)
    assert cp.git_before(ws) is not None
    fork = cp.copy_to(tmp_path / "fork")
    cp.close()
    shutil.rmtree(tmp_path / "cp")
    shutil.rmtree(ws / ".git" / "objects")
    shutil.rmtree(ws / ".git" / "refs")
    state = gitkeep.last_state(fork, str(ws / ".git"), len(fork.raw))
    assert state is not None
    assert gitkeep.restore(fork, state, apply=True)
    assert _git(ws, "log", "--format=%H %s") == log
