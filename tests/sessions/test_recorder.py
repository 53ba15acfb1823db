"""The recorder writes as the reply happens: messages at once, text in flight as checkpoints."""

from __future__ import annotations

import json
import os
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import anyio
import pytest

from middleware.base import Middleware
from shell.agent import Agent, AssistantMessage, TextBlock, ToolCallBlock
from shell.core.events import Notice, ReplyEnd, TextBlockDelta
from shell.core.messages import Message, ToolResultMessage, UserMessage
from shell.core.model import ModelChunk, ModelRequest, StopChunk, TextDelta
from shell.core.tools import ToolContext, tool
from shell.providers.scripted import ScriptedModel
from shell.sessions import (
    FORMAT_VERSION,
    INTERRUPTED_RESULT,
    LoadedSession,
    SessionRecorder,
    SessionStore,
    export_markdown,
    load_session,
    resume,
)
from shell.sessions.redact import NO_REDACTION
from tests.helpers import history_is_valid


@tool
async def add(x: int, y: int) -> int:
    """Add two numbers."""
    return x + y


@tool
async def slow(seconds: float) -> str:
    """Sleep."""
    await anyio.sleep(seconds)
    return "slept"


def records(path: Path) -> list[dict[str, Any]]:
    out = []
    for line in path.read_bytes().splitlines():
        try:
            out.append(json.loads(line))
        except ValueError:
            continue  # a torn line a test wrote on purpose
    return out


def kinds(path: Path) -> list[str]:
    return [r["kind"] for r in records(path)]


def recorder(store: SessionStore, agent: Agent, **kw: Any) -> SessionRecorder:
    kw.setdefault("redactor", NO_REDACTION)
    return SessionRecorder(store, agent, **kw)


async def saved_once(rec: SessionRecorder, ready: Callable[[LoadedSession], bool]) -> LoadedSession:
    """The session as on disk (as if the process died now) once ``ready`` holds for it:
    a checkpoint is due every interval, and a fixed pause was outlasted by a busy machine."""
    with anyio.fail_after(30):
        while True:
            if rec.path.exists():
                loaded = load_session(rec.path)
                if ready(loaded):
                    return loaded
            await anyio.sleep(0.02)


def _last_text(loaded: LoadedSession) -> str:
    last = loaded.messages[-1] if loaded.messages else None
    return last.text if isinstance(last, AssistantMessage) else ""


async def run(rec: SessionRecorder, agent: Agent, text: str,
              each: Callable[[Any], Any] | None = None) -> list[Any]:
    out = []
    async for event in rec.record(agent.reply(text)):
        out.append(event)
        if each is not None:
            result = each(event)
            if hasattr(result, "__await__"):
                await result
    return out


@pytest.mark.anyio
async def test_a_reply_with_tools_is_recorded_message_by_message(store: SessionStore) -> None:
    agent = Agent(ScriptedModel([
        AssistantMessage((TextBlock("adding"), ToolCallBlock("c1", "add", {"x": 1, "y": 2}))), "3",
    ]), tools=[add])
    with recorder(store, agent, model="test-model", cwd="/somewhere") as rec:
        await run(rec, agent, "add 1 and 2")
    # a tool result may land before it is seen; a checkpoint saves each finished block
    # that is shown before its message lands in the history
    main = [k for k in kinds(rec.path) if k not in ("tool_result", "checkpoint")]
    assert main == ["header", "message", "message", "results_landed", "message", "reply_end"]
    head = records(rec.path)[0]
    assert head["version"] == FORMAT_VERSION and head["id"] == rec.session_id
    assert head["model"] == "test-model" and head["cwd"] == "/somewhere"
    loaded = load_session(rec.path)
    assert loaded.messages == agent.messages and not loaded.problems and not loaded.interrupted


@pytest.mark.anyio
async def test_each_message_is_on_disk_when_the_next_event_is_shown(store: SessionStore) -> None:
    agent = Agent(ScriptedModel([
        AssistantMessage((ToolCallBlock("c1", "add", {"x": 1, "y": 2}),)), "three",
    ]), tools=[add])
    seen: list[tuple[str, int]] = []

    def check(event: Any) -> None:
        on_disk = load_session(rec.path).stored
        # everything the history holds is in the file before the event is shown
        assert list(on_disk) == agent.messages
        seen.append((type(event).__name__, len(on_disk)))

    with recorder(store, agent) as rec:
        await run(rec, agent, "go", check)
    assert seen[0][0] == "ReplyStart" and seen[0][1] >= 1


class Stalling:
    """Streams ``text`` and then hangs until cancelled (a stalled connection)."""

    name = "stalling"

    def __init__(self, text: str) -> None:
        self.text = text

    async def stream(self, request: ModelRequest) -> AsyncIterator[ModelChunk]:
        for ch in self.text:
            yield TextDelta(ch)
        await anyio.sleep_forever()
        yield StopChunk("end_turn")


@pytest.mark.anyio
async def test_text_in_flight_is_checkpointed_even_when_the_stream_stalls(store: SessionStore) -> None:
    agent = Agent(Stalling("partial answer"))
    rec = recorder(store, agent, checkpoint_interval=0.05)
    shown: list[str] = []

    async def consume() -> None:
        async for event in rec.record(agent.reply("hi")):
            if isinstance(event, TextBlockDelta):
                shown.append(event.delta)

    async with anyio.create_task_group() as tg:
        tg.start_soon(consume)
        loaded = await saved_once(rec, lambda saved: _last_text(saved) == "partial answer")
        agent.cancel()
    assert "".join(shown) == "partial answer"
    assert loaded.interrupted
    last = loaded.messages[-1]
    assert isinstance(last, AssistantMessage) and last.stop_reason == "interrupted"
    assert last.text == "partial answer"
    rec.close()
    final = load_session(rec.path)  # the cancel landed the partial message; no checkpoint duplicate
    assert final.messages == agent.messages and not final.interrupted
    assert history_is_valid(final.messages)
    assert sum(isinstance(m, AssistantMessage) for m in final.messages) == 1


@pytest.mark.anyio
async def test_checkpoints_follow_a_slow_stream_and_the_final_message_replaces_them(
    store: SessionStore,
) -> None:
    text = "word " * 40
    agent = Agent(ScriptedModel([text], delay=0.005, chunk_size=2))
    rec = recorder(store, agent, checkpoint_interval=0.05)
    lags: list[int] = []
    shown = ""

    def check(event: Any) -> None:
        nonlocal shown
        if isinstance(event, TextBlockDelta):
            shown += event.delta
            loaded = load_session(rec.path)
            partial = loaded.messages[-1]
            saved = partial.text if isinstance(partial, AssistantMessage) else ""
            assert shown.startswith(saved)
            lags.append(len(shown) - len(saved))

    with rec:
        await run(rec, agent, "talk", check)
    # 2 characters every 5 ms, a checkpoint every 50 ms: never more than ~20 characters behind
    assert max(lags) <= 40, lags
    assert kinds(rec.path).count("checkpoint") >= 3
    loaded = load_session(rec.path)
    assert loaded.messages == agent.messages and not loaded.interrupted
    written = kinds(rec.path)
    assert written.index("checkpoint") < len(written) - 1 - written[::-1].index("message")


@pytest.mark.anyio
async def test_a_cancelled_reply_is_recorded_valid(store: SessionStore) -> None:
    agent = Agent(ScriptedModel([
        AssistantMessage((TextBlock("running"), ToolCallBlock("c1", "slow", {"seconds": 5}))),
    ]), tools=[slow])
    with recorder(store, agent) as rec:
        async def cancel_on_start(event: Any) -> None:
            if type(event).__name__ == "ToolExecutionStart":
                agent.cancel()
        events = await run(rec, agent, "go", cancel_on_start)
    assert isinstance(events[-1], ReplyEnd) and events[-1].stop_reason == "cancelled"
    loaded = load_session(rec.path)
    assert loaded.messages == agent.messages and history_is_valid(loaded.messages)
    assert records(rec.path)[-1]["stop_reason"] == "cancelled"


@pytest.mark.anyio
@pytest.mark.parametrize("at", ["TextBlockDelta", "ToolExecutionStart"])
async def test_a_resumed_session_says_where_a_reply_was_cancelled(store: SessionStore, at: str) -> None:
    """Esc showed "Reply cancelled." under the cut-off text; after --continue the
    partial text read as a complete answer. The session keeps the cancel (the partial
    message's stop reason, the calls' cancelled results) and the resumed view says it."""
    from shell.tui.entries import AssistantEntry, NoticeEntry
    from shell.tui.history import entries_from_messages

    long = "words " * 400
    first = AssistantMessage((TextBlock(long), ToolCallBlock("c1", "slow", {"seconds": 5})))
    agent = Agent(ScriptedModel([first, "Fine."], delay=0.001, chunk_size=8), tools=[slow])
    with recorder(store, agent) as rec:
        async def cancel(event: Any) -> None:
            if type(event).__name__ == at:
                agent.cancel()
        events = await run(rec, agent, "go", cancel)
        await run(rec, agent, "again")  # a later reply that is not cancelled
    assert isinstance(events[-1], ReplyEnd) and events[-1].stop_reason == "cancelled"
    loaded = load_session(rec.path)
    entries = entries_from_messages(loaded.messages, loaded.outcomes)
    said = "Reply cancelled."
    notices = [i for i, e in enumerate(entries) if isinstance(e, NoticeEntry) and e.text == said]
    answers = [i for i, e in enumerate(entries) if isinstance(e, AssistantEntry)]
    assert len(notices) == 1 and answers[0] < notices[0] < answers[-1]


class Remember(Middleware):
    async def on_reply(self, ctx: Any, request: Any, next: Any) -> AsyncIterator[Any]:
        ctx.session_state["count"] = ctx.session_state.get("count", 0) + 1
        async for event in next(request):
            yield event


@pytest.mark.anyio
async def test_session_state_is_written_when_it_changes_and_resumed(store: SessionStore) -> None:
    agent = Agent(ScriptedModel(["a", "b"]), middleware=[Remember()])
    with recorder(store, agent) as rec:
        await run(rec, agent, "one")
        await run(rec, agent, "two")
    assert kinds(rec.path).count("state") == 2
    loaded = load_session(rec.path)
    assert loaded.session_state == {"Remember": {"count": 2}}
    fresh = Agent(ScriptedModel(["c"]), middleware=[Remember()])
    resume(fresh, loaded)
    assert fresh.messages == agent.messages and fresh.session_state == {"Remember": {"count": 2}}


class Careless(Middleware):
    async def on_reply(self, ctx: Any, request: Any, next: Any) -> AsyncIterator[Any]:
        ctx.session_state.update(n=1, bad={1, 2, 3}, key="sk-proj-abcdefghijklmnopqrstuvwxyz012345")
        async for event in next(request):
            yield event


@pytest.mark.anyio
async def test_session_state_that_will_not_come_back_as_it_is_is_said_once(store: SessionStore) -> None:
    """A set came back a str, a secret came back [REDACTED], silently (finding V8):
    the middleware's author is told, once a key, before the reply ends."""
    from shell.sessions.redact import Redactor

    agent = Agent(ScriptedModel(["a", "b"]), middleware=[Careless()])
    with recorder(store, agent, redactor=Redactor.from_environment(environ={})) as rec:
        first = await run(rec, agent, "one")
        second = await run(rec, agent, "two")
    told = [e for e in first if isinstance(e, Notice)]
    assert [(n.level, n.source) for n in told] == [("warning", "Careless")] * 2
    assert "ctx.session_state['bad'] holds a set, which is not JSON" in told[0].text
    assert "ctx.session_state['key'] holds something that looks like a secret" in told[1].text
    assert "sk-proj" not in told[1].text
    assert isinstance(first[-1], ReplyEnd) and first.index(told[1]) < len(first) - 1
    assert not [e for e in second if isinstance(e, Notice)]
    assert load_session(rec.path).session_state["Careless"]["n"] == 1


class Summarize(Middleware):
    """Replaces everything before the last user message by one summary message."""

    async def on_compress_context(self, ctx: Any, request: Any, next: Any) -> list[Message]:
        history = list(await next(request))
        if len(history) > 2:
            return [UserMessage("summary"), history[-1]]
        return history


@pytest.mark.anyio
async def test_a_rewritten_history_is_written_whole(store: SessionStore) -> None:
    agent = Agent(ScriptedModel(["a", "b", "c"]), middleware=[Summarize()])
    with recorder(store, agent) as rec:
        for text in ("one", "two", "three"):
            await run(rec, agent, text)
    assert "history" in kinds(rec.path)
    loaded = load_session(rec.path)
    assert loaded.messages == agent.messages
    assert loaded.messages[0] == UserMessage("summary")


@pytest.mark.anyio
async def test_resume_appends_to_the_same_file(store: SessionStore) -> None:
    agent = Agent(ScriptedModel(["a"]))
    with recorder(store, agent) as rec:
        await run(rec, agent, "one")
    loaded = load_session(rec.path)
    again = Agent(ScriptedModel(["b"]))
    resume(again, loaded)
    with SessionRecorder.resume(store, again, loaded, redactor=NO_REDACTION) as rec2:
        await run(rec2, again, "two")
    assert rec2.path == rec.path
    assert kinds(rec.path).count("header") == 1
    assert load_session(rec.path).messages == again.messages
    assert [m.text for m in again.messages] == ["one", "a", "two", "b"]  # type: ignore[union-attr]


@pytest.mark.anyio
async def test_resuming_an_interrupted_session_writes_its_repair(store: SessionStore) -> None:
    path = store.ensure() / "cut.jsonl"
    from .util import header, msg, write

    write(path, [
        header("cut"), msg(UserMessage("go")),
        msg(AssistantMessage((TextBlock("on it"), ToolCallBlock("c1", "add", {"x": 1, "y": 1})))),
        '{"kind":"checkpo',
    ])
    loaded = load_session(path)
    assert loaded.interrupted and history_is_valid(loaded.messages)
    agent = Agent(ScriptedModel(["done"]), tools=[add])
    resume(agent, loaded)
    with SessionRecorder.resume(store, agent, loaded, redactor=NO_REDACTION) as rec:
        # the call's "interrupted" result, the marker, and the call's outcome (it reads
        # "interrupted" once its result is in the file, not "error")
        assert kinds(path)[-3:] == ["message", "interrupted", "outcome"]
        await run(rec, agent, "continue")
    again = load_session(path)
    assert again.messages == agent.messages and not again.interrupted
    assert history_is_valid(again.messages)
    assert again.skipped_lines == 1  # the torn line stays (now closed by a newline), still reported


@pytest.mark.anyio
async def test_nothing_is_written_before_the_first_event(store: SessionStore) -> None:
    agent = Agent(ScriptedModel(["a"]))
    rec = recorder(store, agent)
    rec.close()
    assert not rec.path.exists() and not rec.started


@pytest.mark.anyio
async def test_a_full_disk_is_said_once_loses_nothing_and_saving_resumes(
    store: SessionStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    agent = Agent(ScriptedModel(["one", "two", "three"]))
    rec = recorder(store, agent, retry_s=0.0)
    real_write = os.write
    full = True

    def write(fd: int, data: Any) -> int:
        if full and fd == rec.file.fd:
            real_write(fd, bytes(data)[:5])  # a record cut off midway, then the error
            raise OSError(28, "No space left on device")
        return real_write(fd, data)

    rec.open()
    monkeypatch.setattr(os, "write", write)
    first = await run(rec, agent, "hi")
    second = await run(rec, agent, "again")
    notices = [e for e in first + second if isinstance(e, Notice)]
    assert [(n.level, n.source) for n in notices] == [("error", "session")]  # said once
    assert notices[0].text.startswith("The session could not be saved: the disk is full (")
    assert "Nothing is lost" in notices[0].text
    assert isinstance(first[-1], ReplyEnd) and first[-1].stop_reason == "end_turn"
    assert isinstance(second[-1], ReplyEnd) and second[-1].stop_reason == "end_turn"
    assert rec.error is not None and rec.failures == 1

    full = False  # space returns
    third = await run(rec, agent, "and now?")
    rec.close()
    assert [n.text.split(":")[0] for n in third if isinstance(n, Notice)] == ["Saving works again"]
    assert rec.error is None
    loaded = load_session(rec.path)
    assert loaded.messages == agent.messages and len(agent.messages) == 6  # nothing lost
    assert not loaded.problems  # no torn line: the cut-off records were truncated away


@pytest.mark.anyio
async def test_a_message_that_cannot_be_encoded_does_not_stop_later_saves(store: SessionStore) -> None:
    deep: Any = "bottom"
    for _ in range(600):  # deeper than the redactor's recursion could go; a model can send it
        deep = {"d": deep}
    agent = Agent(ScriptedModel([
        AssistantMessage((TextBlock("lone \ud800 surrogate"), ToolCallBlock("c1", "nowhere", {"x": deep}))),
        "after",
    ]))
    with recorder(store, agent) as rec:
        events = await run(rec, agent, "go \ud800")
    assert not [e for e in events if isinstance(e, Notice)] and rec.error is None
    loaded = load_session(rec.path)
    assert not loaded.problems
    assert [type(m).__name__ for m in loaded.messages] == [type(m).__name__ for m in agent.messages]
    # a lone surrogate is read back as U+FFFD (kept as it was, every later request of the
    # resumed session raised UnicodeEncodeError); the model's text had it replaced already
    assert loaded.messages[0] == UserMessage("go \ufffd")
    assert loaded.messages[1].text == "lone \ufffd surrogate"
    # Arguments that deep are read as an argument error (shell.core.assembly.MAX_ARGS_DEPTH),
    # never kept as arguments: the call and its error result are saved, and what follows.
    call = loaded.messages[1].tool_calls[0]  # type: ignore[union-attr]
    assert call.args == {}
    result = loaded.messages[2]
    assert isinstance(result, ToolResultMessage) and result.is_error and "levels deep" in result.text
    assert loaded.messages[-1].text == "after"


@pytest.mark.anyio
async def test_observe_is_the_same_as_record(store: SessionStore) -> None:
    agent = Agent(ScriptedModel(["hello"]))
    with recorder(store, agent) as rec:
        async for event in agent.reply("hi"):
            rec.observe(event)
    assert load_session(rec.path).messages == agent.messages


@pytest.mark.anyio
async def test_a_torn_tail_does_not_swallow_the_next_record(store: SessionStore) -> None:
    agent = Agent(ScriptedModel(["a", "b"]))
    with recorder(store, agent) as rec:
        await run(rec, agent, "one")
    with rec.path.open("ab") as f:
        f.write(b'{"kind":"message","mess')
    loaded = load_session(rec.path)
    other = Agent(ScriptedModel(["b"]))
    resume(other, loaded)
    with SessionRecorder.resume(store, other, loaded, redactor=NO_REDACTION) as rec2:
        await run(rec2, other, "two")
    assert load_session(rec.path).messages == other.messages


@pytest.mark.anyio
async def test_closing_after_the_history_was_cleared_keeps_the_session(store: SessionStore) -> None:
    agent = Agent(ScriptedModel(["a"]), middleware=[Remember()])
    rec = recorder(store, agent)
    await run(rec, agent, "one")
    agent.messages.clear()  # /clear: a new conversation, before the runtime closes the recorder
    agent.session_state.clear()
    rec.close()
    loaded = load_session(rec.path)
    assert [m.text for m in loaded.messages] == ["one", "a"]  # type: ignore[union-attr]
    assert loaded.session_state == {"Remember": {"count": 1}}



@tool
async def chatty(ctx: ToolContext) -> str:
    """Prints three lines, then hangs (a command that never ends)."""
    for i in range(3):
        ctx.report(f"line {i}\n")
        await anyio.sleep(0.01)
    await anyio.sleep_forever()
    return "never"


@pytest.mark.anyio
async def test_the_output_of_a_running_tool_survives_a_crash(store: SessionStore) -> None:
    agent = Agent(ScriptedModel([
        # c2 first: calls that change things run in the model's order, one at a time
        AssistantMessage((ToolCallBlock("c2", "add", {"x": 1, "y": 1}), ToolCallBlock("c1", "chatty", {}))),
    ]), tools=[chatty, add])
    rec = recorder(store, agent, checkpoint_interval=0.02)
    async with anyio.create_task_group() as tg:
        async def consume() -> None:
            async for _ in rec.record(agent.reply("go")):
                pass
        tg.start_soon(consume)

        def all_lines_saved(saved: LoadedSession) -> bool:
            return any(isinstance(m, ToolResultMessage) and m.call_id == "c1" and m.text.endswith("line 2\n")
                       for m in saved.messages)

        loaded = await saved_once(rec, all_lines_saved)
        agent.cancel()
    rec.close()
    results = {m.call_id: m for m in loaded.messages if isinstance(m, ToolResultMessage)}
    assert results["c2"].text == "2" and not results["c2"].is_error  # finished: kept as it was
    assert results["c1"].is_error and results["c1"].text.startswith(INTERRUPTED_RESULT)
    assert results["c1"].text.endswith("line 0\nline 1\nline 2\n")
    assert history_is_valid(loaded.messages)


@tool
async def shout(word: str) -> str:
    """Say a word loudly."""
    return f"{word.upper()}-RESULT"


def _results_in(path: Path, needle: str) -> int:
    return path.read_text().count(needle)


@pytest.mark.anyio
async def test_a_tool_result_is_written_once_and_reads_back_once(store: SessionStore) -> None:
    """A finished call's result goes to the file as it is shown (a crash keeps it);
    when its batch lands in the history, a ``results_landed`` record names it rather
    than writing it a second time. Resume and export still show every result once."""
    agent = Agent(ScriptedModel([
        AssistantMessage((ToolCallBlock("c1", "shout", {"word": "alpha"}),
                          ToolCallBlock("c2", "shout", {"word": "beta"}))),
        AssistantMessage((ToolCallBlock("c3", "shout", {"word": "gamma"}),)),
        "done",
    ]), tools=[shout])
    with recorder(store, agent) as rec:
        await run(rec, agent, "shout three words")
    for word in ("ALPHA", "BETA", "GAMMA"):
        assert _results_in(rec.path, f"{word}-RESULT") == 1
    landed = [r["call_ids"] for r in records(rec.path) if r["kind"] == "results_landed"]
    assert landed == [["c1", "c2"], ["c3"]]
    loaded = load_session(rec.path)
    assert loaded.messages == agent.messages and not loaded.problems and not loaded.interrupted
    assert store.info(rec.session_id).message_count == len(agent.messages) == 7
    md = export_markdown(loaded, redactor=NO_REDACTION)
    for word in ("ALPHA", "BETA", "GAMMA"):
        assert md.count(f"{word}-RESULT") == 1
    # carrying on in the same file appends, and the whole file still reads back once each
    other = Agent(ScriptedModel([AssistantMessage((ToolCallBlock("c4", "shout", {"word": "delta"}),)), "ok"]),
                  tools=[shout])
    resume(other, loaded)
    with SessionRecorder.resume(store, other, loaded, redactor=NO_REDACTION) as again:
        await run(again, other, "one more")
    assert _results_in(rec.path, "DELTA-RESULT") == 1 and _results_in(rec.path, "ALPHA-RESULT") == 1
    assert load_session(rec.path).messages == other.messages


@pytest.mark.anyio
async def test_a_result_changed_on_its_way_into_the_history_is_written_as_it_landed(
    store: SessionStore,
) -> None:
    """The history is the truth: a result that lands other than it was shown (a
    middleware shortened it) is written whole, not named as landed."""
    from shell.core.events import ToolExecutionEnd
    from shell.core.messages import ToolResult

    call = AssistantMessage((ToolCallBlock("c1", "shout", {"word": "a"}),
                             ToolCallBlock("c2", "shout", {"word": "b"})))
    agent = Agent(ScriptedModel([]))
    agent.messages[:] = [UserMessage("go"), call]
    with recorder(store, agent) as rec:
        rec.observe(ToolExecutionEnd(call_id="c1", result=ToolResult("A-RESULT")))
        rec.observe(ToolExecutionEnd(call_id="c2", result=ToolResult("B-RESULT")))
        agent.messages += [ToolResultMessage("c1", "shout", "A-RESULT"),
                           ToolResultMessage("c2", "shout", "short")]
        rec.sync()
    tail = records(rec.path)[-2:]
    assert tail[0] == {"kind": "results_landed", "call_ids": ["c1"]}
    assert tail[1]["kind"] == "message" and tail[1]["message"]["content"] == "short"
    assert load_session(rec.path).messages == agent.messages


def test_an_older_reader_still_gets_every_landed_result(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A reader that does not know ``results_landed`` (version 1) skips it and takes
    each result from its ``tool_result`` record: nothing is lost, only noted."""
    from shell.sessions import loader

    from .util import header, msg, write

    call = AssistantMessage((ToolCallBlock("c1", "add", {"x": 1, "y": 2}),))
    result = ToolResultMessage("c1", "add", "3")
    answer = AssistantMessage((TextBlock("3"),))
    path = write(tmp_path / "s.jsonl", [
        header(), msg(UserMessage("add")), msg(call),
        {"kind": "tool_result", "message": msg(result)["message"]},
        {"kind": "results_landed", "call_ids": ["c1"]}, msg(answer), {"kind": "reply_end"},
    ])
    expected = [UserMessage("add"), call, result, answer]
    assert load_session(path).messages == expected and not load_session(path).problems
    monkeypatch.setattr(loader, "KNOWN_KINDS", loader.KNOWN_KINDS - {"results_landed"})
    old = load_session(path)
    assert old.messages == expected
    assert any("unknown type 'results_landed'" in p for p in old.problems)
