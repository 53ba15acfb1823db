"""The line mode's and the TUI's "the rest of this reply" answers (Y, N), offered to an
editor as permission options: ``allow_rest`` approves the call and the later calls of
the same reply to the same tool that ask the same routine question (each still judged
by the policy first); ``reject_rest`` refuses the call and every call after it."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from acp.schema import TextContentBlock

from .conftest import EditorClient, Spawn

pytestmark = pytest.mark.anyio


def writes(*paths: str) -> dict[str, Any]:
    return {"tool_calls": [{"name": "write_file", "args": {"path": p, "content": "x"}, "id": f"w{i}"}
                           for i, p in enumerate(paths, 1)]}


def prompt(text: str) -> list[TextContentBlock]:
    return [TextContentBlock(type="text", text=text)]


async def test_allow_rest_approves_the_later_calls_of_the_reply(
    spawn: Spawn, script: Any, workspace: Path
) -> None:
    (workspace / ".git" / "hooks").mkdir(parents=True)
    client = EditorClient()
    client.answer = lambda call: "allow_rest" if call.tool_call_id == "w1" else "reject_once"
    turns = [writes("a.txt", "b.txt", ".git/hooks/pre-commit", "c.txt"), "Done.", writes("d.txt"), "Again."]
    async with spawn(client, "--model", script(turns)) as conn:
        session = await conn.new_session(cwd=str(workspace), mcp_servers=[])
        await conn.prompt(session_id=session.session_id, prompt=prompt("write"))
        await conn.prompt(session_id=session.session_id, prompt=prompt("more"))
    first_call, first_options = client.permission_requests[0]
    assert first_call.tool_call_id == "w1"
    offered = {o.option_id: (o.name, o.kind) for o in first_options}
    assert offered["allow_rest"] == ("Allow this and the 3 later write_file calls listed with it",
                                     "allow_always")
    assert offered["reject_rest"] == ("Reject this and the 3 calls after it in this reply", "reject_always")
    shown = "".join(getattr(getattr(c, "content", None), "text", "") for c in first_call.content or ())
    for place, path in ((2, "b.txt"), (3, ".git/hooks/pre-commit"), (4, "c.txt")):  # what allow_rest covers
        assert f"call {place} of 4: write_file" in shown and f"path: {path}" in shown, shown
    asked = [call.tool_call_id for call, _ in client.permission_requests]
    # the hook runs later (asked alone); the next reply asks again, its repeated id made unique (T8)
    assert asked == ["w1", "w3", "w1_1"]
    assert all((workspace / n).exists() for n in ("a.txt", "b.txt", "c.txt"))
    assert not (workspace / ".git" / "hooks" / "pre-commit").exists()
    assert not (workspace / "d.txt").exists()


async def test_reject_rest_refuses_the_call_and_every_one_after_it(
    spawn: Spawn, script: Any, workspace: Path
) -> None:
    client = EditorClient()
    client.answer = "reject_rest"
    async with spawn(client, "--model", script([writes("a.txt", "b.txt", "c.txt"), "Understood."])) as conn:
        session = await conn.new_session(cwd=str(workspace), mcp_servers=[])
        await conn.prompt(session_id=session.session_id, prompt=prompt("write"))
    assert [call.tool_call_id for call, _ in client.permission_requests] == ["w1"]
    assert not any((workspace / n).exists() for n in ("a.txt", "b.txt", "c.txt"))
    for call_id in ("w1", "w2", "w3"):
        assert client.tool_status(call_id) == "failed"
    said = client.tool_updates("w3")[-1].content[0].content.text
    assert "rejected the rest of the tool calls" in said, said


async def test_a_lone_call_gets_no_rest_options(spawn: Spawn, script: Any, workspace: Path) -> None:
    client = EditorClient()
    async with spawn(client, "--model", script([writes("a.txt"), "Done."])) as conn:
        session = await conn.new_session(cwd=str(workspace), mcp_servers=[])
        await conn.prompt(session_id=session.session_id, prompt=prompt("write"))
    [(_, options)] = client.permission_requests
    assert [o.option_id for o in options] == ["allow_once", "allow_always", "reject_once", "reject_always"]
