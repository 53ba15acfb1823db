"""Sessions listed and loaded from our store; files, commands and MCP servers
through the editor; a protocol stream nothing else can write into."""

from __future__ import annotations

import os
import shutil
from pathlib import Path
from typing import Any

import pytest
from acp.schema import (
    AgentPlanUpdate,
    ClientCapabilities,
    FileEditToolCallContent,
    FileSystemCapabilities,
    McpServerStdio,
    TerminalToolCallContent,
    TextContentBlock,
    ToolCallStart,
)

from shell.permissions.sandbox import sandbox_status

from .conftest import EditorClient, Spawn

pytestmark = pytest.mark.anyio

EDITOR = ClientCapabilities(
    fs=FileSystemCapabilities(read_text_file=True, write_text_file=True), terminal=True
)


def prompt_text(text: str) -> list[TextContentBlock]:
    return [TextContentBlock(type="text", text=text)]


async def test_a_saved_session_is_listed_and_loaded_back(spawn: Spawn, script: Any, workspace: Path) -> None:
    todos = [{"content": "Write notes", "status": "completed"}]
    turns = [
        {
            "thinking": "Notes, then.",
            "tool_calls": [
                {"name": "write_file", "args": {"path": "notes.txt", "content": "hi\n"}, "id": "w1"}
            ],
        },
        {"tool_calls": [{"name": "write_todos", "args": {"todos": todos}, "id": "t1"}]},
        "Wrote notes.txt.",
        "And here we are again.",
    ]
    spec = script(turns)
    first = EditorClient()
    async with spawn(first, "--model", spec, "--middleware", "TodoList") as conn:
        session = await conn.new_session(cwd=str(workspace), mcp_servers=[])
        await conn.prompt(session_id=session.session_id, prompt=prompt_text("please write notes"))
        saved = session.session_id

    editor = EditorClient()
    async with spawn(editor, "--model", script(["And here we are again."])) as conn:
        listed = await conn.list_sessions(cwd=str(workspace))
        [info] = listed.sessions
        assert info.session_id == saved and info.cwd == str(workspace)
        assert info.title == "please write notes" and info.updated_at
        elsewhere = await conn.list_sessions(cwd=str(workspace.parent))
        assert elsewhere.sessions == []

        loaded = await conn.load_session(cwd=str(workspace), session_id=saved, mcp_servers=[])
        assert loaded.modes.current_mode_id == "default"
        assert editor.user_text() == "please write notes"
        assert editor.thoughts() == "Notes, then."
        assert editor.text() == "Wrote notes.txt."
        start = next(u for u in editor.updates if isinstance(u, ToolCallStart) and u.tool_call_id == "w1")
        assert start.kind == "edit" and start.title == "Write notes.txt"
        assert editor.tool_status("w1") == "completed" and editor.tool_status("t1") == "completed"
        [plan] = [u for u in editor.updates if isinstance(u, AgentPlanUpdate)]
        assert [(e.content, e.status) for e in plan.entries] == [("Write notes", "completed")]

        replayed = len(editor.updates)
        reply = await conn.prompt(session_id=saved, prompt=prompt_text("still there?"))
        assert reply.stop_reason == "end_turn"
        assert editor.text() == "Wrote notes.txt.And here we are again."
        assert len(editor.updates) > replayed

    third = EditorClient()
    async with spawn(third, "--model", script(["hi"])) as conn:
        await conn.load_session(cwd=str(workspace), session_id=saved, mcp_servers=[])
    # the continued conversation was saved to the same session
    assert third.user_text() == "please write notes" + "still there?"


async def test_loading_a_session_that_does_not_exist_says_so(
    spawn: Spawn, script: Any, workspace: Path
) -> None:
    from acp import RequestError

    async with spawn(EditorClient(), "--model", script(["hi"])) as conn:
        with pytest.raises(RequestError) as caught:
            await conn.load_session(cwd=str(workspace), session_id="20990101-000000-abcdef", mcp_servers=[])
    assert "20990101-000000-abcdef" in str(caught.value)


async def test_files_go_through_the_editor_buffers(spawn: Spawn, script: Any, workspace: Path) -> None:
    """With fs capabilities, the model reads the unsaved buffer and its edit lands
    in the buffer, not on the disk; the diff shown is the buffer's."""
    on_disk = workspace / "app.py"
    on_disk.write_text("x = 1\n")
    turns = [
        {"tool_calls": [{"name": "read_file", "args": {"path": "app.py"}, "id": "r1"}]},
        {
            "tool_calls": [
                {
                    "name": "edit_file",
                    "id": "e1",
                    "args": {"path": "app.py", "old_string": "x = 2", "new_string": "x = 3"},
                }
            ]
        },
        "Edited.",
    ]
    client = EditorClient()
    client.buffers[str(on_disk)] = "x = 2\n"  # the user changed it and did not save
    async with spawn(client, "--model", script(turns), capabilities=EDITOR) as conn:
        session = await conn.new_session(cwd=str(workspace), mcp_servers=[])
        reply = await conn.prompt(session_id=session.session_id, prompt=prompt_text("bump x"))
    assert reply.stop_reason == "end_turn"
    assert client.tool_status("r1") == "completed" and client.tool_status("e1") == "completed"
    assert client.buffers[str(on_disk)] == "x = 3\n"
    assert on_disk.read_text() == "x = 1\n", "the editor saves, not us"
    assert ("write", str(on_disk)) in client.fs_log
    final = [c for c in client.tool_updates("e1")[-1].content if isinstance(c, FileEditToolCallContent)]
    assert final and final[0].old_text == "x = 2\n" and final[0].new_text == "x = 3\n"
    read_output = client.tool_updates("r1")[-1].content[0].content.text
    assert "x = 2" in read_output


async def test_a_path_outside_the_workspace_is_still_fenced(
    spawn: Spawn, script: Any, workspace: Path
) -> None:
    secret = workspace.parent / "notes.txt"
    secret.write_text("do not read")
    turns = [{"tool_calls": [{"name": "read_file", "args": {"path": str(secret)}, "id": "r1"}]}, "Could not."]
    client = EditorClient()
    client.answer = "reject_once"
    async with spawn(client, "--model", script(turns), capabilities=EDITOR) as conn:
        session = await conn.new_session(cwd=str(workspace), mcp_servers=[])
        await conn.prompt(session_id=session.session_id, prompt=prompt_text("read it"))
    assert client.fs_log == [], "the editor was never asked for the file"
    [(asked, options)] = client.permission_requests
    assert "outside the workspace" in asked.title
    assert [o.kind for o in options] == ["allow_once", "reject_once"], "no 'always' for a path question"
    assert client.tool_status("r1") == "failed"  # ACP's one status for a call that did not run
    said = client.tool_updates("r1")[-1].content[0].content.text  # a refusal, not a failure to retry
    assert "The user rejected the call to read_file; it was not run." in said and "failed" not in said


@pytest.mark.parametrize("capabilities", [None, EDITOR], ids=["ours", "editor"])
async def test_a_write_outside_the_workspace_is_asked_once_and_says_so(
    spawn: Spawn, script: Any, workspace: Path, capabilities: ClientCapabilities | None
) -> None:
    """Issue 13: one question for a write outside (the policy's, naming the path as
    outside and what approving allows); approving it is enough, the fence does not
    ask again. The same for our file tools and the editor's."""
    outside = workspace.parent / "away" / "notes.txt"
    outside.parent.mkdir()
    args = {"path": str(outside), "content": "far\n"}
    turns = [{"tool_calls": [{"name": "write_file", "args": args, "id": "w1"}]}, "Wrote it."]
    client = EditorClient()
    extra = {"capabilities": capabilities} if capabilities is not None else {}
    async with spawn(client, "--model", script(turns), **extra) as conn:
        session = await conn.new_session(cwd=str(workspace), mcp_servers=[])
        await conn.prompt(session_id=session.session_id, prompt=prompt_text("write it"))
    [(asked, _options)] = client.permission_requests
    said = " ".join(getattr(getattr(c, "content", None), "text", "") for c in asked.content or [])
    assert f"{outside} is outside the workspace {workspace}" in said
    assert "allows exactly that file (nothing next to it)" in said
    assert client.tool_status("w1") == "completed"
    written = client.buffers.get(str(outside)) if capabilities is not None else outside.read_text()
    assert written == "far\n"


async def test_commands_run_in_an_editor_terminal(spawn: Spawn, script: Any, workspace: Path) -> None:
    turns = [
        {
            "tool_calls": [
                {"name": "run_shell", "args": {"command": "echo made-by-the-editor; exit 3"}, "id": "s1"}
            ]
        },
        "It failed with 3.",
    ]
    client = EditorClient()
    async with spawn(
        client, "--model", script(turns), "--permission-mode", "bypass", capabilities=EDITOR
    ) as conn:
        session = await conn.new_session(cwd=str(workspace), mcp_servers=[])
        await conn.prompt(session_id=session.session_id, prompt=prompt_text("run it"))
    [command] = client.terminal_commands
    assert command[-2:] == ["-c", "echo made-by-the-editor; exit 3"]
    embedded = [
        c
        for u in client.tool_updates("s1")
        for c in (u.content or [])
        if isinstance(c, TerminalToolCallContent)
    ]
    assert embedded and embedded[0].terminal_id == "term-1", "the tool call shows the editor's terminal"
    assert client.tool_status("s1") == "failed", "exit code 3 is a failed call"


EDITOR_KEY = "sk-test-EDITORKEY0123456789abcdef"


@pytest.mark.skipif(not sandbox_status().available, reason="bubblewrap cannot make namespaces here")
async def test_the_editors_terminal_runs_commands_in_our_sandbox(
    spawn: Spawn, script: Any, workspace: Path, acp_env: dict[str, str], tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Finding G18: with editor terminals every command ran as `bash -c` with the
    user's full rights, the editor's environment (provider keys) and the network,
    while auto mode ran it unasked as 'sandboxed'. Now the terminal runs bubblewrap
    with our run_shell's walls, in our scrubbed environment. Round 12: through a launcher,
    so that bubblewrap (the sandbox's /proc/1) shows neither the paths it hides nor the
    editor's environment it was started in."""
    monkeypatch.setenv("OPENAI_API_KEY", EDITOR_KEY)  # the editor's own environment, which its terminals get
    acp_env["OPENAI_API_KEY"] = EDITOR_KEY
    (workspace / ".env").write_text("API_KEY=sk-live-HIDDENVALUE\n")
    outside = tmp_path / "outside.txt"
    command = (f"env > seen_env.txt; grep -rh HIDDEN --exclude=seen_* . > seen_grep.txt; echo x > {outside}; "
               "mkdir .vscode; echo '{}' > .vscode/tasks.json; "
               r"for p in /proc/[0-9]*; do tr '\0' '\n' < $p/cmdline; tr '\0' '\n' < $p/environ; done"
               " > seen_proc.txt; echo done")
    turns = [{"tool_calls": [{"name": "run_shell", "args": {"command": command}, "id": "s1"}]}, "Ran it."]
    client = EditorClient()
    client.answer = None  # a question would stop the command: auto mode must not ask
    auto = ("--model", script(turns), "--permission-mode", "auto")
    async with spawn(client, *auto, capabilities=EDITOR) as conn:
        session = await conn.new_session(cwd=str(workspace), mcp_servers=[])
        await conn.prompt(session_id=session.session_id, prompt=prompt_text("run it"))
    assert client.permission_requests == [], "auto mode runs a command the sandbox confines unasked"
    [terminal] = client.terminal_commands
    assert any(os.path.basename(arg) == "bwrap" for arg in terminal) and "--args" in terminal, terminal
    assert terminal[-1] == command
    limits = terminal[: terminal.index("--") + 1]  # under our resource limits, as run_shell's own (r20)
    assert os.path.basename(limits[0]) == "prlimit" and any(a.startswith("--data=") for a in limits), terminal
    assert not any(EDITOR_KEY in arg for arg in terminal), "no provider key is handed to the terminal"
    assert not any(".env" in arg or "--setenv" in arg for arg in terminal[:-1]), "the options are in a file"
    assert client.tool_status("s1") == "completed", str(client.tool_updates("s1"))
    seen_env = (workspace / "seen_env.txt").read_text()
    assert "PATH=" in seen_env and EDITOR_KEY not in seen_env and "OPENAI_API_KEY" not in seen_env
    assert "sk-live" not in (workspace / "seen_grep.txt").read_text(), ".env reads empty in the sandbox"
    seen_proc = (workspace / "seen_proc.txt").read_text()  # /proc/1 is bubblewrap, started by the editor
    assert "--args" in seen_proc and EDITOR_KEY not in seen_proc and f"{workspace}/.env" not in seen_proc
    assert not outside.exists(), "nothing is written outside the workspace"
    assert not (workspace / ".vscode").exists(), "what runs later is moved out after the command"


async def test_without_a_sandbox_the_editors_terminal_says_it_runs_as_you(
    spawn: Spawn, script: Any, workspace: Path, acp_env: dict[str, str], tmp_path: Path
) -> None:
    """Where bubblewrap cannot work, the editor's terminal runs the command as the user,
    and the question says so plainly, with what the sandbox would have stopped."""
    fake = tmp_path / "bin"
    fake.mkdir()
    (fake / "bwrap").write_text("#!/bin/sh\necho 'no namespaces here' >&2\nexit 1\n")
    (fake / "bwrap").chmod(0o755)
    acp_env["PATH"] = f"{fake}{os.pathsep}{acp_env.get('PATH', '')}"
    turns = [{"tool_calls": [{"name": "run_shell", "args": {"command": "echo hi"}, "id": "s1"}]}, "Ran it."]
    client = EditorClient()
    auto = ("--model", script(turns), "--permission-mode", "auto")
    async with spawn(client, *auto, capabilities=EDITOR) as conn:
        session = await conn.new_session(cwd=str(workspace), mcp_servers=[])
        await conn.prompt(session_id=session.session_id, prompt=prompt_text("run it"))
    [(asked, _options)] = client.permission_requests
    said = str(asked)
    assert "editor's terminal as you, with no sandbox" in said and "provider keys included" in said, said
    [terminal] = client.terminal_commands
    assert terminal[1:] == ["-c", "echo hi"], "no sandbox here: bash in the editor's terminal, as before"
    assert client.tool_status("s1") == "completed"


async def test_the_editors_mcp_servers_become_ours(spawn: Spawn, script: Any, workspace: Path) -> None:
    command = shutil.which("mcp-server-time")
    assert command, "mcp-server-time is in the test extra"
    turns = [
        {
            "tool_calls": [
                {"name": "time__get_current_time", "args": {"timezone": "Europe/Paris"}, "id": "m1"}
            ]
        },
        "It is late in Paris.",
    ]
    client = EditorClient()
    server = McpServerStdio(name="time", command=command, args=[], env=[])
    async with spawn(client, "--model", script(turns), "--permission-mode", "bypass") as conn:
        session = await conn.new_session(cwd=str(workspace), mcp_servers=[server])
        await conn.prompt(session_id=session.session_id, prompt=prompt_text("time?"))
    assert client.tool_status("m1") == "completed"
    output = client.tool_updates("m1")[-1].content[0].content.text
    assert "Europe/Paris" in output


async def test_nothing_printed_to_stdout_reaches_the_protocol(
    spawn: Spawn, script: Any, workspace: Path, acp_env: dict[str, str]
) -> None:
    """A plugin middleware that prints (and writes to fd 1) on import cannot corrupt
    the JSON stream: stdout is the protocol's alone."""
    plugins = Path(acp_env["AGENT_SHELL_CONFIG_DIR"]) / "middleware"
    plugins.mkdir(parents=True)
    (plugins / "noisy.py").write_text(
        "import os, sys\nprint('garbage on stdout')\nsys.stdout.flush()\nos.write(1, b'{not json}\\n')\n"
    )
    client = EditorClient()
    async with spawn(client, "--model", script(["Still fine."])) as conn:
        session = await conn.new_session(cwd=str(workspace), mcp_servers=[])
        reply = await conn.prompt(session_id=session.session_id, prompt=prompt_text("hi"))
    assert reply.stop_reason == "end_turn"
    assert client.text().endswith("Still fine.")
    assert "noisy.py: defines no Middleware" in client.text(), "the config's problems are shown, once"
