"""The tool and turn hooks as the seeds describe them: overrides, results that always
get their after-hook, ReturnDirectly, run-local values, the batch and turn hooks, a
tool's own middleware, a response replaced before it is shown, and call order."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from middleware import (
    AfterToolCallResult,
    BeforeToolCallResult,
    CallOutcome,
    HookContext,
    Middleware,
    ReasoningRequest,
    ToolCallContext,
    ToolRequest,
    TurnAction,
)
from shell.agent import Agent, AssistantMessage, TextBlock, ToolCallBlock, ToolResult, ToolResultMessage, tool
from shell.core.events import (
    Event,
    ReplyEnd,
    TextBlockDelta,
    TextBlockEnd,
    ToolExecutionEnd,
    ToolExecutionStart,
)
from shell.core.model import ModelError, register_model_resolver
from shell.providers.scripted import ScriptedModel
from tests.helpers import calls, collect, history_is_valid, of


@tool(read_only=True)
def lookup(key: str) -> str:
    """Look a key up."""
    return f"value of {key}"


@tool
def explode() -> str:
    """Fails."""
    raise RuntimeError("disk on fire")


def results(agent: Agent) -> dict[str, ToolResultMessage]:
    return {m.call_id: m for m in agent.messages if isinstance(m, ToolResultMessage)}


@pytest.mark.anyio
async def test_a_plain_text_result_answers_the_call() -> None:
    class Cached(Middleware):
        async def before_tool_call(self, ctx: ToolCallContext) -> BeforeToolCallResult:
            return BeforeToolCallResult(result="cached answer")

    agent = Agent(
        ScriptedModel([calls(("lookup", {"key": "k"})), "ok"]), tools=[lookup], middleware=[Cached()]
    )
    events = await collect(agent)
    assert events[-1].stop_reason == "end_turn"  # type: ignore[union-attr]
    assert results(agent)["call_0_lookup"].text == "cached answer"
    assert not of(events, ToolExecutionStart)  # answered without running


@pytest.mark.anyio
async def test_after_tool_call_runs_for_blocked_overridden_and_failed_calls() -> None:
    seen: list[tuple[str, bool, str | None]] = []

    class Gate(Middleware):
        async def before_tool_call(self, ctx: ToolCallContext) -> BeforeToolCallResult | None:
            if ctx.args.get("key") == "secret":
                return BeforeToolCallResult(block=True, reason="no")
            if ctx.args.get("key") == "cached":
                return BeforeToolCallResult(result=ToolResult("from cache"))
            return None

        async def after_tool_call(self, ctx: ToolCallContext, result: ToolResult) -> None:
            error = f"{type(ctx.error).__name__}: {ctx.error}" if ctx.error else None
            seen.append((ctx.call.id, result.is_error, error))

    turn = calls(
        ("lookup", {"key": "secret"}),
        ("lookup", {"key": "cached"}),
        ("explode", {}),
        ("lookup", {"key": "k"}),
    )
    agent = Agent(ScriptedModel([turn, "ok"]), tools=[lookup, explode], middleware=[Gate()])
    await collect(agent)
    assert sorted(seen) == [
        ("call_0_lookup", True, None),
        ("call_1_lookup", False, None),
        ("call_2_explode", True, "RuntimeError: disk on fire"),
        ("call_3_lookup", False, None),
    ]


@pytest.mark.anyio
async def test_terminate_returns_the_tools_result_as_the_answer() -> None:
    class ReturnDirectly(Middleware):
        async def after_tool_call(self, ctx: ToolCallContext, result: ToolResult) -> AfterToolCallResult:
            return AfterToolCallResult(terminate=True)

    model = ScriptedModel([calls(("lookup", {"key": "k"})), "never"])
    agent = Agent(model, tools=[lookup], middleware=[ReturnDirectly()])
    events = await collect(agent)
    end = events[-1]
    assert isinstance(end, ReplyEnd) and end.stop_reason == "stopped"
    assert end.message is not None and end.message.text == "value of k"
    assert "".join(e.delta for e in of(events, TextBlockDelta)) == "value of k"
    assert len(model.requests) == 1 and history_is_valid(agent.messages)
    assert agent.messages[-1] == end.message


@pytest.mark.anyio
async def test_run_values_are_shared_by_all_middleware_for_one_reply() -> None:
    """Eino's SetRunLocalValue in a tool wrapper, GetRunLocalValue after the model call."""
    read: list[Any] = []

    class Writer(Middleware):
        async def on_acting(self, ctx: ToolCallContext, request: ToolRequest, next: Any) -> ToolResult:
            result: ToolResult = await next(request)
            ctx.run_values["last_tool"] = {"count": 1, "name": request.tool.name}
            return result

    class Reader(Middleware):
        async def after_model_response(self, ctx: HookContext, response: AssistantMessage) -> None:
            read.append(ctx.run_values.get("last_tool"))

    agent = Agent(
        ScriptedModel([calls(("lookup", {"key": "k"})), "done", "again"]),
        tools=[lookup],
        middleware=[Writer(), Reader()],
    )
    await collect(agent)
    await collect(agent, "next reply")
    assert read == [None, {"count": 1, "name": "lookup"}, None]  # fresh for each reply


@pytest.mark.anyio
async def test_before_tool_batch_sees_every_call_before_any_runs_and_may_block_some() -> None:
    order: list[str] = []

    class BatchApproval(Middleware):
        async def before_tool_batch(self, ctx: HookContext, calls: tuple[ToolCallBlock, ...]) -> Any:
            order.append(f"batch {[c.args['key'] for c in calls]}")
            return {
                c.id: BeforeToolCallResult(block=True, reason="denied") for c in calls if c.args["key"] == "b"
            }

        async def before_tool_call(self, ctx: ToolCallContext) -> None:
            order.append(f"call {ctx.args['key']}")

    turn = calls(("lookup", {"key": "a"}), ("lookup", {"key": "b"}))
    agent = Agent(ScriptedModel([turn, "ok"]), tools=[lookup], middleware=[BatchApproval()])
    await collect(agent)
    assert order == ["batch ['a', 'b']", "call a"]
    assert results(agent)["call_1_lookup"].text == "denied"


@pytest.mark.anyio
async def test_a_before_tool_batch_edit_is_credited_to_the_middleware_that_made_it() -> None:
    class Rename(Middleware):
        async def before_tool_batch(self, ctx: HookContext, calls: tuple[ToolCallBlock, ...]) -> Any:
            return [BeforeToolCallResult(args={"key": "renamed"}), None]

    class Quiet(Middleware):  # answers both calls without args: the edit stays Rename's
        async def before_tool_batch(self, ctx: HookContext, calls: tuple[ToolCallBlock, ...]) -> Any:
            return [BeforeToolCallResult(), BeforeToolCallResult(args={"key": "quiet"})]

    turn = calls(("lookup", {"key": "a"}), ("lookup", {"key": "b"}))
    agent = Agent(ScriptedModel([turn, "ok"]), tools=[lookup], middleware=[Rename(), Quiet()])
    events = await collect(agent)
    edited = {e.call_id: e.edited_by for e in of(events, ToolExecutionStart)}
    assert edited == {"call_0_lookup": "Rename", "call_1_lookup": "Quiet"}
    read = results(agent)
    assert read["call_0_lookup"].text.startswith("[Middleware Rename changed the arguments")
    assert read["call_1_lookup"].text.startswith("[Middleware Quiet changed the arguments")


@pytest.mark.anyio
async def test_after_turn_gets_the_turns_results_with_their_exceptions() -> None:
    turns: list[tuple[int, list[tuple[str, bool, bool]]]] = []

    class ErrorTracking(Middleware):
        async def after_turn(self, ctx: HookContext, results: tuple[CallOutcome, ...]) -> None:
            turns.append(
                (ctx.round, [(o.call.name, o.result.is_error, o.error is not None) for o in results])
            )

    model = ScriptedModel([calls(("explode", {}), ("lookup", {"key": "k"})), "done"])
    await collect(Agent(model, tools=[explode, lookup], middleware=[ErrorTracking()]))
    assert turns == [(0, [("explode", True, True), ("lookup", False, False)]), (1, [])]


@pytest.mark.anyio
async def test_a_tools_own_middleware_runs_inside_on_acting_for_that_tool_only() -> None:
    order: list[str] = []

    async def audit(ctx: ToolCallContext, request: ToolRequest, next: Any) -> ToolResult:
        order.append(f"audit {request.tool.name}")
        result: ToolResult = await next(request)
        return ToolResult(result.text + " (audited)")

    @tool(read_only=True, middleware=[audit])
    def guarded(key: str) -> str:
        """A tool with its own middleware."""
        return f"guarded {key}"

    class Outer(Middleware):
        async def on_acting(self, ctx: ToolCallContext, request: ToolRequest, next: Any) -> ToolResult:
            order.append(f"outer {request.tool.name}")
            result: ToolResult = await next(request)
            return result

    turn = calls(("guarded", {"key": "x"}), ("lookup", {"key": "y"}))
    agent = Agent(
        ScriptedModel([turn, "ok"]),
        tools=[guarded, lookup],
        middleware=[Outer()],
        tool_execution="sequential",
    )
    await collect(agent)
    assert order == ["outer guarded", "audit guarded", "outer lookup"]
    assert results(agent)["call_0_guarded"].text == "guarded x (audited)"
    assert results(agent)["call_1_lookup"].text == "value of y"


@pytest.mark.anyio
async def test_a_replaced_response_reaches_the_screen_and_the_response_is_in_the_history() -> None:
    in_history: list[bool] = []

    class Moderate(Middleware):
        async def after_model_response(self, ctx: HookContext, response: AssistantMessage) -> TurnAction:
            in_history.append(ctx.messages[-1] is response)
            return TurnAction(response=AssistantMessage((TextBlock("[moderated]"),)))

    agent = Agent(ScriptedModel(["something rude"]), middleware=[Moderate()])
    events = await collect(agent)
    assert in_history == [True]
    assert of(events, TextBlockEnd)[-1].text == "[moderated]"  # what the screen keeps
    assert agent.messages[-1].text == "[moderated]"  # type: ignore[union-attr]
    assert events[-1].message.text == "[moderated]"  # type: ignore[union-attr]


@pytest.mark.anyio
async def test_skipping_the_model_in_on_reasoning_commits_no_empty_message() -> None:
    class Skip(Middleware):
        async def on_reasoning(
            self, ctx: HookContext, request: ReasoningRequest, next: Any
        ) -> AsyncIterator[Event]:
            return
            yield  # an async generator that yields nothing

    model = ScriptedModel(["unused"])
    agent = Agent(model, middleware=[Skip()])
    events = await collect(agent)
    assert model.requests == [] and events[-1].stop_reason == "stopped"  # type: ignore[union-attr]
    assert not any(isinstance(m, AssistantMessage) for m in agent.messages)


@pytest.mark.anyio
async def test_on_error_hears_of_an_error_a_layer_recovered_from() -> None:
    heard: list[tuple[str, str]] = []

    class Listen(Middleware):
        async def on_error(self, ctx: HookContext, error: BaseException, source: str) -> None:
            heard.append((source, str(error)))

    from middleware import ModelFallback

    primary = ScriptedModel([ModelError("overloaded", provider="x")])
    agent = Agent(primary, middleware=[Listen(), ModelFallback(ScriptedModel(["fine"]))])
    events = await collect(agent)
    assert events[-1].stop_reason == "end_turn"  # type: ignore[union-attr]
    assert heard == [("model", "overloaded")]


@pytest.mark.anyio
async def test_model_fallback_takes_a_model_name(monkeypatch: pytest.MonkeyPatch) -> None:
    import shell.core.model as models
    from middleware import ModelFallback

    backup = ScriptedModel(["from the named backup"])
    monkeypatch.setattr(models, "_resolvers", [])
    register_model_resolver(lambda spec: backup if spec == "test:backup" else ScriptedModel([]))
    agent = Agent(ScriptedModel([ModelError("down")]), middleware=[ModelFallback("test:backup")])
    events = await collect(agent)
    assert events[-1].message.text == "from the named backup"  # type: ignore[union-attr]


@pytest.mark.anyio
async def test_a_tool_filtered_out_of_the_model_call_cannot_be_called() -> None:
    class OnlyLookup(Middleware):
        async def transform_context(self, ctx: HookContext, messages: list[Any]) -> list[Any]:
            ctx.tools = [t for t in ctx.tools if t.name == "lookup"]
            return messages

    agent = Agent(
        ScriptedModel([calls(("explode", {})), "ok"]), tools=[lookup, explode], middleware=[OnlyLookup()]
    )
    await collect(agent)
    result = results(agent)["call_0_explode"]
    assert (
        result.is_error
        and result.text == "Tool 'explode' is not available in this turn. Available tools: lookup."
    )


@pytest.mark.anyio
async def test_calls_that_change_things_run_in_the_models_order(tmp_path: Path) -> None:
    """write a.txt, write b.txt, read both: the read sees both files, whole."""

    @tool
    async def write_file(path: str, text: str) -> str:
        """Write a file (slowly, in two steps)."""
        import anyio

        target = tmp_path / path
        target.write_text(text[:1])
        await anyio.sleep(0.02)
        target.write_text(text)
        return f"wrote {path}"

    @tool(read_only=True)
    def read_files(paths: list[str]) -> str:
        """Read files."""
        return " | ".join((tmp_path / p).read_text() for p in paths)

    turn = AssistantMessage(
        (
            ToolCallBlock("w1", "write_file", {"path": "a.txt", "text": "alpha"}),
            ToolCallBlock("w2", "write_file", {"path": "b.txt", "text": "beta"}),
            ToolCallBlock("r1", "read_files", {"paths": ["a.txt", "b.txt"]}),
        )
    )
    agent = Agent(ScriptedModel([turn, "ok"]), tools=[write_file, read_files])
    events = await collect(agent)
    assert results(agent)["r1"].text == "alpha | beta"
    order = [
        (type(e).__name__, e.call_id) for e in events if isinstance(e, (ToolExecutionStart, ToolExecutionEnd))
    ]
    assert order == [
        ("ToolExecutionStart", "w1"), ("ToolExecutionEnd", "w1"),
        ("ToolExecutionStart", "w2"), ("ToolExecutionEnd", "w2"),
        ("ToolExecutionStart", "r1"), ("ToolExecutionEnd", "r1"),
    ]  # fmt: skip
