"""HPD-Agent's middleware lifecycle page, its examples ported: memory (BeforeMessageTurn),
turn logging (AfterMessageTurn), the retry instruction (BeforeIteration), retry
(WrapModelCall), token counting (WrapModelCallStreaming), the circuit breaker
(BeforeToolExecution), batch approval (BeforeParallelBatch + BeforeFunction), the
timeout (WrapFunctionCall), error logging (AfterFunction), error tracking
(AfterIteration), the OnError circuit breaker, and the permission request."""

from __future__ import annotations

import json
from typing import Any

import anyio
import pytest

from middleware import BeforeToolCallResult, Middleware, TurnAction
from shell.agent import Agent, SystemMessage, ToolResult, tool
from shell.core.events import Notice, ReplyEnd, TextBlockDelta
from shell.core.model import ModelError, TextDelta
from shell.providers.scripted import ScriptedModel
from tests.helpers import calls, collect, of

pytestmark = pytest.mark.anyio
logged: list[str] = []


@tool(read_only=True)
def search(query: str) -> str:
    """Search."""
    return f"results for {query}"


@tool
async def slow(seconds: float) -> str:
    """Takes its time."""
    await anyio.sleep(seconds)
    return "done"


@tool
def flaky(x: int) -> str:
    """Always fails."""
    raise RuntimeError(f"failure {x}")


class MemoryMiddleware(Middleware):
    def __init__(self, store: dict[str, list[str]]) -> None:
        self._store = store

    async def on_reply(self, ctx: Any, request: Any, next: Any) -> Any:
        memories = self._store.get(request.input[-1].text, [])
        memory = SystemMessage(f"Relevant memory: {', '.join(memories)}")
        async for event in next(request.override(input=(memory, *request.input))):
            yield event


async def test_memory_is_injected_before_the_turn() -> None:
    model = ScriptedModel(["ok"])
    agent = Agent(model, middleware=[MemoryMiddleware({"plan my trip": ["likes trains", "vegan"]})])
    await collect(agent, "plan my trip")
    assert model.requests[0].messages[0] == SystemMessage("Relevant memory: likes trains, vegan")


class TurnLogging(Middleware):
    async def on_reply(self, ctx: Any, request: Any, next: Any) -> Any:
        async for event in next(request):
            if isinstance(event, ReplyEnd):
                user = next_user = request.input[0].text
                logged.append(
                    f"Turn completed. User: {user}, Agent: {event.message.text if event.message else ''}"
                )
                del next_user
            yield event


async def test_turn_logging_after_the_turn_even_if_it_failed() -> None:
    logged.clear()
    await collect(Agent(ScriptedModel(["Hello!"]), middleware=[TurnLogging()]), "Hi")
    await collect(Agent(ScriptedModel([ModelError("down")]), middleware=[TurnLogging()]), "Again")
    assert logged == ["Turn completed. User: Hi, Agent: Hello!", "Turn completed. User: Again, Agent: "]


class RetryInstruction(Middleware):
    async def transform_context(self, ctx: Any, messages: list[Any]) -> list[Any]:
        if ctx.round > 0:  # add retry instruction on subsequent iterations
            return [SystemMessage("Previous approach failed. Try a different tool."), *messages]
        return messages


async def test_before_iteration_adds_an_instruction_from_the_second_iteration() -> None:
    model = ScriptedModel([calls(("search", {"query": "x"})), "done"])
    await collect(Agent(model, tools=[search], middleware=[RetryInstruction()]))
    assert not isinstance(model.requests[0].messages[0], SystemMessage)
    assert model.requests[1].messages[0].text == "Previous approach failed. Try a different tool."  # type: ignore[union-attr]


class Retry(Middleware):
    def __init__(self, delay: float = 0.01) -> None:
        self.delay = delay

    async def on_model_call(self, ctx: Any, request: Any, next: Any) -> Any:
        for i in range(3):
            try:
                return await next(request)
            except Exception as ex:
                if not (i < 2 and self.should_retry(ex)):
                    raise
                await anyio.sleep(self.delay * 2**i)
        return await next(request)  # final attempt

    @staticmethod
    def should_retry(ex: Exception) -> bool:
        return isinstance(ex, ModelError) and ex.retryable


async def test_wrap_model_call_retries_transient_failures() -> None:
    flaky_model = ScriptedModel(
        [ModelError("503", retryable=True), ModelError("503", retryable=True), "third time"]
    )
    agent = Agent(flaky_model, middleware=[Retry()])
    assert (await collect(agent))[-1].message.text == "third time"  # type: ignore[union-attr]
    fatal = ScriptedModel([ModelError("401 bad key"), "never"])
    events = await collect(Agent(fatal, middleware=[Retry()]))
    assert events[-1].stop_reason == "error" and len(fatal.requests) == 1  # type: ignore[union-attr]


class TokenCounting(Middleware):
    def __init__(self) -> None:
        self.recorded: list[int] = []

    async def on_model_call(self, ctx: Any, request: Any, next: Any) -> Any:
        tokens = 0
        async for update in next(request):
            if isinstance(update, TextDelta):
                tokens += len(update.text.split())  # EstimateTokens
            yield update
        self.recorded.append(tokens)  # emit total after stream completes


async def test_streaming_wrap_counts_tokens_and_records_after_the_stream() -> None:
    counter = TokenCounting()
    events = await collect(Agent(ScriptedModel(["one two three four"], chunk_size=4), middleware=[counter]))
    assert len(of(events, TextBlockDelta)) == 5  # still streamed
    assert counter.recorded == [6]  # "one ", "two ", "thre", "e fo" (two), "ur": a rough estimate


class CircuitBreaker(Middleware):
    async def after_model_response(self, ctx: Any, response: Any) -> TurnAction | None:
        counts = ctx.reply_state.setdefault("counts", {})
        for call in response.tool_calls:
            signature = (call.name, json.dumps(call.args, sort_keys=True))
            counts[signature] = count = counts.get(signature, 0) + 1
            if count >= 3:
                ctx.emit(Notice("warning", f"⛔ Stopping repeated calls to {call.name}", self.name))
                return TurnAction(decision="stop")  # SkipToolExecution
        return None


async def test_before_tool_execution_circuit_breaker_skips_repeated_calls() -> None:
    same = calls(("search", {"query": "same"}))
    model = ScriptedModel([same, same, same, "never"])
    events = await collect(Agent(model, tools=[search], middleware=[CircuitBreaker()]))
    assert [n.text for n in of(events, Notice)] == ["⛔ Stopping repeated calls to search"]
    assert len(model.requests) == 3 and events[-1].stop_reason == "stopped"  # type: ignore[union-attr]


class BatchPermissions(Middleware):
    def __init__(self, approve: set[str]) -> None:
        self.approve = approve
        self.asked: list[list[str]] = []

    async def before_tool_batch(self, ctx: Any, calls: Any) -> None:
        functions = [c.name or "_unknown" for c in calls]
        self.asked.append(functions)
        approved = [f for f in functions if f in self.approve]  # RequestBatchApproval
        ctx.reply_state["ApprovedFunctions"] = approved  # for before_tool_call to check

    async def before_tool_call(self, ctx: Any) -> BeforeToolCallResult | None:
        if ctx.call.name not in ctx.reply_state.get("ApprovedFunctions", ()):
            return BeforeToolCallResult(block=True, reason="User denied permission")
        return None


async def test_batch_approval_then_each_function_checks_it() -> None:
    mw = BatchPermissions({"search"})
    model = ScriptedModel([calls(("search", {"query": "a"}), ("flaky", {"x": 1})), "ok"])
    agent = Agent(model, tools=[search, flaky], middleware=[mw])
    await collect(agent)
    assert mw.asked == [["search", "flaky"]]  # once, before any ran
    results = [m.text for m in agent.messages if type(m).__name__ == "ToolResultMessage"]
    assert results == ["results for a", "User denied permission"]


class Timeout(Middleware):
    def __init__(self, seconds: float) -> None:
        self.seconds = seconds

    async def on_acting(self, ctx: Any, request: Any, next: Any) -> Any:
        with anyio.move_on_after(self.seconds):
            return await next(request)
        return ToolResult(f"Function {request.tool.name} timed out", is_error=True)  # not raised: see docs


async def test_wrap_function_call_times_a_function_out() -> None:
    agent = Agent(
        ScriptedModel([calls(("slow", {"seconds": 30})), "ok"]), tools=[slow], middleware=[Timeout(0.05)]
    )
    with anyio.fail_after(3):
        await collect(agent)
    assert agent.messages[2].text == "Function slow timed out" and agent.messages[2].is_error  # type: ignore[union-attr]


class ErrorLogging(Middleware):
    async def after_tool_call(self, ctx: Any, result: Any) -> None:
        if ctx.error is not None:
            logged.append(f"Function {ctx.call.name} failed: {ctx.error}")


async def test_after_function_logs_the_exception() -> None:
    logged.clear()
    await collect(
        Agent(ScriptedModel([calls(("flaky", {"x": 7})), "ok"]), tools=[flaky], middleware=[ErrorLogging()])
    )
    assert logged == ["Function flaky failed: failure 7"]


class ErrorTracking(Middleware):
    async def after_turn(self, ctx: Any, results: Any) -> None:
        has_errors = any(r.error is not None for r in results)
        failures = ctx.session_state.get("ConsecutiveFailures", 0)
        ctx.session_state["ConsecutiveFailures"] = failures + 1 if has_errors else 0


async def test_after_iteration_tracks_consecutive_failures() -> None:
    model = ScriptedModel(
        [calls(("flaky", {"x": 1})), calls(("flaky", {"x": 2})), calls(("search", {"query": "q"})), "ok"]
    )
    agent = Agent(model, tools=[flaky, search], middleware=[ErrorTracking()])
    seen: list[int] = []
    async for event in agent.reply("go"):
        if type(event).__name__ == "ModelCallStart":
            seen.append(agent.session_state.get("ErrorTracking", {}).get("ConsecutiveFailures", 0))
    assert seen == [0, 1, 2, 0]


class OnErrorCircuitBreaker(Middleware):
    async def on_error(self, ctx: Any, error: BaseException, source: str) -> None:
        if source == "tool":
            failures = ctx.reply_state["failures"] = ctx.reply_state.get("failures", 0) + 1
            if failures >= 3:
                ctx.reply_state["IsTerminated"] = "Circuit breaker: too many errors"

    async def should_stop_after_turn(self, ctx: Any) -> bool:
        return "IsTerminated" in ctx.reply_state


async def test_on_error_circuit_breaker_terminates_after_three_tool_errors() -> None:
    model = ScriptedModel([calls(("flaky", {"x": i})) for i in range(5)] + ["never"])
    events = await collect(Agent(model, tools=[flaky], middleware=[OnErrorCircuitBreaker()]))
    assert len(model.requests) == 3 and events[-1].stop_reason == "stopped"  # type: ignore[union-attr]


class PermissionRequest:
    def __init__(self, function_name: str) -> None:
        self.function_name = function_name


class PermissionMiddleware(Middleware):
    async def before_tool_call(self, ctx: Any) -> BeforeToolCallResult | None:
        response = await ctx.ask(PermissionRequest(ctx.call.name))  # Emit + WaitForResponseAsync
        if not response["approved"]:
            return BeforeToolCallResult(block=True, reason="Permission denied")
        return None


async def test_request_response_asks_whoever_serves_the_agent() -> None:
    asked: list[str] = []

    async def ui(request: Any) -> Any:
        asked.append(request.function_name)
        return {"approved": request.function_name == "search"}

    model = ScriptedModel([calls(("search", {"query": "a"}), ("flaky", {"x": 1})), "ok"])
    agent = Agent(model, tools=[search, flaky], middleware=[PermissionMiddleware()], ask=ui)
    await collect(agent)
    assert sorted(asked) == ["flaky", "search"]
    assert agent.messages[3].text == "Permission denied"  # type: ignore[union-attr]
