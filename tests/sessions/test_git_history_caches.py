"""Honest git upkeep is not said to have removed history (finding Z10): a command's
note counts only the loose objects and packs it removed itself, not a rewritten
multi-pack-index or bitmap (caches git makes again), nor a pack an earlier command or
the user's own repack replaced. Real bubblewrap, real git."""

from __future__ import annotations

from pathlib import Path

import pytest

from shell.config import Settings
from shell.core.messages import AssistantMessage, ToolCallBlock, ToolResultMessage
from shell.providers.scripted import ScriptedModel
from shell.runtime import RuntimeOptions, ShellRuntime
from shell.sessions import SessionStore

from .test_git_history_kept import _git, _repo

COMMITS = "for n in 1 2 3; do echo $n >> b.txt; git add -A; git commit -qm d$n; done"


class Turns:
    """One runtime, one run_shell command a reply, its result read back."""

    def __init__(self, ws: Path, commands: list[str]) -> None:
        from tests.sandboxing import require_sandbox

        require_sandbox()
        script: list[AssistantMessage | str] = []
        for i, command in enumerate(commands):
            script += [AssistantMessage((ToolCallBlock(f"c{i}", "run_shell", {"command": command}),)), "done"]
        opts = RuntimeOptions(cwd=str(ws), permission_mode="auto")
        settings = Settings(path=ws / "none.toml")
        self.rt = ShellRuntime.create(opts, settings=settings, model=ScriptedModel(script))

    async def next(self) -> str:
        async for _ in self.rt.reply("keep the repository tidy"):
            pass
        return [m for m in self.rt.agent.messages if isinstance(m, ToolResultMessage)][-1].text


@pytest.mark.anyio
async def test_rewritten_caches_and_packs_replaced_before_are_not_history_the_command_removed(
    tmp_path: Path, store: SessionStore
) -> None:
    ws = _repo(tmp_path)
    pack = ws / ".git" / "objects" / "pack"
    turns = Turns(ws, [
        "git gc -q",
        f"{COMMITS}; git repack -adq --write-midx",  # the gc's pack replaced: not said (as before)
        "git multi-pack-index write --bitmap",
        "git multi-pack-index write --bitmap",  # after the user's own repack
        "rm -f .git/objects/pack/multi-pack-index*",
        "rm -f .git/objects/pack/pack-*",
    ])
    for _ in range(2):
        assert "removed git history" not in await turns.next()
    before = {p.name for p in pack.iterdir()}
    text = await turns.next()
    assert "removed git history" not in text, text  # was "2 object file(s)": the pack replaced a turn before
    assert before <= {p.name for p in pack.iterdir()}  # (nothing went)
    assert any(p.name.endswith(".bitmap") for p in pack.iterdir())

    _git(ws, "commit", "-qm", "mine", "--allow-empty")
    _git(ws, "repack", "-adq", "--write-midx")  # the user's own, between turns
    assert "removed git history" not in (text := await turns.next()), text
    assert "removed git history" not in (text := await turns.next()), text  # a cache, not history

    [kept] = [p.name for p in pack.iterdir() if p.name.endswith(".pack")]
    text = await turns.next()
    assert f"removed git history: 1 pack file(s) ({kept})" in text, text  # the index goes with it
    assert "loose" not in text
