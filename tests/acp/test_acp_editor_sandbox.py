"""The editor's terminal (ACP) runs commands in our sandbox through the same launcher
as our own run_shell: what is special to it, against the real bubblewrap."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from shell.acp.editor_tools import run_in_editor_terminal
from shell.agent import ToolCallBlock, ToolContext
from shell.permissions.sandbox import Sandbox
from tests.homes import made_home

from ..sandboxing import require_sandbox
from .conftest import EditorClient

pytestmark = pytest.mark.anyio


@pytest.fixture
def home() -> Iterator[Path]:
    """A folder outside /tmp (a path to hide in /tmp is not bound: the sandbox's /tmp is its own)."""
    base = made_home(".agent-shell-test-editor-")
    (base / "project").mkdir()
    try:
        yield base
    finally:
        shutil.rmtree(base, ignore_errors=True)


async def _no_question(request: Any) -> Any:
    raise AssertionError("nothing asks here")


async def test_a_hidden_path_that_vanished_sets_the_sandbox_up_again_in_a_new_terminal(home: Path) -> None:
    """A path listed for hiding that vanished before bubblewrap started failed the
    command. In the editor's terminal bubblewrap's status file tells that it never
    started the command: a second terminal runs it, once, and the result says why."""
    require_sandbox()
    gone = home / "vanishing"

    class Vanishing(Sandbox):
        def wrap(self, argv: Any, **kwargs: Any) -> list[str]:
            args = super().wrap(argv, **kwargs)
            shutil.rmtree(gone, ignore_errors=True)
            return args

    gone.mkdir()
    box = Vanishing(home / "project", hidden=[gone])
    client = EditorClient()
    shown: list[Any] = []
    ctx = ToolContext(ToolCallBlock("c1", "run_shell", {}), shown.append, _no_question)
    command = "echo ran >> ran.txt; echo ok"
    result = await run_in_editor_terminal(client, "s1", command, box.workspace, 20, ctx, sandbox=box)
    assert not result.is_error, result.text
    assert (home / "project" / "ran.txt").read_text() == "ran\n", "the command ran once"
    assert "set up again" in result.text and "Can't mkdir" in result.text, result.text
    assert len(client.terminal_commands) == 2
    assert shown == [{"terminal_id": "term-1"}, {"terminal_id": "term-2"}], "each is shown in the call"
    assert result.details["terminal_id"] == "term-2"


async def test_the_launcher_in_the_editors_terminal_loads_no_library_from_the_workspace(home: Path) -> None:
    """With ``LD_LIBRARY_PATH=":/usr/local/lib"`` in the editor's environment (an empty
    entry: the terminal's folder, the workspace), the launcher's ``sh`` on the host
    loaded the workspace's ``libc.so.6`` (finding W6): here a broken one, which would
    keep it from starting at all; a real planted one would run as the user."""
    require_sandbox()
    (home / "project" / "libc.so.6").write_text("not a library\n")
    (home / "project" / "preload.so").write_text("not a library\n")
    box = Sandbox(home / "project")
    client = EditorClient()
    client.environ = {"LD_LIBRARY_PATH": ":/usr/local/lib", "LD_PRELOAD": "./preload.so"}
    ctx = ToolContext(ToolCallBlock("c1", "run_shell", {}), lambda _: None, _no_question)
    result = await run_in_editor_terminal(client, "s1", "echo ran", box.workspace, 20, ctx, sandbox=box)
    assert "ran" in result.text and "[exit code 0]" in result.text, result.text
    assert "libc.so.6" not in result.text and "preload.so" not in result.text, result.text


async def test_a_command_over_one_arguments_room_runs_in_the_editors_terminal(home: Path) -> None:
    """A heredoc past 128 KiB was "Argument list too long" in the editor's terminal too:
    the launcher opens it from its private folder (removed at once) for bash to read."""
    require_sandbox()
    box = Sandbox(home / "project")
    client = EditorClient()
    ctx = ToolContext(ToolCallBlock("c1", "run_shell", {}), lambda _: None, _no_question)
    body = "\n".join(f"line {i}: $HOME 'q' \"d\" `t`" for i in range(10_000))
    command = f"cat > big.txt <<'END'\n{body}\nEND\nls -A"
    assert len(command) > 200_000
    result = await run_in_editor_terminal(client, "s1", command, box.workspace, 60, ctx, sandbox=box)
    assert "[exit code 0]" in result.text, result.text
    assert (home / "project" / "big.txt").read_text() == body + "\n"
    assert result.text.splitlines()[0] == "big.txt"  # nothing else left in the workspace
    [terminal] = client.terminal_commands
    assert max(len(arg) for arg in terminal) < 2_000, "the command is not on the terminal's command line"
