"""What the history keep takes must never cost the user's files their checkpoint, and
what is not kept is said (findings X7, X13, Y1). Real bubblewrap, real git."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from shell.config import Settings
from shell.core.messages import AssistantMessage, ToolCallBlock, ToolResultMessage
from shell.providers.scripted import ScriptedModel
from shell.rewind import apply_rewind, plan_rewind
from shell.runtime import RuntimeOptions, ShellRuntime
from shell.sessions import SessionStore
from tests.sessions.test_git_history_kept import _git, _repo

KB = 1024


async def _session(
    ws: Path, commands: list[str], *, max_total: int | None = None
) -> tuple[ShellRuntime, list[str]]:
    """One message a command, in auto mode in the sandbox; each command's result."""
    from tests.sandboxing import require_sandbox

    require_sandbox()
    answers: list[object] = []
    for n, command in enumerate(commands):
        answers += [AssistantMessage((ToolCallBlock(f"c{n}", "run_shell", {"command": command}),)), "done"]
    opts = RuntimeOptions(cwd=str(ws), permission_mode="auto")
    rt = ShellRuntime.create(opts, settings=Settings(path=ws / "none.toml"), model=ScriptedModel(answers))
    if max_total is not None:
        rt.checkpoints_now().max_total = max_total
    for n in range(len(commands)):
        async for _ in rt.reply(f"step {n + 1}"):
            pass
    results = [m.text for m in rt.agent.messages if isinstance(m, ToolResultMessage)]
    return rt, results


def _add_submodule(ws: Path, source: Path) -> None:
    subprocess.run(["git", "-C", str(ws), "-c", "protocol.file.allow=always", "submodule", "add", "-q",
                    str(source), "sub"], check=True, capture_output=True)
    _git(ws, "commit", "-qm", "sub")


def _junk(size: int) -> str:
    """A command writing files that are not reflogs into .git/logs (git state, by place)."""
    return (f"rm -f .git/logs/junk*; for i in 1 2 3 4; do head -c {size} /dev/urandom | base64 -w0 "
            "> .git/logs/junk$i; done; echo junk")


@pytest.mark.anyio
async def test_junk_in_git_logs_does_not_crowd_out_the_files_a_later_rm_deletes(
    tmp_path: Path, store: SessionStore
) -> None:
    """X7: each command's junk was kept as "git history" until the session's limit was
    reached; the next ``rm`` of the user's untracked files was then not kept, and nothing
    said so. Junk in .git/logs is no reflog: it is not kept, and the files are."""
    ws = _repo(tmp_path)
    parts = {f"src/part{n}.csv": f"{n}," * (100 * KB) for n in range(3)}
    (ws / "src").mkdir()
    for rel, text in parts.items():
        (ws / rel).write_text(text)
    rt, _ = await _session(ws, [_junk(300 * KB), _junk(300 * KB), "rm -f .git/logs/junk*; rm -rf src"],
                                 max_total=2 * 1024 * KB)
    assert not (ws / "src").exists()
    apply_rewind(rt, plan_rewind(rt, 3), "files")
    assert {rel: (ws / rel).read_text() for rel in parts} == parts


@pytest.mark.anyio
async def test_a_file_not_kept_for_the_limit_is_said_in_the_result_of_the_command_that_deleted_it(
    tmp_path: Path, store: SessionStore
) -> None:
    ws = _repo(tmp_path)
    (ws / "data").mkdir()
    for n in range(3):
        (ws / "data" / f"rows{n}.csv").write_text(f"{n};" * (200 * KB))
    _, (text,) = await _session(ws, ["rm -rf data; echo gone"], max_total=1024 * KB)
    assert "/rewind cannot put back" in text and "data/rows" in text, text
    assert "reached their limit" in text and "Tell the user" in text, text


@pytest.mark.anyio
async def test_refs_removed_when_the_history_share_is_full_are_not_said_to_be_kept(
    tmp_path: Path, store: SessionStore
) -> None:
    """The "kept before it ran" line was written even when the refs could not be kept."""
    ws = _repo(tmp_path)
    for n in range(40):
        _git(ws, "branch", f"topic{n}")
    reflog = ws / ".git" / "logs" / "HEAD"
    line = reflog.read_text().splitlines()[-1]
    reflog.write_text((line + "\n") * 4000)  # a long, honest-looking reflog: ~600 KB of state
    _, (text,) = await _session(ws, ["rm -rf .git/refs/heads/topic*; echo x"], max_total=1024 * KB)
    assert "this command removed git history" in text, text
    assert "They were kept before it ran" not in text, text
    assert "NOT kept" in text and "/rewind cannot put them back" in text, text


@pytest.mark.anyio
async def test_a_commit_made_by_the_rewound_command_is_undone_on_the_branch_too(
    tmp_path: Path, store: SessionStore
) -> None:
    """Y1: the files went back, the branch stayed on the new commit, and ``git status``
    showed the commit reversed as an uncommitted edit."""
    ws = _repo(tmp_path)
    old = _git(ws, "rev-parse", "HEAD").strip()
    rt, _ = await _session(ws, ["echo more >> a.txt && git commit -qam second && echo ok"])
    new = _git(ws, "rev-parse", "HEAD").strip()
    assert new != old
    outcome = apply_rewind(rt, plan_rewind(rt, 1), "files").describe()
    assert _git(ws, "rev-parse", "refs/heads/main").strip() == old, outcome
    assert "moved back" in outcome and old[:12] in outcome, outcome
    _git(ws, "reset", "-q")  # what the note says for the index
    assert _git(ws, "status", "--porcelain") == ""
    assert new in _git(ws, "reflog", "show", "--format=%H", "main")  # the commit stays in the reflog


@pytest.mark.anyio
async def test_a_branch_the_user_moved_after_the_command_is_left_and_named_with_both_ids(
    tmp_path: Path, store: SessionStore
) -> None:
    ws = _repo(tmp_path)
    old = _git(ws, "rev-parse", "HEAD").strip()
    rt, _ = await _session(ws, ["echo more >> a.txt && git commit -qam second && echo ok"])
    (ws / "b.txt").write_text("the user's own\n")
    _git(ws, "add", "b.txt")
    _git(ws, "commit", "-qm", "mine")
    mine = _git(ws, "rev-parse", "HEAD").strip()
    outcome = apply_rewind(rt, plan_rewind(rt, 1), "files").describe()
    assert _git(ws, "rev-parse", "refs/heads/main").strip() == mine
    assert f"git reset --soft {old[:12]}" in outcome and mine[:12] in outcome, outcome


@pytest.mark.anyio
async def test_a_command_that_removes_a_submodules_objects_says_rewind_cannot_bring_them_back(
    tmp_path: Path, store: SessionStore
) -> None:
    """X13: a submodule's history (.git/modules/<name>) is not kept; its loss was silent."""
    (tmp_path / "src").mkdir()
    source = _repo(tmp_path / "src")
    ws = _repo(tmp_path)
    _add_submodule(ws, source)
    _, (text,) = await _session(ws, ["rm -rf .git/modules/sub/objects/??; echo x"])
    assert "submodule" in text and "modules/sub" in text and "/rewind cannot put it back" in text, text


@pytest.mark.anyio
async def test_the_checkpoints_problems_are_said_in_the_next_commands_result(
    tmp_path: Path, store: SessionStore
) -> None:
    """``Checkpoints.problems`` (a damaged log, records that could not be written) was shown
    nowhere: each is a change /rewind may not undo."""
    from shell.sessions.checkpoints import Checkpoints
    from tests.sandboxing import require_sandbox

    require_sandbox()
    ws = _repo(tmp_path)
    call = AssistantMessage((ToolCallBlock("c1", "run_shell", {"command": "echo hi > new.txt"}),))
    opts = RuntimeOptions(cwd=str(ws), permission_mode="auto")
    model = ScriptedModel([call, "done"])
    rt = ShellRuntime.create(opts, settings=Settings(path=ws / "none.toml"), model=model)
    first = rt.checkpoints_now()
    first.begin_turn("earlier", offset=None, history_len=0)
    with first.log_path.open("ab") as log:
        log.write(b'{"kind": "file", "torn\n')
    assert rt.checkpoint_hook is not None
    rt.checkpoint_hook.target = Checkpoints(first.root)  # the session's checkpoints read back
    async for _ in rt.reply("go"):
        pass
    (text,) = [m.text for m in rt.agent.messages if isinstance(m, ToolResultMessage)]
    assert "1 damaged checkpoint record(s) skipped" in text and "Tell the user" in text, text
