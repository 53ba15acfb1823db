"""A tool-call id the model chose reaches the editor (``toolCallId``) only when it is
plain; one holding escape sequences, CR or BS is replaced by an id of the shell's own,
the same in every update of that call (editors that log or show ids printed it raw)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from acp.schema import TextContentBlock, ToolCallStart

from shell.core.textsafety import plain_id

from .conftest import EditorClient, Spawn

pytestmark = pytest.mark.anyio

HOSTILE_ID = "call\x1b[2J\x1b]0;PWNED\x07\x9b31m\r\b\b"


def test_plain_ids_are_kept_and_others_replaced_the_same_way_every_time() -> None:
    assert plain_id("call_abc-1.2:3") == "call_abc-1.2:3"
    mine = plain_id(HOSTILE_ID)
    assert mine.startswith("call_") and mine.isascii() and mine.isprintable()
    assert plain_id(HOSTILE_ID) == mine and plain_id(HOSTILE_ID + "x") != mine
    assert plain_id("x" * 129) != "x" * 129 and plain_id("") != ""


async def test_a_hostile_tool_call_id_never_reaches_the_editor(
    spawn: Spawn, script: Any, workspace: Path
) -> None:
    (workspace / "a.txt").write_text("hi\n")
    client = EditorClient()
    client.answer = "reject_once"
    turn = {"tool_calls": [
        {"name": "read_file", "args": {"path": "a.txt"}, "id": HOSTILE_ID},
        {"name": "write_file", "args": {"path": "b.txt", "content": "x"}, "id": HOSTILE_ID + "w"},
    ]}
    async with spawn(client, "--model", script([turn, "Done."])) as conn:
        session = await conn.new_session(cwd=str(workspace), mcp_servers=[])
        go = [TextContentBlock(type="text", text="go")]
        reply = await conn.prompt(session_id=session.session_id, prompt=go)
    assert reply.stop_reason == "end_turn"
    ids = {u.tool_call_id for u in client.tool_updates()}
    assert ids == {plain_id(HOSTILE_ID), plain_id(HOSTILE_ID + "w")}
    [(asked, _)] = client.permission_requests
    assert asked.tool_call_id == plain_id(HOSTILE_ID + "w")
    starts = [u for u in client.tool_updates() if isinstance(u, ToolCallStart)]
    assert len(starts) == 2
    assert client.tool_status(plain_id(HOSTILE_ID)) == "completed"
    assert client.tool_status(plain_id(HOSTILE_ID + "w")) == "failed"
