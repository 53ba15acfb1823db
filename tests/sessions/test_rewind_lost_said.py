"""A command that deletes or cuts short a file whose content rewind could not keep
(too big) says so in its result at once: before, the call showed only "✓ … 0.20s" and
only a later ``/rewind`` said the 57 MB file could not be put back (tester finding L4)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from shell.config import Settings
from shell.core.messages import AssistantMessage, ToolCallBlock, ToolResult, ToolResultMessage
from shell.providers.scripted import ScriptedModel
from shell.runtime import RuntimeOptions, ShellRuntime
from shell.sessions import SessionStore
from shell.tools.capture import LOST_NOTE, MAX_FILE, WorkspaceCapture, watched


class _Changes:
    def shell_ran(self, command: str, *, sandboxed: bool, files: Any, note: str = "", tree: Any = ()) -> None:
        pass


async def _run_watched(root: Path, capture: WorkspaceCapture, command: Any) -> str:
    async def run() -> ToolResult:
        command()
        return ToolResult("[exit code 0]")

    result = await watched(run, "cmd", _Changes(), capture)
    assert isinstance(result.content, str)
    return result.content


@pytest.mark.anyio
async def test_deleting_or_cutting_short_a_file_too_big_to_keep_is_said_in_the_result(tmp_path: Path) -> None:
    (tmp_path / "big.bin").write_bytes(b"x" * 300)
    (tmp_path / "log.txt").write_bytes(b"y" * 200)
    (tmp_path / "small.txt").write_text("kept\n")
    capture = WorkspaceCapture(tmp_path, max_file=100)

    def mangle() -> None:
        (tmp_path / "big.bin").unlink()
        (tmp_path / "log.txt").write_bytes(b"cut")
        (tmp_path / "small.txt").unlink()  # kept: a rewind puts it back, nothing to say

    text = await _run_watched(tmp_path, capture, mangle)
    assert text.startswith("[exit code 0]\n")
    note = text.splitlines()[1]
    assert LOST_NOTE in note
    assert "big.bin was deleted: it is too big to keep (0.0 MB; the limit is 0.0 MB)" in note
    assert "log.txt was cut from 0.0 MB" in note
    assert "small.txt" not in note


@pytest.mark.anyio
async def test_a_big_file_that_only_grew_or_a_kept_file_deleted_adds_nothing(tmp_path: Path) -> None:
    (tmp_path / "big.log").write_bytes(b"x" * 300)
    (tmp_path / "small.txt").write_text("kept\n")
    capture = WorkspaceCapture(tmp_path, max_file=100)

    def grow() -> None:
        with (tmp_path / "big.log").open("ab") as fh:
            fh.write(b"more")
        (tmp_path / "small.txt").unlink()

    assert await _run_watched(tmp_path, capture, grow) == "[exit code 0]"


@pytest.mark.anyio
async def test_many_lost_files_are_named_up_to_five_and_counted(tmp_path: Path) -> None:
    for i in range(8):
        (tmp_path / f"f{i}.bin").write_bytes(b"x" * 300)
    capture = WorkspaceCapture(tmp_path, max_file=100)

    def wipe() -> None:
        for i in range(8):
            (tmp_path / f"f{i}.bin").unlink()

    text = await _run_watched(tmp_path, capture, wipe)
    assert "f4.bin was deleted" in text and "f5.bin" not in text and "And 3 more." in text


@pytest.mark.anyio
async def test_rm_rf_of_a_big_untracked_file_in_the_sandbox_is_said_at_once(
    store: SessionStore, tmp_path: Path
) -> None:
    """The tester's repro, through ``run_shell`` in the sandbox with the real limit."""
    from tests.sandboxing import require_sandbox

    require_sandbox()
    ws = tmp_path / "ws"
    (ws / "data").mkdir(parents=True)
    (ws / "data" / "big.bin").write_bytes(b"\0" * (MAX_FILE + 1024 * 1024))
    (ws / "node_modules").mkdir()
    (ws / "node_modules" / "x.js").write_text("1\n")
    call = AssistantMessage((ToolCallBlock("c1", "run_shell", {"command": "rm -rf data node_modules"}),))
    opts = RuntimeOptions(cwd=str(ws), permission_mode="bypass")
    model = ScriptedModel([call, "done"])
    rt = ShellRuntime.create(opts, settings=Settings(path=ws / "none.toml"), model=model)
    async for _ in rt.reply("clean up"):
        pass
    assert not (ws / "data").exists()
    result = next(m for m in rt.agent.messages if isinstance(m, ToolResultMessage))
    assert f"{LOST_NOTE} what this command deleted" in result.text
    assert "data/big.bin was deleted: it is too big to keep (5.0 MB; the limit is 4.0 MB)" in result.text
    assert "node_modules" not in result.text.split(LOST_NOTE)[1]
