"""A message that does not fit the model's context is taken back out (finding G11), and one
whose model call failed any other way before an answer (finding B2).

llama.cpp answers a prompt longer than its context with an empty stream, hosted APIs
with a 400 that says so. The message stayed in the history and in the session, so
every later message (and every ``--continue``) failed the same way."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from shell.agent import AssistantMessage, ToolCallBlock, tool
from shell.agent.loop import Agent
from shell.config import Settings
from shell.core.events import ErrorEvent, ReplyEnd
from shell.core.model import ModelError
from shell.providers.scripted import ScriptedModel
from shell.runtime import RuntimeOptions, ShellRuntime
from shell.sessions import SessionStore, load_session

pytestmark = pytest.mark.anyio

OVERFLOW = ModelError("llama says the conversation does not fit the model's context window (HTTP 400).",
                      status=400, provider="llama", context_overflow=True)
BIG = "summarise this: " + "word " * 3000


def runtime(cwd: Path, model: ScriptedModel) -> ShellRuntime:
    return ShellRuntime.create(RuntimeOptions(cwd=str(cwd)), settings=Settings(path=cwd / "none.toml"),
                               model=model)


async def events_of(rt: ShellRuntime | Agent, text: str) -> list[Any]:
    return [event async for event in rt.reply(text)]


async def test_the_message_that_overflowed_leaves_the_history_and_later_ones_work(
    store: SessionStore, tmp_path: Path
) -> None:
    model = ScriptedModel(["Hello there.", OVERFLOW, "You said hello first."])
    rt = runtime(tmp_path, model)
    await events_of(rt, "Say hello.")
    failed = await events_of(rt, BIG)
    error = next(e for e in failed if isinstance(e, ErrorEvent))
    assert [m.text for m in error.withdrawn] == [BIG]
    assert error.error.startswith("llama says the conversation does not fit")
    assert "taken back out of the conversation" in error.error and "shorten it or attach less" in error.error
    assert failed[-1].stop_reason == "error"
    assert [m.text for m in rt.agent.messages] == ["Say hello.", "Hello there."]

    await events_of(rt, "What did I say first?")
    sent = [m.text for m in model.requests[-1].messages]
    assert sent == ["Say hello.", "Hello there.", "What did I say first?"]  # the big one is not sent again
    checkpoints = rt.checkpoints
    assert checkpoints is not None  # /rewind lists the turns still in the conversation
    assert [t.text for t in checkpoints.turns()] == ["Say hello.", "What did I say first?"]
    path = rt.session_recorder.path  # type: ignore[union-attr]
    rt.session_recorder.close()  # type: ignore[union-attr]

    loaded = load_session(path)  # what --continue reads
    assert [m.text for m in loaded.messages] == ["Say hello.", "Hello there.", "What did I say first?",
                                                 "You said hello first."]
    records = [json.loads(line) for line in path.read_text().splitlines()]
    rewind = next(r for r in records if r["kind"] == "rewind")
    # the rewind starts where the big message was written: the search index forgets it
    assert path.read_bytes()[rewind["to"]:].startswith(b'{"kind":"message"')
    assert BIG in path.read_bytes()[rewind["to"]:].split(b"\n")[0].decode()


async def test_an_overflow_after_tool_results_keeps_the_message() -> None:
    """Once the model has answered, the message alone is not what overflowed."""

    @tool(read_only=True)
    def look() -> str:
        """Look."""
        return "seen " * 100

    turn = AssistantMessage((ToolCallBlock("c1", "look", {}),))
    agent = Agent(ScriptedModel([turn, OVERFLOW]), tools=[look])
    events = await events_of(agent, "look around")
    error = next(e for e in events if isinstance(e, ErrorEvent))
    assert error.withdrawn == () and "taken back" not in error.error
    assert agent.messages[0].text == "look around" and len(agent.messages) == 3


REFUSED = ModelError("Could not connect to http://127.0.0.1:9/v1. Is the server running?",
                     retryable=True, provider="llama")


async def test_a_failed_call_takes_the_message_back_and_the_next_one_goes_alone(
    store: SessionStore, tmp_path: Path
) -> None:
    """Finding B2: kept, "delete the logs" went out glued to the next message
    ("delete the logs\n\nwhat time is it?") in the request and in --continue."""
    model = ScriptedModel(["Hello there.", REFUSED, "It is noon."])
    rt = runtime(tmp_path, model)
    await events_of(rt, "Say hello.")
    failed = await events_of(rt, "delete the logs")
    error = next(e for e in failed if isinstance(e, ErrorEvent))
    assert [m.text for m in error.withdrawn] == ["delete the logs"]
    assert error.error.startswith("Could not connect") and "taken back out of the conversation" in error.error
    assert "shorten it" not in error.error  # not an overflow: nothing to shorten
    assert failed[-1].stop_reason == "error"
    assert [m.text for m in rt.agent.messages] == ["Say hello.", "Hello there."]

    await events_of(rt, "what time is it?")
    assert [m.text for m in model.requests[-1].messages] == ["Say hello.", "Hello there.", "what time is it?"]
    checkpoints = rt.checkpoints
    assert checkpoints is not None
    assert [t.text for t in checkpoints.turns()] == ["Say hello.", "what time is it?"]
    path = rt.session_recorder.path  # type: ignore[union-attr]
    rt.session_recorder.close()  # type: ignore[union-attr]
    loaded = load_session(path)  # what --continue sends
    assert [m.text for m in loaded.messages] == ["Say hello.", "Hello there.", "what time is it?",
                                                 "It is noon."]


async def test_a_fallback_that_answers_keeps_the_message() -> None:
    """Only the failure that ends the reply takes the message back."""
    from middleware.model_fallback import ModelFallback

    agent = Agent(ScriptedModel([REFUSED]), middleware=[ModelFallback(ScriptedModel(["From the backup."]))])
    events = await events_of(agent, "hi")
    assert not any(isinstance(e, ErrorEvent) for e in events)
    assert isinstance(events[-1], ReplyEnd) and events[-1].withdrawn == ()
    assert [m.text for m in agent.messages] == ["hi", "From the backup."]


async def test_a_failure_after_part_of_an_answer_keeps_the_message() -> None:
    """The model did answer (the cut text is kept): the message was not left unanswered."""
    from shell.core.model import ModelRequest, TextDelta

    class BreaksMidStream:
        name = "flaky"

        async def stream(self, request: ModelRequest) -> Any:
            yield TextDelta("Deleting ")
            raise ModelError("the connection dropped")

    agent = Agent(BreaksMidStream())  # type: ignore[arg-type]
    events = await events_of(agent, "delete the logs")
    error = next(e for e in events if isinstance(e, ErrorEvent))
    assert error.withdrawn == () and "taken back" not in error.error
    assert [m.text for m in agent.messages[:1]] == ["delete the logs"] and len(agent.messages) == 2
