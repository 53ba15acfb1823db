"""A resumed session (--continue) reads a cancelled reply as the live one did (Y9):
the cut answer kept as shown and sent with the note that it was interrupted; a
request withdrawn by Esc before any answer is not in it."""

from __future__ import annotations

from pathlib import Path

import anyio
import pytest

from shell.agent import Agent
from shell.config import Settings
from shell.core.events import TextBlockDelta
from shell.core.messages import AssistantMessage, UserMessage
from shell.core.partial import CUT_NOTES
from shell.providers.openai import to_openai_messages
from shell.providers.scripted import ScriptedModel
from shell.runtime import RuntimeOptions, ShellRuntime
from shell.sessions import SessionRecorder, SessionStore, load_session
from shell.sessions.redact import NO_REDACTION

pytestmark = pytest.mark.anyio


async def test_a_resumed_session_sends_the_cut_answer_with_its_note_and_not_the_withdrawn_request(
    store: SessionStore,
) -> None:
    model = ScriptedModel(["one two three four five six seven", "later"], delay=0, chunk_size=4)
    agent = Agent(model)
    rec = SessionRecorder(store, agent, redactor=NO_REDACTION)
    with rec:
        seen = ""
        async for event in rec.record(agent.reply("count")):
            if isinstance(event, TextBlockDelta):
                seen += event.delta
                if "three" in seen:
                    agent.cancel()
        model.delay = 60  # the next request: the model says nothing before Esc

        async def esc() -> None:
            while len(model.requests) < 2:  # noqa: ASYNC110 (the model has the request)
                await anyio.sleep(0.01)
            agent.cancel()

        async with anyio.create_task_group() as tg:
            tg.start_soon(esc)
            async for _ in rec.record(agent.reply("delete the logs")):
                pass
    loaded = load_session(rec.path)
    assert [m.text for m in loaded.messages if isinstance(m, UserMessage)] == ["count"]
    resumed_model = ScriptedModel(["ok"])
    resumed = Agent(resumed_model)
    resumed.messages.extend(loaded.messages)
    async for _ in resumed.reply("go on"):
        pass
    sent = to_openai_messages(resumed_model.requests[-1])
    assert [m["content"] for m in sent if m["role"] == "user"] == ["count", "go on"]
    said = [m["content"] for m in sent if m["role"] == "assistant"]
    assert said == [seen + "\n\n" + CUT_NOTES["cancelled"]]
    cut = loaded.messages[1]
    assert isinstance(cut, AssistantMessage) and cut.text == seen  # the file keeps what was shown


async def test_through_the_runtime_the_withdrawn_turn_leaves_rewind_and_the_session(
    store: SessionStore, tmp_path: Path
) -> None:
    model = ScriptedModel(["Hello there.", "The logs...", "Noon."], delay=0, chunk_size=1000)
    settings = Settings(path=tmp_path / "none.toml")
    rt = ShellRuntime.create(RuntimeOptions(cwd=str(tmp_path)), settings=settings, model=model)
    async for _ in rt.reply("Say hello."):
        pass
    model.delay = 60

    async def esc() -> None:
        while len(model.requests) < 2:  # noqa: ASYNC110 (the model has the request, silent)
            await anyio.sleep(0.01)
        rt.cancel()

    async with anyio.create_task_group() as tg:
        tg.start_soon(esc)
        async for _ in rt.reply("delete the logs"):
            pass
    model.delay = 0
    async for _ in rt.reply("What time is it?"):
        pass
    assert [m.text for m in model.requests[-1].messages] == ["Say hello.", "Hello there.", "What time is it?"]
    checkpoints = rt.checkpoints
    assert checkpoints is not None  # /rewind lists the turns still in the conversation
    assert [t.text for t in checkpoints.turns()] == ["Say hello.", "What time is it?"]
    recorder = rt.session_recorder
    assert recorder is not None
    recorder.close()
    loaded = load_session(recorder.path)  # what --continue reads
    said = [m.text for m in loaded.messages if isinstance(m, UserMessage)]
    assert said == ["Say hello.", "What time is it?"]
