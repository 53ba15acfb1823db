"""A server whose Content-Length lies (on a real HTTP server on 127.0.0.1): the
reply fails saying so, and the next request is answered on a connection of its own."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from .server import Handler, ScriptedServer
from .test_hostile_servers import END, TEXT, openai, run, text

pytestmark = pytest.mark.anyio


@pytest.fixture
def server() -> Iterator[ScriptedServer]:
    with ScriptedServer() as s:
        yield s


def said_less_than_it_sent(h: Handler, attempt: int) -> None:
    """First a stream whose Content-Length covers 20 of its bytes, then a good one."""
    body = TEXT + END
    h.send_response(200)
    h.send_header("Content-Type", "text/event-stream")
    h.send_header("Content-Length", "20" if attempt == 0 else str(len(body)))
    h.end_headers()
    h.wfile.write(body)
    h.wfile.flush()


def said_more_than_it_sent(h: Handler, attempt: int) -> None:
    h.send_response(200)
    h.send_header("Content-Type", "text/event-stream")
    h.send_header("Content-Length", "100000")
    h.end_headers()
    h.wfile.write(TEXT)
    h.wfile.flush()
    h.close_connection = True


async def test_bytes_past_the_content_length_do_not_answer_the_next_request(server: ScriptedServer) -> None:
    """They stayed in the connection's buffer and the next request read them as its
    answer: "closed it without answering (illegal status line …)"."""
    server.scenarios["short"] = said_less_than_it_sent
    model = openai(server, "short")
    chunks, error = await run(model)
    assert error is not None and "sent a line that is not valid JSON" in str(error)
    chunks, error = await run(model)
    assert error is None, error
    assert text(chunks) == "Hello"


async def test_a_body_shorter_than_its_content_length_keeps_the_text(server: ScriptedServer) -> None:
    server.scenarios["long"] = said_more_than_it_sent
    chunks, error = await run(openai(server, "long"))
    assert text(chunks) == "Hello"
    assert error is not None and str(error) == (
        "The connection to OpenAI dropped in the middle of the reply; the text so far is kept. Try again.")
