"""run_shell: output, streaming, caps, timeouts and cancellation kill the whole group."""

from __future__ import annotations

import os
import re
import time
from pathlib import Path
from typing import Any

import anyio
import pytest

from shell.tools.shell_cmd import MAX_OUTPUT_CHARS, ShellToolError
from shell.tools.workspace import Workspace

from .conftest import Recorder

pytestmark = pytest.mark.anyio


def alive(pid: int) -> bool:
    """True while ``pid`` runs; a zombie (dead, not yet reaped by init) counts as gone."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except FileNotFoundError:
        return False
    except OSError:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return False
        return True
    return stat.rsplit(")", 1)[1].split()[0] not in ("Z", "X")


def wait_all_dead(pids: list[int], within: float = 5.0) -> bool:
    deadline = time.monotonic() + within
    while time.monotonic() < deadline:
        if not any(alive(p) for p in pids):
            return True
        time.sleep(0.05)
    return False


SPAWN = "echo sh=$$; sleep 100 & echo bg=$!; sleep 100 & echo bg=$!; wait"


def pids_in(text: str) -> list[int]:
    return [int(p) for p in re.findall(r"(?:sh|bg)=(\d+)", text)]


async def test_runs_in_the_workspace_and_reports_exit_code(workspace: Workspace, call: Any) -> None:
    result = await call("run_shell", command="pwd; echo err >&2; exit 3")
    lines = result.text.splitlines()
    assert lines[0] == str(workspace.root)
    assert "err" in lines
    assert lines[-1] == "[exit code 3]"
    assert result.is_error and result.details["exit_code"] == 3
    ok = await call("run_shell", command="true")
    assert ok.text == "(no output)\n[exit code 0]" and not ok.is_error


async def test_output_streams_as_it_arrives(call: Any, recorder: Recorder) -> None:
    result = await call("run_shell", command="for i in 1 2 3; do echo line$i; sleep 0.1; done")
    assert "".join(recorder.progress) == "line1\nline2\nline3\n"
    assert len(recorder.progress) >= 2  # several chunks, not one at the end
    assert result.text.startswith("line1\nline2\nline3")


async def test_huge_output_is_capped_and_says_so(call: Any) -> None:
    result = await call("run_shell", command="yes 0123456789 | head -c 2000000")
    assert len(result.text) < MAX_OUTPUT_CHARS + 500
    assert "output truncated: 2000000 characters in total" in result.text
    assert f"{MAX_OUTPUT_CHARS} character cap" in result.text
    assert result.details["truncated"]


async def test_timeout_kills_the_whole_process_group(call: Any) -> None:
    started = time.monotonic()
    result = await call("run_shell", command=SPAWN, timeout=1)
    assert time.monotonic() - started < 5
    assert result.is_error and result.details["timed_out"]
    assert "timed out after 1 s" in result.text
    pids = pids_in(result.text)
    assert len(pids) == 3
    assert wait_all_dead(pids), [p for p in pids if alive(p)]


async def test_background_children_do_not_outlive_the_command(call: Any) -> None:
    started = time.monotonic()
    result = await call("run_shell", command="sleep 100 & echo bg=$!", timeout=30)
    assert time.monotonic() - started < 5  # a child holding the pipe does not stall the tool
    assert result.details["exit_code"] == 0
    assert wait_all_dead(pids_in(result.text))


async def test_cancellation_kills_the_group(call: Any, recorder: Recorder) -> None:
    with anyio.move_on_after(1.0) as scope:
        await call("run_shell", command=SPAWN, timeout=60)
    assert scope.cancelled_caught
    pids = pids_in("".join(recorder.progress))
    assert len(pids) == 3
    assert wait_all_dead(pids), [p for p in pids if alive(p)]


async def test_bad_timeouts_and_empty_commands(call: Any) -> None:
    with pytest.raises(ShellToolError, match="timeout"):
        await call("run_shell", command="true", timeout=0)
    with pytest.raises(ShellToolError, match="at most 600"):
        await call("run_shell", command="true", timeout=10_000)
    with pytest.raises(ShellToolError, match="empty"):
        await call("run_shell", command="  ")


@pytest.mark.parametrize("anyio_backend", ["trio"])
async def test_timeout_and_cancel_under_trio(call: Any, recorder: Recorder, anyio_backend: str) -> None:
    result = await call("run_shell", command=SPAWN, timeout=0.5)
    assert result.details["timed_out"] and wait_all_dead(pids_in(result.text))
    recorder.progress.clear()
    with anyio.move_on_after(0.5):
        await call("run_shell", command=SPAWN, timeout=60)
    assert wait_all_dead(pids_in("".join(recorder.progress)))
