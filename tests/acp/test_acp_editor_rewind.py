"""What the editor's tools change is kept for ``/rewind`` as our own tools' is: a
command in the editor's terminal, in our sandbox, is captured and undone byte for
byte; one that ran outside the sandbox is listed as not undoable (it said nothing
before: the checkpoint did not know it ran); an edit through the editor's buffers is
put back too."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest
from acp.schema import ClientCapabilities, FileSystemCapabilities, TextContentBlock

from shell.config import Settings
from shell.permissions.sandbox import sandbox_status
from shell.providers.scripted import ScriptedModel
from shell.rewind import apply_rewind, plan_rewind
from shell.runtime import RuntimeOptions, ShellRuntime

from .conftest import EditorClient, Spawn

pytestmark = pytest.mark.anyio

TERMINAL = ClientCapabilities(terminal=True)
EDITOR = ClientCapabilities(fs=FileSystemCapabilities(read_text_file=True, write_text_file=True),
                            terminal=True)


async def session_with(
    spawn: Spawn, script: Any, workspace: Path, client: EditorClient, caps: ClientCapabilities, *turns: Any
) -> str:
    async with spawn(client, "--model", script([*turns, "Done."]), "--permission-mode", "auto",
                     capabilities=caps) as conn:
        session = await conn.new_session(cwd=str(workspace), mcp_servers=[])
        await conn.prompt(session_id=session.session_id, prompt=[TextContentBlock(type="text", text="go")])
        return str(session.session_id)


def resumed(workspace: Path, session_id: str, acp_env: dict[str, str], monkeypatch: pytest.MonkeyPatch
            ) -> ShellRuntime:
    monkeypatch.setenv("AGENT_SHELL_DATA_DIR", acp_env["AGENT_SHELL_DATA_DIR"])
    monkeypatch.setenv("AGENT_SHELL_CONFIG_DIR", acp_env["AGENT_SHELL_CONFIG_DIR"])
    rt = ShellRuntime.create(RuntimeOptions(cwd=str(workspace), permission_mode="bypass"),
                             settings=Settings(path=workspace.parent / "none.toml"),
                             model=ScriptedModel(["ok"]))
    rt.resume(session_id)
    return rt


@pytest.mark.skipif(not sandbox_status().available, reason="bubblewrap cannot make namespaces here")
async def test_a_command_in_the_editors_terminal_is_captured_and_rewound(
    spawn: Spawn, script: Any, workspace: Path, acp_env: dict[str, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    (workspace / "data.txt").write_text("original content\n")
    command = "echo 'agent v1' > data.txt; echo 'agent new' > created.txt"
    client = EditorClient()
    client.answer = None  # auto mode runs it in the sandbox, unasked
    call = {"tool_calls": [{"name": "run_shell", "args": {"command": command}, "id": "s1"}]}
    session_id = await session_with(spawn, script, workspace, client, TERMINAL, call)
    assert client.terminal_commands
    assert any(os.path.basename(a) == "bwrap" for a in client.terminal_commands[0])
    assert (workspace / "data.txt").read_text() == "agent v1\n"
    rt = resumed(workspace, session_id, acp_env, monkeypatch)
    plan = plan_rewind(rt, 1)
    assert "ran in the sandbox; what it changed in files is included above" in plan.describe()
    apply_rewind(rt, plan, "files")
    assert (workspace / "data.txt").read_text() == "original content\n"
    assert not (workspace / "created.txt").exists()


async def test_a_command_outside_the_sandbox_is_said_to_be_not_undoable(
    spawn: Spawn, script: Any, workspace: Path, acp_env: dict[str, str], tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    fake = tmp_path / "bin"
    fake.mkdir()
    (fake / "bwrap").write_text("#!/bin/sh\necho 'no namespaces here' >&2\nexit 1\n")
    (fake / "bwrap").chmod(0o755)
    acp_env["PATH"] = f"{fake}{os.pathsep}{acp_env.get('PATH', '')}"
    client = EditorClient()
    client.answer = "allow_once"
    call = {"tool_calls": [{"name": "run_shell", "args": {"command": "echo hi > made.txt"}, "id": "s1"}]}
    session_id = await session_with(spawn, script, workspace, client, TERMINAL, call)
    assert (workspace / "made.txt").read_text() == "hi\n"
    rt = resumed(workspace, session_id, acp_env, monkeypatch)
    text = plan_rewind(rt, 1).describe()
    assert "**not undoable** (it ran in your editor's terminal, outside the sandbox)" in text, text


async def test_an_edit_through_the_editor_is_rewound(
    spawn: Spawn, script: Any, workspace: Path, acp_env: dict[str, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    (workspace / "app.py").write_text("x = 1\n")
    client = EditorClient()
    client.answer = None
    client.saves = True  # an editor that writes what the agent sends to the disk

    calls = {"tool_calls": [
        {"name": "edit_file", "id": "e1",
         "args": {"path": "app.py", "old_string": "x = 1", "new_string": "x = 2"}},
        {"name": "write_file", "args": {"path": "new.py", "content": "y = 1\n"}, "id": "w1"}]}
    session_id = await session_with(spawn, script, workspace, client, EDITOR, calls)
    assert client.tool_status("e1") == "completed" and client.tool_status("w1") == "completed"
    rt = resumed(workspace, session_id, acp_env, monkeypatch)
    plan = plan_rewind(rt, 1)
    assert sorted((s.shown, s.action) for s in plan.files) == [("app.py", "restore"), ("new.py", "delete")]
    apply_rewind(rt, plan, "files")
    assert (workspace / "app.py").read_text() == "x = 1\n"
    assert not (workspace / "new.py").exists()
