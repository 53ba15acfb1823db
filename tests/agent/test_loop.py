"""The agent loop: rounds, tools, endings, cancellation and a valid history after each."""

from __future__ import annotations

import time
from collections.abc import AsyncIterator
from contextlib import aclosing

import anyio
import anyio.lowlevel
import pytest

from shell.agent import Agent, AssistantMessage, ModelError, ModelRequest, TextBlock, ToolResultMessage, tool
from shell.core.events import (
    ErrorEvent,
    ModelCallEnd,
    Notice,
    ReplyEnd,
    ReplyStart,
    TextBlockDelta,
    TextBlockEnd,
    ToolCallEnd,
    ToolExecutionEnd,
    ToolExecutionStart,
)
from shell.core.model import ModelChunk, StopChunk, TextDelta, ToolCallDelta
from shell.providers.scripted import ScriptedModel
from tests.helpers import calls, collect, history_is_valid, kinds, of


@tool(read_only=True)
def add(x: int, y: int) -> int:
    """Add two numbers."""
    return x + y


@tool
def explode(reason: str) -> str:
    """Always fails."""
    raise RuntimeError(reason)


@tool
async def nap(seconds: float) -> str:
    """Sleep, then answer."""
    await anyio.sleep(seconds)
    return f"slept {seconds}"


@pytest.mark.anyio
async def test_text_reply_streams_in_order_and_lands_in_history() -> None:
    agent = Agent(ScriptedModel(["Hello there, friend."]))
    events = await collect(agent, "hi")
    assert kinds(events)[:3] == ["ReplyStart", "ModelCallStart", "TextBlockStart"]
    assert kinds(events)[-3:] == ["TextBlockEnd", "ModelCallEnd", "ReplyEnd"]
    assert "".join(e.delta for e in of(events, TextBlockDelta)) == "Hello there, friend."
    assert len(of(events, TextBlockDelta)) > 3  # streamed in small deltas
    end = events[-1]
    assert isinstance(end, ReplyEnd) and end.stop_reason == "end_turn"
    assert end.message is not None and end.message.text == "Hello there, friend."
    assert [m.role for m in agent.messages] == ["user", "assistant"]
    assert len({e.reply_id for e in events}) == 1 and events[0].reply_id.startswith("reply_")


@pytest.mark.anyio
async def test_tool_round_trip() -> None:
    model = ScriptedModel([calls(("add", {"x": 2, "y": 3}), text="Let me add."), "It is 5."])
    agent = Agent(model, tools=[add])
    events = await collect(agent, "2+3?")
    end = of(events, ToolExecutionEnd)[0]
    assert end.result.content == "5" and not end.blocked
    assert of(events, ToolCallEnd)[0].args == {"x": 2, "y": 3}
    results = [m for m in agent.messages if isinstance(m, ToolResultMessage)]
    assert results == [ToolResultMessage("call_0_add", "add", "5", False)]
    # the second model call saw the tool result
    assert isinstance(model.requests[1].messages[-1], ToolResultMessage)
    assert [t.name for t in model.requests[0].tools] == ["add"]
    assert events[-1].stop_reason == "end_turn"  # type: ignore[union-attr]


@tool(read_only=True)
async def doze(seconds: float) -> str:
    """Sleep, changing nothing."""
    await anyio.sleep(seconds)
    return f"dozed {seconds}"


@pytest.mark.anyio
async def test_read_only_tools_overlap_mutating_or_sequential_ones_do_not() -> None:
    cases = (("parallel", doze, True), ("sequential", doze, False), ("parallel", nap, False))
    for mode, sleeper, overlapping in cases:
        name = sleeper.name
        turn = calls((name, {"seconds": 0.05}), (name, {"seconds": 0.05}))
        agent = Agent(ScriptedModel([turn, "done"]), tools=[sleeper], tool_execution=mode)  # type: ignore[arg-type]
        events = await collect(agent)
        order = [type(e).__name__ for e in events if isinstance(e, (ToolExecutionStart, ToolExecutionEnd))]
        expected = ["ToolExecutionStart", "ToolExecutionStart", "ToolExecutionEnd", "ToolExecutionEnd"]
        assert (order == expected) is overlapping, mode
        assert history_is_valid(agent.messages)
        # results stay in call order whatever order they finished in
        ids = [m.call_id for m in agent.messages if isinstance(m, ToolResultMessage)]
        assert ids == [f"call_0_{name}", f"call_1_{name}"]


@tool(read_only=True)
async def quick(n: int) -> str:
    """Answer at once, changing nothing."""
    await anyio.lowlevel.checkpoint()
    return f"quick {n}"


@pytest.mark.anyio
async def test_parallel_calls_start_before_they_end_and_every_event_crosses_on_reply() -> None:
    """A consumer slower than its tools (a TUI drawing) saw some calls end before they
    started, and the TUI then showed them "cancelled"; those ends had also skipped the
    ``on_reply`` layers. Each call starts before it ends, and every event reaches
    the consumer through the layers."""
    from middleware.base import Middleware

    class Seen(Middleware):
        name = "Seen"

        def __init__(self) -> None:
            self.seen: list[object] = []

        async def on_reply(self, ctx, request, next):  # type: ignore[no-untyped-def]
            async for event in next(request):
                self.seen.append(event)
                yield event

    seen = Seen()
    turn = calls(*(("quick", {"n": i}) for i in range(10)))
    agent = Agent(ScriptedModel([turn, "done"]), tools=[quick], middleware=[seen])
    events = []
    async for event in agent.reply("go"):
        events.append(event)
        await anyio.sleep(0.002)  # a slow consumer: the tools finish meanwhile
    started: set[str] = set()
    for event in events:
        if isinstance(event, ToolExecutionStart):
            started.add(event.call_id)
        elif isinstance(event, ToolExecutionEnd):
            assert event.call_id in started, f"{event.call_id} ended before it started"
    assert len(started) == 10
    assert [type(e) for e in seen.seen] == [type(e) for e in events]


@pytest.mark.anyio
async def test_tool_errors_unknown_tools_and_bad_arguments_are_error_results() -> None:
    turn = calls(("explode", {"reason": "disk on fire"}), ("nope", {}), ("add", {"x": "one"}))
    agent = Agent(ScriptedModel([turn, "sorry"]), tools=[add, explode])
    events = await collect(agent)
    results = {e.call_id: e.result for e in of(events, ToolExecutionEnd)}
    assert results["call_0_explode"].is_error
    assert results["call_0_explode"].content == "explode failed: RuntimeError: disk on fire"
    assert results["call_1_nope"].content == "Unknown tool 'nope'. Available tools: add, explode."
    assert results["call_2_add"].is_error
    assert "Invalid arguments for add: x: Input should be a valid integer" in str(
        results["call_2_add"].content
    )
    assert "y: Field required" in str(results["call_2_add"].content)
    assert not of(events, ErrorEvent)  # tool failures never end the reply
    assert events[-1].stop_reason == "end_turn"  # type: ignore[union-attr]
    assert history_is_valid(agent.messages)


class RawModel:
    """A model that streams exactly the chunks it is given."""

    name = "raw"

    def __init__(self, *turns: list[ModelChunk] | BaseException) -> None:
        self.turns = list(turns)

    async def stream(self, request: ModelRequest) -> AsyncIterator[ModelChunk]:
        turn = self.turns.pop(0)
        if isinstance(turn, BaseException):
            raise turn
        for chunk in turn:
            if isinstance(chunk, BaseException):
                raise chunk
            yield chunk


@pytest.mark.anyio
async def test_malformed_tool_arguments_become_an_error_result() -> None:
    bad = [ToolCallDelta(0, "c1", "add", '{"x": 1,'), StopChunk("tool_use")]
    agent = Agent(RawModel(bad, [TextDelta("ok")]), tools=[add])
    events = await collect(agent)
    end = of(events, ToolCallEnd)[0]
    assert end.args == {} and end.args_error and "not valid JSON" in end.args_error
    result = of(events, ToolExecutionEnd)[0].result
    assert result.is_error and "not valid JSON" in str(result.content)
    assert history_is_valid(agent.messages)


@pytest.mark.anyio
async def test_model_error_ends_the_reply_as_data_and_keeps_partial_text() -> None:
    dropped = [
        TextDelta("The answer is "),
        TextDelta("forty"),
        ModelError("The connection dropped.", provider="x"),
    ]
    agent = Agent(RawModel(dropped))
    events = await collect(agent)
    errors = of(events, ErrorEvent)
    assert [(e.error, e.source) for e in errors] == [("The connection dropped.", "model")]
    assert of(events, TextBlockEnd)[0].text == "The answer is forty"
    end = events[-1]
    assert isinstance(end, ReplyEnd) and end.stop_reason == "error"
    assert agent.messages[-1] == AssistantMessage((TextBlock("The answer is forty"),), stop_reason="error")
    # the agent is usable afterwards
    agent.model = ScriptedModel(["Recovered."])
    assert (await collect(agent))[-1].stop_reason == "end_turn"  # type: ignore[union-attr]


@pytest.mark.anyio
async def test_max_rounds_stops_a_looping_model() -> None:
    model = ScriptedModel([calls(("add", {"x": 1, "y": 1}))], loop=True)
    agent = Agent(model, tools=[add], max_rounds=3)
    events = await collect(agent)
    assert len(model.requests) == 3
    assert events[-1].stop_reason == "max_rounds"  # type: ignore[union-attr]
    assert any("max_rounds" in n.text for n in of(events, Notice))
    assert history_is_valid(agent.messages)


@pytest.mark.anyio
async def test_usage_is_summed_per_reply_and_per_session() -> None:
    agent = Agent(ScriptedModel([calls(("add", {"x": 1, "y": 1})), "two", "again"]), tools=[add])
    first = await collect(agent)
    per_call = [e.usage for e in of(first, ModelCallEnd)]
    assert first[-1].usage == per_call[0] + per_call[1]  # type: ignore[union-attr]
    await collect(agent)
    assert agent.usage.output_tokens > first[-1].usage.output_tokens  # type: ignore[union-attr]


@pytest.mark.anyio
async def test_cancel_during_a_running_tool_is_prompt_and_leaves_a_valid_history() -> None:
    agent = Agent(
        ScriptedModel([calls(("nap", {"seconds": 30}), ("add", {"x": 1, "y": 2})), "next"]), tools=[nap, add]
    )
    events = []
    started = 0.0
    async for event in agent.reply("go"):
        events.append(event)
        if isinstance(event, ToolExecutionStart) and event.name == "nap":
            started = time.monotonic()
            agent.cancel()
    assert time.monotonic() - started < 15  # long before the 30 s nap ends (no tighter bound: load)
    assert events[-1].stop_reason == "cancelled"  # type: ignore[union-attr]
    assert history_is_valid(agent.messages)
    nap_result = next(m for m in agent.messages if isinstance(m, ToolResultMessage) and m.name == "nap")
    assert nap_result.is_error and "cancelled" in nap_result.text
    nap_end = next(e for e in events if isinstance(e, ToolExecutionEnd) and e.call_id == nap_result.call_id)
    assert not nap_end.blocked and nap_end.result.details == {"cancelled": True} and nap_end.duration_s > 0
    assert not agent.busy
    assert (await collect(agent, "again"))[-1].stop_reason == "end_turn"  # type: ignore[union-attr]


@pytest.mark.anyio
async def test_cancel_while_streaming_keeps_the_text_so_far() -> None:
    agent = Agent(ScriptedModel(["one two three four five six seven"], chunk_size=3, delay=0.02))
    events = []
    async for event in agent.reply("count"):
        events.append(event)
        if len(of(events, TextBlockDelta)) == 3:
            agent.cancel()
    assert events[-1].stop_reason == "cancelled"  # type: ignore[union-attr]
    last = agent.messages[-1]
    assert isinstance(last, AssistantMessage) and last.stop_reason == "cancelled"
    assert last.text == "one two t"


@pytest.mark.anyio
async def test_breaking_out_early_stops_the_reply_and_frees_the_agent() -> None:
    agent = Agent(ScriptedModel([calls(("nap", {"seconds": 30})), "x"]), tools=[nap])
    with anyio.fail_after(2):
        async with aclosing(agent.reply("go")) as replies:
            async for event in replies:
                if isinstance(event, ToolExecutionStart):
                    break
    assert not agent.busy
    assert history_is_valid(agent.messages)


@pytest.mark.anyio
async def test_one_reply_at_a_time() -> None:
    agent = Agent(ScriptedModel(["a", "b"], delay=0.01))
    replies = agent.reply("first")
    await replies.__anext__()
    with pytest.raises(RuntimeError, match="one reply at a time"):
        await agent.reply("second").__anext__()
    async for _ in replies:
        pass


@pytest.mark.anyio
async def test_reply_start_carries_the_input() -> None:
    agent = Agent(ScriptedModel(["ok"]))
    events = await collect(agent, "hello")
    start = events[0]
    assert isinstance(start, ReplyStart) and start.input[0].text == "hello"  # type: ignore[union-attr]


@pytest.mark.parametrize("anyio_backend", ["trio"])
@pytest.mark.anyio
async def test_runs_under_trio(anyio_backend: str) -> None:
    agent = Agent(
        ScriptedModel([calls(("nap", {"seconds": 0.01}), ("add", {"x": 1, "y": 2})), "done"]),
        tools=[nap, add],
    )
    events = await collect(agent)
    assert events[-1].stop_reason == "end_turn"  # type: ignore[union-attr]
    assert len(of(events, ToolExecutionEnd)) == 2
    agent2 = Agent(ScriptedModel([calls(("nap", {"seconds": 30})), "x"]), tools=[nap])
    async for event in agent2.reply("go"):
        if isinstance(event, ToolExecutionStart):
            agent2.cancel()
    assert history_is_valid(agent2.messages)


class NoticingModel:
    """Reports a retry from inside its stream, as a provider does."""

    name = "noticing"

    async def stream(self, request: ModelRequest) -> AsyncIterator[ModelChunk]:
        from shell.core.model import report_notice

        report_notice("Rate limited (429); retrying in 1 s (attempt 1 of 3).")
        yield TextDelta("fine")


@pytest.mark.anyio
async def test_a_provider_notice_enters_the_reply_stream() -> None:
    from shell.core.model import report_notice

    assert report_notice("nobody listens") is False
    events = await collect(Agent(NoticingModel()))
    notices = of(events, Notice)
    assert [(n.level, n.text, n.source) for n in notices] == [
        ("warning", "Rate limited (429); retrying in 1 s (attempt 1 of 3).", "noticing")
    ]
    assert kinds(events).index("Notice") < kinds(events).index("TextBlockStart")


@pytest.mark.anyio
async def test_tool_duration_counts_the_tool_not_the_approval_wait(monkeypatch: pytest.MonkeyPatch) -> None:
    """The clock moves 1,000 s while the user decides (no real wait): the tool's duration
    holds its own nap and none of the user's time."""
    from middleware import BeforeToolCallResult, Middleware, ToolCallContext
    from shell.agent import ApprovalDecision, ApprovalRequest, tool_call

    user_time = [0.0]
    monkeypatch.setattr(tool_call, "perf_counter", lambda: time.perf_counter() + user_time[0])

    class SlowApproval(Middleware):
        async def before_tool_call(self, ctx: ToolCallContext) -> BeforeToolCallResult | None:
            await ctx.ask(ApprovalRequest(ctx.call, ctx.tool, ctx.args))
            return None

    async def ask(request: ApprovalRequest) -> ApprovalDecision:
        user_time[0] += 1000.0
        return ApprovalDecision.approve()

    turn = calls(("nap", {"seconds": 0.01}))
    agent = Agent(ScriptedModel([turn, "ok"]), tools=[nap], middleware=[SlowApproval()], ask=ask)
    end = of(await collect(agent), ToolExecutionEnd)[0]
    assert 0.005 < end.duration_s < 500.0  # the nap, not the user's 1,000 s


@pytest.mark.anyio
async def test_a_tool_that_hangs_is_stopped_at_its_timeout() -> None:
    @tool(timeout=0.2)
    async def hang() -> str:
        """Never returns."""
        await anyio.sleep(60)
        return "never"

    agent = Agent(
        ScriptedModel([calls(("hang", {}), ("nap", {"seconds": 30})), "moved on"]),
        tools=[hang, nap],
        tool_timeout=0.4,
    )
    started = time.monotonic()
    events = await collect(agent)
    assert time.monotonic() - started < 15  # long before the 30 s nap ends (no tighter bound: load)
    results = {e.call_id: e.result for e in of(events, ToolExecutionEnd)}
    assert results["call_0_hang"].content == (
        "hang did not finish within 0.2 s and was stopped. "
        "Try a smaller step, or ask the user to raise the limit."
    )
    assert results["call_1_nap"].is_error and "within 0.4 s" in str(results["call_1_nap"].content)
    assert events[-1].stop_reason == "end_turn"  # type: ignore[union-attr]
    assert history_is_valid(agent.messages)
