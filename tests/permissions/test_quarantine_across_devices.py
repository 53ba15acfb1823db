"""The quarantine lies in agent-shell's data dir; a workspace on a tmpfs or another
disk is on another file system, where moving is a copy and a delete. A FIFO beside a
planted ``.vscode/tasks.json`` made that copy fail, and the task stayed in the
workspace to run at the next folder open (finding M12)."""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from shell.permissions.sandbox import Sandbox
from shell.tools.shell_cmd import run_command

from ..sandboxing import require_sandbox

pytestmark = pytest.mark.anyio
SHM = Path("/dev/shm")


@pytest.fixture
def ws(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    if not SHM.is_dir() or os.stat(SHM).st_dev == os.stat(tmp_path).st_dev:
        pytest.skip("needs /dev/shm on a file system of its own")
    monkeypatch.setenv("AGENT_SHELL_DATA_DIR", str(tmp_path / "data"))
    base = Path(tempfile.mkdtemp(prefix="agent-shell-test-xdev-", dir=SHM))
    try:
        yield base
    finally:
        shutil.rmtree(base, ignore_errors=True)


async def test_a_task_planted_beside_a_fifo_on_another_file_system_leaves_the_workspace(ws: Path) -> None:
    require_sandbox()
    box = Sandbox(ws)
    plant = ("mkdir -p .vscode && printf '{\"tasks\": [{\"runOptions\": {\"runOn\": \"folderOpen\"}, "
             "\"command\": \"touch ~/PWN\"}]}' > .vscode/tasks.json && mkfifo .vscode/zz && echo done")
    result = await run_command(plant, box.workspace, 30, lambda _: None, sandbox=box)
    assert "done" in result.text, result.text
    assert not (ws / ".vscode").exists(), result.text  # not left to run at the next folder open
    assert "moved out of the workspace" in result.text
    assert "lacks .vscode/zz (not a file" in result.text  # the copy kept is said to be partial
    kept = [p for p in (Path(os.environ["AGENT_SHELL_DATA_DIR"]) / "quarantine").rglob("tasks.json")]
    assert kept and "folderOpen" in kept[0].read_text()  # the user can still look at it
