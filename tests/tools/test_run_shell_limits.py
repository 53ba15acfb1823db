"""run_shell's limits: a command too long for one argument, and a command past the
stated cap. Both run sandboxed and bare, as in ``test_run_shell``."""

from __future__ import annotations

from typing import Any

import pytest

from shell.core.tools import Tool
from shell.permissions.sandbox import Sandbox
from shell.tools.builtin import builtin_tools
from shell.tools.longcommand import MAX_COMMAND_BYTES, CommandTooLong
from shell.tools.workspace import Workspace

from ..sandboxing import require_sandbox

pytestmark = pytest.mark.anyio


@pytest.fixture(params=["sandboxed", "bare"])
def tools(request: pytest.FixtureRequest, workspace: Workspace) -> dict[str, Tool]:
    if request.param == "sandboxed":
        require_sandbox()
        sandbox = Sandbox(workspace.root)
    else:
        sandbox = Sandbox(workspace.root, bwrap="/nonexistent/bwrap")
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

