"""``agent-shell acp`` driven as an editor drives it: a subprocess speaking ACP on
stdio, the Python SDK's client on the other end, the scripted model for the words."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest
from acp.schema import (
    AgentPlanUpdate,
    ClientCapabilities,
    ClientSessionCapabilities,
    CurrentModeUpdate,
    FileEditToolCallContent,
    SessionConfigOptionsCapabilities,
    TextContentBlock,
    ToolCallStart,
)
from acp.schema import (
    BooleanConfigOptionCapabilities as BooleanCaps,
)

from shell.core.approvals import rejected_message

from .conftest import EditorClient, Spawn

pytestmark = pytest.mark.anyio

WRITE = {
    "tool_calls": [{"name": "write_file", "args": {"path": "notes.txt", "content": "hello\n"}, "id": "w1"}]
}
BOOLEAN_OPTIONS = ClientCapabilities(
    session=ClientSessionCapabilities(config_options=SessionConfigOptionsCapabilities(boolean=BooleanCaps()))
)


def prompt_text(text: str) -> list[TextContentBlock]:
    return [TextContentBlock(type="text", text=text)]


async def test_initialize_says_version_1_and_what_we_do(spawn: Spawn, script: Any) -> None:
    client = EditorClient()
    async with spawn(client, "--model", script(["hi"])) as conn:
        reply = await conn.initialize(protocol_version=1, client_capabilities=ClientCapabilities())
    assert reply.protocol_version == 1
    caps = reply.agent_capabilities
    assert caps.load_session is True
    assert caps.session_capabilities.list is not None
    assert caps.prompt_capabilities.embedded_context and caps.prompt_capabilities.image
    assert caps.mcp_capabilities.http and caps.mcp_capabilities.sse
    assert reply.agent_info.name == "agent-shell"


async def test_a_prompt_streams_its_answer(spawn: Spawn, script: Any, workspace: Path) -> None:
    answer = "Hello **there**: this answer comes in small pieces, as it is written."
    client = EditorClient()
    async with spawn(
        client, "--model", script([{"thinking": "The user greets me.", "text": answer}])
    ) as conn:
        session = await conn.new_session(cwd=str(workspace), mcp_servers=[])
        reply = await conn.prompt(session_id=session.session_id, prompt=prompt_text("hello"))
    assert reply.stop_reason == "end_turn"
    assert client.text() == answer
    assert client.thoughts() == "The user greets me."
    chunks = [u for u in client.updates if getattr(u, "session_update", "") == "agent_message_chunk"]
    assert len(chunks) > 3, "the answer streamed in pieces, not at the end"
    assert reply.usage is not None and reply.usage.output_tokens > 0


async def test_new_session_offers_modes_model_and_every_middleware(
    spawn: Spawn, script: Any, workspace: Path
) -> None:
    spec = script(["hi"])
    client = EditorClient()
    async with spawn(client, "--model", spec, capabilities=BOOLEAN_OPTIONS) as conn:
        session = await conn.new_session(cwd=str(workspace), mcp_servers=[])
    assert session.modes.current_mode_id == "default"
    assert [m.id for m in session.modes.available_modes] == [
        "default",
        "plan",
        "accept-edits",
        "auto",
        "bypass",
    ]
    options = {o.id: o for o in session.config_options}
    assert options["mode"].current_value == "default" and options["mode"].category == "mode"
    assert options["model"].type == "select" and options["model"].category == "model"
    middleware = {k: o for k, o in options.items() if k.startswith("middleware.")}
    assert {"middleware.HumanInTheLoop", "middleware.TodoList", "middleware.Timing"} <= set(middleware)
    assert all(o.type == "boolean" for o in middleware.values())
    assert middleware["middleware.HumanInTheLoop"].current_value is True
    assert middleware["middleware.TodoList"].current_value is False


async def test_without_boolean_support_middleware_are_on_off_selects(
    spawn: Spawn, script: Any, workspace: Path
) -> None:
    client = EditorClient()
    async with spawn(client, "--model", script(["hi"])) as conn:
        session = await conn.new_session(cwd=str(workspace), mcp_servers=[])
        option = next(o for o in session.config_options if o.id == "middleware.TodoList")
        assert option.type == "select" and option.current_value == "off"
        assert [v.value for v in option.options] == ["on", "off"]
        changed = await conn.set_config_option(
            config_id="middleware.TodoList", session_id=session.session_id, value="on"
        )
    assert next(o for o in changed.config_options if o.id == "middleware.TodoList").current_value == "on"


async def test_a_tool_call_asks_and_runs_when_allowed(spawn: Spawn, script: Any, workspace: Path) -> None:
    client = EditorClient()
    client.answer = "allow_once"
    async with spawn(client, "--model", script([WRITE, "Written."])) as conn:
        session = await conn.new_session(cwd=str(workspace), mcp_servers=[])
        reply = await conn.prompt(session_id=session.session_id, prompt=prompt_text("write it"))
    assert reply.stop_reason == "end_turn"
    assert (workspace / "notes.txt").read_text() == "hello\n"
    [(asked, options)] = client.permission_requests
    assert asked.tool_call_id == "w1" and asked.kind == "edit"
    assert [o.kind for o in options] == ["allow_once", "allow_always", "reject_once", "reject_always"]
    assert asked.title == "Write notes.txt"
    assert asked.locations[0].path == str(workspace / "notes.txt")
    [diff] = [c for c in asked.content if isinstance(c, FileEditToolCallContent)]
    assert diff.old_text is None and diff.new_text == "hello\n", "what is approved is what is seen"
    start = next(u for u in client.tool_updates("w1") if isinstance(u, ToolCallStart))
    assert start.kind == "edit" and start.status == "pending"
    statuses = [u.status for u in client.tool_updates("w1") if u.status]
    assert statuses == ["pending", "in_progress", "completed"]
    final = client.tool_updates("w1")[-1]
    assert any(isinstance(c, FileEditToolCallContent) and c.new_text == "hello\n" for c in final.content)
    assert client.text() == "Written."


@pytest.mark.parametrize("answer", ["reject_once", None])
async def test_a_rejected_tool_call_does_not_run(
    spawn: Spawn, script: Any, workspace: Path, answer: Any
) -> None:
    client = EditorClient()
    client.answer = answer  # None: the user closed the dialog
    async with spawn(client, "--model", script([WRITE, "Understood."])) as conn:
        session = await conn.new_session(cwd=str(workspace), mcp_servers=[])
        reply = await conn.prompt(session_id=session.session_id, prompt=prompt_text("write it"))
    assert reply.stop_reason == "end_turn"
    assert not (workspace / "notes.txt").exists()
    assert client.tool_status("w1") == "failed"
    assert client.text() == "Understood."


async def test_always_answers_become_session_rules(spawn: Spawn, script: Any, workspace: Path) -> None:
    """ "Always allow" keeps the rule the policy suggests (here ``write_file(docs/**)``),
    "always reject" the same pattern as a deny rule (``run_shell(ls:*)``): the next
    matching calls are not asked about, and the options say what will be kept."""

    def write(path: str, call_id: str) -> dict[str, Any]:
        return {"tool_calls": [{"name": "write_file", "args": {"path": path, "content": "x"}, "id": call_id}]}

    def run(command: str, call_id: str) -> dict[str, Any]:
        return {"tool_calls": [{"name": "run_shell", "args": {"command": command}, "id": call_id}]}

    turns = [
        write("docs/a.md", "w1"),
        "1",
        write("docs/b.md", "w2"),
        "2",
        write("c.md", "w3"),
        "3",
        run("ls -la", "r1"),
        "4",
        run("ls -l", "r2"),
        "5",
    ]
    client = EditorClient()
    client.answer = lambda call: "allow_always" if call.kind == "edit" else "reject_always"
    async with spawn(client, "--model", script(turns)) as conn:
        session = await conn.new_session(cwd=str(workspace), mcp_servers=[])
        for text in "abcde":
            await conn.prompt(session_id=session.session_id, prompt=prompt_text(text))
    asked = {call.tool_call_id: [o.name for o in options] for call, options in client.permission_requests}
    assert list(asked) == ["w1", "w3", "r1"], "w2 fell under the kept rule, r2 under the deny rule"
    assert "Always allow write_file(docs/**) in this session" in asked["w1"]
    assert "Always reject run_shell(ls:*) in this session" in asked["r1"]
    assert (workspace / "docs" / "b.md").exists() and (workspace / "c.md").exists()
    assert client.tool_status("r2") == "failed"
    said = client.tool_updates("r2")[-1].content[0].content.text
    assert "deny run_shell(ls:*)" in said, said


async def test_plan_mode_refuses_writes_and_bypass_runs_unasked(
    spawn: Spawn, script: Any, workspace: Path
) -> None:
    second = {"tool_calls": [{"name": "write_file", "args": {"path": "b.txt", "content": "b"}, "id": "w2"}]}
    client = EditorClient()
    async with spawn(client, "--model", script([WRITE, "planned", second, "done"])) as conn:
        session = await conn.new_session(cwd=str(workspace), mcp_servers=[])
        await conn.set_session_mode(mode_id="plan", session_id=session.session_id)
        await conn.prompt(session_id=session.session_id, prompt=prompt_text("plan"))
        assert not (workspace / "notes.txt").exists() and client.tool_status("w1") == "failed"
        changed = await conn.set_config_option(
            config_id="mode", session_id=session.session_id, value="bypass"
        )
        assert next(o for o in changed.config_options if o.id == "mode").current_value == "bypass"
        await conn.prompt(session_id=session.session_id, prompt=prompt_text("go"))
    assert (workspace / "b.txt").read_text() == "b"
    assert client.permission_requests == [], "neither mode asks"
    modes = [u.current_mode_id for u in client.updates if isinstance(u, CurrentModeUpdate)]
    assert modes == ["plan", "bypass"]


async def test_accept_edits_runs_edits_inside_the_workspace_only(
    spawn: Spawn, script: Any, workspace: Path
) -> None:
    outside = workspace.parent / "outside.txt"
    away = {
        "tool_calls": [{"name": "write_file", "args": {"path": str(outside), "content": "x"}, "id": "w2"}]
    }
    run = {"tool_calls": [{"name": "run_shell", "args": {"command": "true"}, "id": "r1"}]}
    client = EditorClient()
    client.answer = "reject_once"
    async with spawn(
        client, "--model", script([WRITE, "a", away, "b", run, "c"]), "--permission-mode", "accept-edits"
    ) as conn:
        session = await conn.new_session(cwd=str(workspace), mcp_servers=[])
        assert session.modes.current_mode_id == "accept-edits"
        for text in ("a", "b", "c"):
            await conn.prompt(session_id=session.session_id, prompt=prompt_text(text))
    assert (workspace / "notes.txt").exists()
    assert not outside.exists()
    asked = [call.tool_call_id for call, _ in client.permission_requests]
    assert asked == ["w2", "r1"], "an edit outside the workspace and a command still ask"


async def test_cancel_ends_the_reply_without_waiting_for_the_command(
    spawn: Spawn, script: Any, workspace: Path
) -> None:
    """The editor's cancel stops a 30 s command at once, not when it ends. (How fast is
    measured by benchmarks/cancel_latency.py; a 500 ms bound here failed under load.)"""
    slow = {"tool_calls": [{"name": "run_shell", "args": {"command": "sleep 30"}, "id": "s1"}]}
    client = EditorClient()
    async with spawn(client, "--model", script([slow, "never said"]), "--permission-mode", "bypass") as conn:
        session = await conn.new_session(cwd=str(workspace), mcp_servers=[])
        reply = asyncio.ensure_future(conn.prompt(session_id=session.session_id, prompt=prompt_text("wait")))
        await client.wait_for(lambda: client.tool_status("s1") == "in_progress")
        await conn.cancel(session_id=session.session_id)
        result = await asyncio.wait_for(reply, 20)  # the command alone would take 30 s
    assert result.stop_reason == "cancelled"
    assert client.tool_status("s1") == "failed"
    assert "never said" not in client.text()


async def test_cancel_while_asking_ends_the_reply(spawn: Spawn, script: Any, workspace: Path) -> None:
    client = EditorClient()
    client.answer = "wait"  # the user looks at the dialog and cancels instead
    async with spawn(client, "--model", script([WRITE, "never said"])) as conn:
        session = await conn.new_session(cwd=str(workspace), mcp_servers=[])
        reply = asyncio.ensure_future(conn.prompt(session_id=session.session_id, prompt=prompt_text("go")))
        await client.wait_for(lambda: client.permission_requests)
        await conn.cancel(session_id=session.session_id)
        result = await asyncio.wait_for(reply, 5)
    assert result.stop_reason == "cancelled"
    assert not (workspace / "notes.txt").exists()


@pytest.mark.parametrize("switch", [True, False])
async def test_a_middleware_switched_on_mid_reply_acts_at_its_next_hook(
    spawn: Spawn, script: Any, workspace: Path, switch: bool
) -> None:
    """TodoList switched on while the reply waits for an approval: the very next
    model round has its write_todos tool, and the plan reaches the editor. Left
    off, the same call finds no such tool."""
    todos = [
        {"content": "Look around", "status": "completed"},
        {"content": "Write it down", "status": "in_progress"},
    ]
    turns = [
        {"tool_calls": [{"name": "run_shell", "args": {"command": "true"}, "id": "r1"}]},
        {"tool_calls": [{"name": "write_todos", "args": {"todos": todos}, "id": "t1"}]},
        "Planned.",
    ]
    client = EditorClient()
    go = asyncio.Event()

    async def answer(call: Any) -> str:
        await go.wait()
        return "allow_once"

    client.answer = answer
    async with spawn(client, "--model", script(turns), capabilities=BOOLEAN_OPTIONS) as conn:
        session = await conn.new_session(cwd=str(workspace), mcp_servers=[])
        reply = asyncio.ensure_future(conn.prompt(session_id=session.session_id, prompt=prompt_text("plan")))
        await client.wait_for(lambda: client.permission_requests)
        if switch:
            await conn.set_config_option(
                config_id="middleware.TodoList", session_id=session.session_id, value=True
            )
        go.set()
        result = await asyncio.wait_for(reply, 20)
    assert result.stop_reason == "end_turn"
    plans = [u for u in client.updates if isinstance(u, AgentPlanUpdate)]
    if switch:
        assert client.tool_status("t1") == "completed"
        assert plans and [(e.content, e.status) for e in plans[-1].entries] == [
            ("Look around", "completed"),
            ("Write it down", "in_progress"),
        ]
    else:
        assert client.tool_status("t1") == "failed"
        assert not plans


def test_the_sdk_loads_only_for_acp() -> None:
    """The protocol's schema costs about half a second to import: the TUI, the
    line mode and ``--help`` must not pay it."""
    import subprocess
    import sys

    code = "import sys, shell.cli; shell.cli.build_parser(); print('acp' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


async def test_plan_mode_refuses_writes_commands_and_fetches_unasked(
    spawn: Spawn, script: Any, workspace: Path
) -> None:
    """Plan mode is the policy's: writes, commands and fetches are refused without a
    question (the model reads why), reads still run."""
    (workspace / "readme.txt").write_text("hello")
    turns = [
        {
            "tool_calls": [
                {"name": "read_file", "args": {"path": "readme.txt"}, "id": "r1"},
                {"name": "write_file", "args": {"path": "x.txt", "content": "x"}, "id": "w1"},
                {"name": "run_shell", "args": {"command": "touch y.txt"}, "id": "s1"},
                {"name": "fetch_url", "args": {"url": "http://127.0.0.1:9/"}, "id": "f1"},
            ]
        },
        "Here is the plan.",
    ]
    client = EditorClient()
    async with spawn(client, "--model", script(turns), "--permission-mode", "plan") as conn:
        session = await conn.new_session(cwd=str(workspace), mcp_servers=[])
        assert session.modes.current_mode_id == "plan"
        await conn.prompt(session_id=session.session_id, prompt=prompt_text("plan"))
    assert client.permission_requests == []
    assert client.tool_status("r1") == "completed"
    for call_id in ("w1", "s1", "f1"):
        assert client.tool_status(call_id) == "failed"
        said = client.tool_updates(call_id)[-1].content[0].content.text
        assert "Plan mode" in said, said
    assert not (workspace / "x.txt").exists() and not (workspace / "y.txt").exists()


async def test_the_model_is_a_select_the_editor_switches(spawn: Spawn, script: Any, workspace: Path) -> None:
    from acp import RequestError

    client = EditorClient()
    async with spawn(client, "--model", script(["from the script"])) as conn:
        session = await conn.new_session(cwd=str(workspace), mcp_servers=[])
        model = next(o for o in session.config_options if o.id == "model")
        assert model.current_value == "scripted:script1.json"
        assert "demo" in [o.value for o in model.options], "the providers' models are offered"
        with pytest.raises(RequestError) as caught:
            await conn.set_config_option(config_id="model", session_id=session.session_id, value="nope:x")
        assert "nope" in str(caught.value)
        changed = await conn.set_config_option(config_id="model", session_id=session.session_id, value="demo")
        assert next(o for o in changed.config_options if o.id == "model").current_value == "demo"
        reply = await conn.prompt(session_id=session.session_id, prompt=prompt_text("hello"))
    assert reply.stop_reason == "end_turn"
    assert client.text() and "from the script" not in client.text()


@pytest.mark.parametrize("reason", ["Write b.txt instead, a.txt is mine.", None])
async def test_a_rejection_can_say_why_where_the_editor_has_forms(
    spawn: Spawn, script: Any, workspace: Path, reason: str | None
) -> None:
    from acp.schema import ElicitationCapabilities, ElicitationFormCapabilities

    forms = ClientCapabilities(elicitation=ElicitationCapabilities(form=ElicitationFormCapabilities()))
    client = EditorClient()
    client.answer = "reject_once"
    client.reason = reason
    async with spawn(client, "--model", script([WRITE, "ok"]), capabilities=forms) as conn:
        session = await conn.new_session(cwd=str(workspace), mcp_servers=[])
        await conn.prompt(session_id=session.session_id, prompt=prompt_text("write it"))
    [(message, mode)] = client.elicitations
    assert "write_file" in message and mode.tool_call_id == "w1"
    said = client.tool_updates("w1")[-1].content[0].content.text
    assert (reason or rejected_message("write_file")) in said
    assert not (workspace / "notes.txt").exists()
