"""run_shell: output, streaming, caps, timeouts and cancellation kill the whole group.

Every test runs twice: in the bubblewrap sandbox and bare (no sandbox available),
since both are what some user gets. PIDs printed inside the sandbox belong to its
own PID namespace, so survivors are looked for by a marker in their command line.
"""

from __future__ import annotations

import os
import time
from pathlib import Path
from typing import Any

import anyio
import pytest

from shell.core.tools import Tool
from shell.permissions.sandbox import Sandbox
from shell.tools.builtin import builtin_tools
from shell.tools.shell_cmd import MAX_OUTPUT_CHARS, ShellToolError
from shell.tools.workspace import Workspace

from ..sandboxing import require_sandbox
from .conftest import Recorder

pytestmark = pytest.mark.anyio


@pytest.fixture(params=["sandboxed", "bare"])
def tools(request: pytest.FixtureRequest, workspace: Workspace) -> dict[str, Tool]:
    if request.param == "sandboxed":
        require_sandbox()
        sandbox = Sandbox(workspace.root)
    else:
        sandbox = Sandbox(workspace.root, bwrap="/nonexistent/bwrap")
    return {t.name: t for t in builtin_tools(workspace, sandbox=sandbox)}


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


def spawn(marker: str) -> str:
    """A command that starts two background sleeps (one in a new session) and waits."""
    return f"echo started; sleep {marker} & setsid sleep {marker} & wait"


def marker() -> str:
    """A sleep duration no other process uses, to find this test's processes by."""
    return f"{os.getpid() % 1000 + 100}.{time.monotonic_ns() % 10**6:06d}"


def pids_with(mark: str, anywhere: bool = False) -> list[int]:
    """Processes (not zombies) whose command line is ``sleep MARK``; with ``anywhere``,
    any that holds MARK (also the shells and subshells whose command names it)."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            argv = (entry / "cmdline").read_bytes().split(b"\0")
        except OSError:
            continue
        wanted = mark.encode()
        held = any(wanted in arg for arg in argv) if anywhere else argv[:2] == [b"sleep", wanted]
        if held and alive(int(entry.name)):
            found.append(int(entry.name))
    return found


def none_left(mark: str, within: float = 30.0, anywhere: bool = False) -> bool:
    """Waits (for the kill to land) until no process of :func:`pids_with` is left."""
    deadline = time.monotonic() + within
    while time.monotonic() < deadline:
        if not pids_with(mark, anywhere):
            return True
        time.sleep(0.05)
    return False


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


async def test_timeout_kills_the_whole_process_group(workspace: Workspace, call: Any) -> None:
    """The timeout ends the command's whole group at once: the grandchild that would
    write ``late`` when its sleep ends never does (a tool that killed only the shell, or
    waited for the sleeps, returns with them running or after ``late`` was written)."""
    mark = marker()
    command = f"sleep {mark} & (sleep {mark} && touch late) & wait"
    result = await call("run_shell", command=command, timeout=1)
    assert result.is_error and result.details["timed_out"]
    assert "timed out after 1 s" in result.text
    assert none_left(mark, anywhere=True), pids_with(mark, anywhere=True)  # nothing left to write it
    assert not (workspace.root / "late").exists()


async def test_background_children_do_not_outlive_the_command(workspace: Workspace, call: Any) -> None:
    """A background child holding the pipe neither stalls the tool (it would return only
    once the child wrote ``late``, or at the timeout) nor outlives the command."""
    mark = marker()
    result = await call("run_shell", command=f"(sleep {mark} && touch late) & echo bg=$!", timeout=600)
    assert result.details["exit_code"] == 0 and not result.details["timed_out"]
    assert none_left(mark, anywhere=True), pids_with(mark, anywhere=True)
    assert not (workspace.root / "late").exists()


async def test_cancellation_kills_the_group(call: Any, recorder: Recorder) -> None:
    """Cancelled once it has started (a fixed 1 s was not enough for a loaded machine to
    get the command going), the command's whole group is gone."""
    mark = marker()
    async with anyio.create_task_group() as group:
        async def run() -> None:
            await call("run_shell", command=f"echo started; sleep {mark} & sleep {mark} & wait", timeout=60)

        group.start_soon(run)
        with anyio.fail_after(120):
            while "started" not in "".join(recorder.progress):  # noqa: ASYNC110 (the tool's progress)
                await anyio.sleep(0.05)
        group.cancel_scope.cancel()
    assert none_left(mark), pids_with(mark)


@pytest.mark.parametrize("ending", ["exit", "timeout", "cancel"])
async def test_a_setsid_child_ends_with_the_command_in_the_sandbox(
    call: Any, request: pytest.FixtureRequest, ending: str
) -> None:
    """``setsid`` leaves the process group, so only the sandbox's PID namespace
    catches it: bare, nothing can (the README says so)."""
    if "bare" in request.node.callspec.id:
        pytest.skip("without the sandbox a setsid child escapes the process group (documented)")
    mark = marker()
    command = spawn(mark) if ending != "exit" else f"setsid sleep {mark} > /dev/null 2>&1 & echo started"
    if ending == "cancel":
        with anyio.move_on_after(1.0):
            await call("run_shell", command=command, timeout=60)
    else:
        result = await call("run_shell", command=command, timeout=1 if ending == "timeout" else 30)
        assert "started" in result.text
    assert none_left(mark), pids_with(mark)


async def test_bad_timeouts_and_empty_commands(call: Any) -> None:
    with pytest.raises(ShellToolError, match="timeout"):
        await call("run_shell", command="true", timeout=0)
    with pytest.raises(ShellToolError, match="at most 600"):
        await call("run_shell", command="true", timeout=10_000)
    with pytest.raises(ShellToolError, match="empty"):
        await call("run_shell", command="  ")


@pytest.mark.parametrize("anyio_backend", ["trio"])
async def test_timeout_and_cancel_under_trio(call: Any, recorder: Recorder, anyio_backend: str) -> None:
    mark = marker()
    result = await call("run_shell", command=f"sleep {mark} & sleep {mark} & wait", timeout=0.5)
    assert result.details["timed_out"] and none_left(mark)
    with anyio.move_on_after(0.5):
        await call("run_shell", command=f"sleep {mark} & sleep {mark} & wait", timeout=60)
    assert none_left(mark)


async def test_a_nul_byte_in_the_command_is_a_clear_error_naming_the_argument(call: Any) -> None:
    """H16: not ``ValueError: embedded null byte``, but which argument and why."""
    with pytest.raises(ShellToolError, match=r"command holds a NUL byte"):
        await call("run_shell", command="echo a\0b")
