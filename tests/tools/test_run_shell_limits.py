"""run_shell's limits: a command too long for one argument, a command past the stated
cap, and the resource limits that stop a runaway (set small here, as a user's config
can). All run sandboxed and bare, as in ``test_run_shell``."""

from __future__ import annotations

from typing import Any

import pytest

from shell.core.tools import Tool
from shell.permissions.sandbox import Sandbox
from shell.permissions.sandboxlimits import Limits, limits_from
from shell.tools.builtin import builtin_tools
from shell.tools.longcommand import MAX_COMMAND_BYTES, CommandTooLong
from shell.tools.workspace import Workspace

from ..sandboxing import require_sandbox

pytestmark = pytest.mark.anyio

MIB = 1024 * 1024
SMALL = Limits(memory=256 * MIB, processes=4096, file_size=1 * MIB)


@pytest.fixture(params=["sandboxed", "bare"])
def tools(request: pytest.FixtureRequest, workspace: Workspace) -> dict[str, Tool]:
    if request.param == "sandboxed":
        require_sandbox()
        sandbox = Sandbox(workspace.root, limits=SMALL)
    else:
        sandbox = Sandbox(workspace.root, bwrap="/nonexistent/bwrap", limits=SMALL)
    return {t.name: t for t in builtin_tools(workspace, sandbox=sandbox)}


async def test_a_file_written_through_a_heredoc_over_128_kib(workspace: Workspace, call: Any) -> None:
    """One argument holds at most 128 KiB: a 600 KB heredoc was "Argument list too long".
    It runs as written (quotes, ``$``, a trailing space kept), and leaves nothing behind."""
    body = "\n".join(f"line {i}: $HOME 'quoted' \"double\" \\back `tick` " for i in range(12_000))
    command = f"cat > big.txt <<'END'\n{body}\nEND\necho \"$0\" done; ls -A"
    assert len(command) > 300_000
    result = await call("run_shell", command=command)
    assert result.details["exit_code"] == 0, result.text
    assert (workspace.root / "big.txt").read_text() == body + "\n"
    lines = result.text.splitlines()
    assert lines[0].endswith("bash done") and lines[1:-1] == ["big.txt"]  # $0 as with -c; no file left


async def test_a_long_command_reads_no_script_on_its_stdin_and_keeps_no_descriptor(call: Any) -> None:
    """The command's own stdin stays empty, and its children inherit no extra descriptor."""
    filler = "#" + "x" * 200_000
    result = await call("run_shell", command=f"{filler}\nwc -c < /dev/stdin; ls /proc/self/fd | wc -l")
    assert result.details["exit_code"] == 0, result.text
    assert result.text.splitlines()[:2] == ["0", "4"]  # 0 1 2 and ls's own directory


async def test_a_syntax_error_in_a_long_command_is_bash_s(call: Any) -> None:
    result = await call("run_shell", command="#" + "x" * 200_000 + "\nif then")
    assert result.is_error and "syntax error" in result.text


async def test_past_the_cap_a_clear_error_says_what_to_do(workspace: Workspace, call: Any) -> None:
    command = "echo " + "a" * MAX_COMMAND_BYTES + " > nope"
    with pytest.raises(CommandTooLong, match=r"over the 4 MiB limit.*write_file.*>>"):
        await call("run_shell", command=command)
    assert not (workspace.root / "nope").exists()



async def test_a_runaway_allocation_stops_at_the_memory_limit_and_says_which(call: Any) -> None:
    """A 600 MB string (a brace expansion's worth) meets the 256 MiB limit instead of the
    machine's memory: the command ends long before its timeout, and says what to raise."""
    result = await call("run_shell", command="x=$(head -c 600000000 /dev/zero | tr '\\0' a); echo ${#x}",
                        timeout=300)
    assert not result.details["timed_out"], result.text
    assert "600000000" not in result.text
    assert "ran out of memory: each may use 256 MiB" in result.text
    assert '`[sandbox] memory = "16G"`' in result.text


async def test_a_file_stops_at_the_file_size_limit_and_says_so(workspace: Workspace, call: Any) -> None:
    result = await call("run_shell", command="head -c 3000000 /dev/zero > big.bin")
    assert (workspace.root / "big.bin").stat().st_size == 1 * MIB
    assert result.is_error and "reached the 1 MiB limit on one file" in result.text
    assert "[sandbox] file_size" in result.text


async def test_honest_work_under_the_limits_says_nothing_of_them(call: Any) -> None:
    command = "seq 1 100000 | sort -n | tail -1; for i in 1 2 3; do (true) & done; wait"
    result = await call("run_shell", command=command)
    assert result.text.splitlines()[0] == "100000" and not result.is_error
    assert "agent-shell" not in result.text


def test_the_limits_are_settings_and_a_bad_value_is_said() -> None:
    problems: list[str] = []
    limits = limits_from({"memory": "8G", "processes": "unlimited", "file_size": "lots"}, problems)
    assert limits.memory == 8 * 1024 * MIB and limits.processes == 0
    assert limits.file_size == 16 * 1024 * MIB  # the default kept
    assert problems == ['In the config file, [sandbox] file_size must be a size such as "8G", "512M" or '
                        '"unlimited"; the default was kept.']
