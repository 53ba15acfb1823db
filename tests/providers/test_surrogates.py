"""A lone surrogate (a hostile server's ``\\udc00``, a proxy that cut a UTF-16 pair, a
file name that is not UTF-8) must never brick a conversation: before, one such
character in a reply or a tool result made every later request raise
``UnicodeEncodeError``, and a session saved with it could not be continued."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from shell.agent import Agent
from shell.core.events import ErrorEvent, ModelCallEnd
from shell.core.messages import AssistantMessage, TextBlock, ToolCallBlock, ToolResultMessage, UserMessage
from shell.providers.openai import OpenAIModel
from shell.sessions.loader import load_session, resume

from ..helpers import collect, of
from ..sessions.util import header, msg, write
from .server import Handler, ScriptedServer

pytestmark = pytest.mark.anyio

# what a hostile server sends on the wire: JSON escapes of a valid pair and of a lone low surrogate
HOSTILE = b'data: {"choices":[{"index":0,"delta":{"content":"pair:\\ud800\\udfff lone:\\udc00 end"}}]}\n\n'
OK = b'data: {"choices":[{"index":0,"delta":{"content":"fine"}}]}\n\n'
END = b'data: {"choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}\n\ndata: [DONE]\n\n'


@pytest.fixture
def server() -> Iterator[ScriptedServer]:
    with ScriptedServer() as s:
        yield s


def record_bodies(server: ScriptedServer, first: bytes) -> list[bytes]:
    bodies: list[bytes] = []

    def scenario(h: Handler, n: int) -> None:
        bodies.append(h.body)
        h.start_stream()
        h.chunk(first if n == 0 else OK)
        h.chunk(END)
        h.end_stream()

    server.scenarios["s"] = scenario
    return bodies


def sent_text(body: bytes) -> str:
    return json.dumps(json.loads(body.decode("utf-8")), ensure_ascii=False)


async def test_a_lone_surrogate_in_a_reply_does_not_brick_the_next_message(server: ScriptedServer) -> None:
    bodies = record_bodies(server, HOSTILE)
    agent = Agent(OpenAIModel("m", base_url=f"{server.url}/s/v1", backoff=0.01))
    await collect(agent, "hi")
    kept = agent.messages[-1]
    assert isinstance(kept, AssistantMessage)
    # the pair kept as the character it encodes, the lone one U+FFFD
    assert kept.content == (TextBlock("pair:\U000103ff lone:\ufffd end"),)

    events = await collect(agent, "hello again")
    assert of(events, ErrorEvent) == []
    assert len(bodies) == 2
    assert "lone:\ufffd end" in sent_text(bodies[1])
    assert isinstance(agent.messages[-1], AssistantMessage)
    assert agent.messages[-1].content == (TextBlock("fine"),)


async def test_a_history_holding_lone_surrogates_is_still_sent(server: ScriptedServer) -> None:
    """A tool result naming a file that is not UTF-8 (``os.listdir`` gives ``\\udcff``), or a
    middleware's text: the request body is encoded with U+FFFD, never raises."""
    bodies = record_bodies(server, OK)
    agent = Agent(OpenAIModel("m", base_url=f"{server.url}/s/v1", backoff=0.01))
    agent.messages[:] = [
        UserMessage("list"),
        AssistantMessage((ToolCallBlock("c1", "list_dir", {"path": "."}),)),
        ToolResultMessage("c1", "list_dir", "name\udcff.txt  (1 B)"),
    ]
    events = await collect(agent, "and now?")
    assert of(events, ErrorEvent) == []
    assert of(events, ModelCallEnd)
    assert "name\ufffd.txt" in sent_text(bodies[0])


async def test_a_session_bricked_by_an_older_version_can_be_continued(
    server: ScriptedServer, tmp_path: Path
) -> None:
    bodies = record_bodies(server, OK)
    call = ToolCallBlock("c\ud800", "list_dir", {"path": "x\udc80"})
    lone = AssistantMessage((TextBlock("lone:\udc00"), call))
    path = write(tmp_path / "s.jsonl", [header(), msg(UserMessage("hi")), msg(lone),
                                        msg(ToolResultMessage("c\ud800", "list_dir", "ok"))])
    assert b"\\udc00" in path.read_bytes()  # what older versions stored
    loaded = load_session(path)
    assert not [p for p in loaded.problems if "skipped" in p]
    agent = Agent(OpenAIModel("m", base_url=f"{server.url}/s/v1", backoff=0.01))
    resume(agent, loaded)
    stored = agent.messages[1]
    assert isinstance(stored, AssistantMessage)
    assert stored.content[0] == TextBlock("lone:\ufffd")
    call, answer = stored.content[1], agent.messages[2]
    assert isinstance(call, ToolCallBlock) and isinstance(answer, ToolResultMessage)
    assert call.id == answer.call_id == "c\ufffd"  # the pairing survives
    assert call.args == {"path": "x\ufffd"}

    events = await collect(agent, "again")
    assert of(events, ErrorEvent) == []
    assert len(bodies) == 1


def test_arguments_that_are_null_are_called_what_they_are() -> None:
    """``null`` was reported as "nested more than 64 levels deep", steering a model into
    a useless retry with flatter arguments."""
    from shell.core.assembly import parse_args

    assert parse_args("null") == ({}, "The arguments must be a JSON object, not null")
    assert parse_args('{"path": "a\\udc00b"}') == ({"path": "a\ufffdb"}, None)
