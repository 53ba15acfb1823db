"""Every row of the hook table: composition order, short-circuits, toggles, state."""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator
from typing import Any

import anyio
import pytest

from middleware import (
    AfterToolCallResult,
    BeforeToolCallResult,
    CompressRequest,
    HookContext,
    Middleware,
    MiddlewareStack,
    ReasoningRequest,
    ReplyRequest,
    ToolCallContext,
    ToolRequest,
    TurnAction,
)
from shell.agent import (
    Agent,
    ApprovalDecision,
    ApprovalRequest,
    AssistantMessage,
    Message,
    ModelRequest,
    TextBlock,
    ToolResult,
    ToolResultMessage,
    UserMessage,
    tool,
)
from shell.core.events import (
    ApprovalRequested,
    ApprovalResolved,
    CustomEvent,
    ErrorEvent,
    Event,
    Notice,
    ReplyEnd,
    TextBlockDelta,
    ToolCallEnd,
    ToolExecutionEnd,
    ToolExecutionStart,
)
from shell.core.model import ModelChunk, TextDelta
from shell.providers.scripted import ScriptedModel
from tests.helpers import calls, collect, history_is_valid, kinds, of

log: list[str] = []


@pytest.fixture(autouse=True)
def _clear_log() -> None:
    log.clear()


@tool(read_only=True)
def add(x: int, y: int) -> int:
    """Add two numbers."""
    log.append(f"add({x},{y})")
    return x + y


@tool
async def slow(seconds: float) -> str:
    """Wait."""
    await anyio.sleep(seconds)
    return "waited"


# -- on_reply -----------------------------------------------------------------------


class ReplyTap(Middleware):
    def __init__(self, name: str) -> None:
        self.name = name

    async def on_reply(self, ctx: HookContext, request: ReplyRequest, next: Any) -> AsyncIterator[Event]:
        log.append(f"{self.name} pre")
        async for event in next(request):
            log.append(f"{self.name} {type(event).__name__}")
            yield event
        log.append(f"{self.name} post")


@pytest.mark.anyio
async def test_on_reply_onion_first_is_outermost_and_inner_sees_each_event_first() -> None:
    agent = Agent(ScriptedModel(["hi"]), middleware=[ReplyTap("outer"), ReplyTap("inner")])
    events = await collect(agent)
    assert log[:2] == ["outer pre", "inner pre"]
    assert log[-2:] == ["inner post", "outer post"]
    seen = log[2:-2]
    assert seen[0::2] == [f"inner {k}" for k in kinds(events)]
    assert seen[1::2] == [f"outer {k}" for k in kinds(events)]
    assert kinds(events)[0] == "ReplyStart" and kinds(events)[-1] == "ReplyEnd"


class RewriteInput(Middleware):
    async def on_reply(self, ctx: HookContext, request: ReplyRequest, next: Any) -> AsyncIterator[Event]:
        async for event in next(request.override(input=(UserMessage("rewritten"),))):
            yield event


@pytest.mark.anyio
async def test_on_reply_can_override_the_input() -> None:
    model = ScriptedModel(["ok"])
    agent = Agent(model, middleware=[RewriteInput()])
    await collect(agent, "original")
    assert model.requests[0].messages == (UserMessage("rewritten"),)


# -- on_model_call --------------------------------------------------------------------


class Shout(Middleware):
    """Upper-cases streamed text, chunk by chunk."""

    async def on_model_call(
        self, ctx: HookContext, request: ModelRequest, next: Any
    ) -> AsyncIterator[ModelChunk]:
        log.append("shout pre")
        async for chunk in next(request.override(system_prompt=request.system_prompt + " [shout]")):
            yield TextDelta(chunk.text.upper()) if isinstance(chunk, TextDelta) else chunk
        log.append("shout post")


class CountChunks(Middleware):
    async def on_model_call(
        self, ctx: HookContext, request: ModelRequest, next: Any
    ) -> AsyncIterator[ModelChunk]:
        log.append("count pre")
        n = 0
        async for chunk in next(request.override(options={"temperature": 0})):
            n += 1
            log.append(f"chunk {type(chunk).__name__}")
            yield chunk
        log.append(f"count post {n}")


@pytest.mark.anyio
async def test_model_call_onion_streams_and_overrides_reach_the_model() -> None:
    model = ScriptedModel(["quiet words"])
    agent = Agent(model, middleware=[Shout(), CountChunks()], system_prompt="base")
    events = await collect(agent)
    assert "".join(e.delta for e in of(events, TextBlockDelta)) == "QUIET WORDS"
    assert model.requests[0].system_prompt == "base [shout]"
    assert model.requests[0].options == {"temperature": 0}
    assert log[:2] == ["shout pre", "count pre"]
    assert log[-2:] == [f"count post {len(log) - 4}", "shout post"]
    assert agent.messages[-1].text == "QUIET WORDS"  # type: ignore[union-attr]


class Retry(Middleware):
    async def on_model_call(
        self, ctx: HookContext, request: ModelRequest, next: Any
    ) -> AsyncIterator[ModelChunk]:
        try:
            async for chunk in next(request):
                yield chunk
        except RuntimeError:
            log.append("retrying")
            async for chunk in next(request):
                yield chunk


@pytest.mark.anyio
async def test_model_call_retry_by_calling_next_again() -> None:
    model = ScriptedModel([RuntimeError("flaky"), "second try"])
    agent = Agent(model, middleware=[Retry()])
    events = await collect(agent)
    assert log == ["retrying"]
    assert events[-1].message.text == "second try"  # type: ignore[union-attr]


# -- transformers -------------------------------------------------------------------


class Suffix(Middleware):
    def __init__(self, tag: str) -> None:
        self.name = f"suffix-{tag}"
        self.tag = tag

    async def transform_system_prompt(self, ctx: HookContext, prompt: str) -> str:
        return f"{prompt} {self.tag}"

    async def transform_context(self, ctx: HookContext, messages: list[Message]) -> list[Message]:
        return [*messages, UserMessage(f"note {self.tag}")]


@pytest.mark.anyio
async def test_prompt_and_context_transformers_chain_in_list_order_and_leave_history_alone() -> None:
    model = ScriptedModel(["ok"])
    agent = Agent(model, middleware=[Suffix("a"), Suffix("b")], system_prompt="base")
    await collect(agent, "hi")
    request = model.requests[0]
    assert request.system_prompt == "base a b"
    assert [m.text for m in request.messages] == ["hi", "note a", "note b"]  # type: ignore[union-attr]
    assert [m.role for m in agent.messages] == ["user", "assistant"]  # a view, not the history


class Owner(Middleware):
    def __init__(self, tag: str) -> None:
        self.name = f"owner-{tag}"
        self.tag = tag

    async def convert_to_llm(self, ctx: HookContext, messages: list[Message]) -> list[Message]:
        log.append(self.tag)
        return [UserMessage(f"converted by {self.tag}")]


@pytest.mark.anyio
async def test_convert_to_llm_last_enabled_wins() -> None:
    model = ScriptedModel(["ok", "ok"])
    agent = Agent(model, middleware=[Owner("first"), Owner("last")])
    await collect(agent)
    assert log == ["last"]
    assert model.requests[0].messages == (UserMessage("converted by last"),)
    agent.middleware.set_enabled("owner-last", False)
    await collect(agent)
    assert model.requests[1].messages == (UserMessage("converted by first"),)


# -- on_compress_context --------------------------------------------------------------


class KeepLastTwo(Middleware):
    async def on_compress_context(
        self, ctx: HookContext, request: CompressRequest, next: Any
    ) -> list[Message]:
        log.append("outer")
        messages: list[Message] = await next(request.override(messages=request.messages[-2:]))
        return [UserMessage("summary"), *messages]


class SkipDefault(Middleware):
    async def on_compress_context(
        self, ctx: HookContext, request: CompressRequest, next: Any
    ) -> list[Message]:
        log.append("inner")
        return list(request.messages)  # does not call next


@pytest.mark.anyio
async def test_compress_context_replaces_the_history_in_onion_order() -> None:
    model = ScriptedModel(["one", "two"])
    agent = Agent(model, middleware=[KeepLastTwo(), SkipDefault()])
    await collect(agent, "first")
    await collect(agent, "second")
    assert log == ["outer", "inner", "outer", "inner"]
    assert [m.text for m in model.requests[1].messages] == ["summary", "one", "second"]  # type: ignore[union-attr]
    assert agent.messages[0] == UserMessage("summary")  # persisted


# -- on_reasoning -------------------------------------------------------------------------


class NoTools(Middleware):
    async def on_reasoning(
        self, ctx: HookContext, request: ReasoningRequest, next: Any
    ) -> AsyncIterator[Event]:
        log.append(f"round {ctx.round}")
        async for event in next(request.override(tool_choice="none")):
            yield event


@pytest.mark.anyio
async def test_on_reasoning_wraps_each_round_and_its_overrides_reach_the_model() -> None:
    model = ScriptedModel([calls(("add", {"x": 1, "y": 2})), "three"])
    agent = Agent(model, tools=[add], middleware=[NoTools()])
    await collect(agent)
    assert [r.tool_choice for r in model.requests] == ["none", "none"]
    assert log == ["round 0", "add(1,2)", "round 1"]


# -- after_model_response --------------------------------------------------------------


class Act(Middleware):
    def __init__(self, name: str, action: TurnAction | None) -> None:
        self.name = name
        self.action = action

    async def after_model_response(self, ctx: HookContext, response: AssistantMessage) -> TurnAction | None:
        log.append(f"{self.name} saw {response.text!r}")
        return self.action


@pytest.mark.anyio
async def test_after_model_response_runs_in_reverse_and_merges() -> None:
    model = ScriptedModel([calls(("add", {"x": 1, "y": 1}), text="raw"), "final"])
    first = Act("first", TurnAction(inject_messages=(UserMessage("from first"),)))
    last = Act(
        "last",
        TurnAction(
            response=calls(("add", {"x": 2, "y": 2}), text="edited"),
            inject_messages=(UserMessage("from last"),),
        ),
    )
    agent = Agent(model, tools=[add], middleware=[first, last])
    await collect(agent)
    assert log[:3] == ["last saw 'raw'", "first saw 'edited'", "add(2,2)"]
    texts = [getattr(m, "text", None) for m in agent.messages]
    # injected messages land after the turn's tool results, concatenated in call order
    assert texts[:5] == ["hi", "edited", "4", "from last", "from first"]
    assert history_is_valid(agent.messages)


@pytest.mark.anyio
async def test_turn_action_stop_and_last_decision_wins() -> None:
    model = ScriptedModel([calls(("add", {"x": 1, "y": 1})), "never"])
    agent = Agent(
        model,
        tools=[add],
        middleware=[Act("a", TurnAction(decision="stop")), Act("b", TurnAction(decision="natural"))],
    )
    events = await collect(agent)
    assert events[-1].stop_reason == "stopped"  # type: ignore[union-attr]
    assert log == ["b saw ''", "a saw ''"]  # no tool ran
    assert len(model.requests) == 1
    assert history_is_valid(agent.messages)
    assert agent.messages[-1].is_error  # type: ignore[union-attr]


class LoopOnce(Middleware):
    async def after_model_response(self, ctx: HookContext, response: AssistantMessage) -> TurnAction | None:
        if ctx.round == 0:
            return TurnAction(
                inject_messages=(UserMessage("try again without tools"),), decision="loop_to_model"
            )
        return None


@pytest.mark.anyio
async def test_loop_to_model_skips_tools_and_calls_the_model_again() -> None:
    model = ScriptedModel([calls(("add", {"x": 1, "y": 1})), "fine"])
    agent = Agent(model, tools=[add], middleware=[LoopOnce()])
    events = await collect(agent)
    assert log == []  # add never ran
    second = model.requests[1].messages
    assert isinstance(second[-2], ToolResultMessage) and second[-2].is_error
    assert second[-1] == UserMessage("try again without tools")
    assert events[-1].stop_reason == "end_turn"  # type: ignore[union-attr]


# -- before_tool_call -------------------------------------------------------------------


class Gate(Middleware):
    def __init__(self, name: str, result: BeforeToolCallResult | None) -> None:
        self.name = name
        self.result = result

    async def before_tool_call(self, ctx: ToolCallContext) -> BeforeToolCallResult | None:
        log.append(f"{self.name} {ctx.call.name}{ctx.args}")
        return self.result


@pytest.mark.anyio
async def test_before_tool_call_block_short_circuits_with_the_reason() -> None:
    gates = [
        Gate("a", None),
        Gate("b", BeforeToolCallResult(block=True, reason="not today")),
        Gate("c", None),
    ]
    agent = Agent(ScriptedModel([calls(("add", {"x": 1, "y": 2})), "ok"]), tools=[add], middleware=gates)
    events = await collect(agent)
    end = of(events, ToolExecutionEnd)[0]
    assert end.blocked and end.result == ToolResult("not today", is_error=True)
    assert log == ["a add{'x': 1, 'y': 2}", "b add{'x': 1, 'y': 2}"]  # c not called, add not run
    assert not of(events, ToolExecutionStart)


@pytest.mark.anyio
async def test_before_tool_call_default_block_reason() -> None:
    agent = Agent(
        ScriptedModel([calls(("add", {"x": 1, "y": 2})), "ok"]),
        tools=[add],
        middleware=[Gate("a", BeforeToolCallResult(block=True))],
    )
    events = await collect(agent)
    assert of(events, ToolExecutionEnd)[0].result.content == "Tool execution was blocked"


@pytest.mark.anyio
async def test_before_tool_call_edits_carry_forward_and_are_revalidated() -> None:
    gates = [Gate("a", BeforeToolCallResult(args={"x": 10, "y": 20})), Gate("b", None)]
    agent = Agent(ScriptedModel([calls(("add", {"x": 1, "y": 2})), "ok"]), tools=[add], middleware=gates)
    events = await collect(agent)
    assert log == ["a add{'x': 1, 'y': 2}", "b add{'x': 10, 'y': 20}", "add(10,20)"]
    assert of(events, ToolExecutionStart)[0].args == {"x": 10, "y": 20}
    assert of(events, ToolExecutionEnd)[0].result.content == (  # the model is told what ran
        '[Middleware a changed the arguments before this call ran; it ran with: {"x": 10, "y": 20}]\n30'
    )
    assert of(events, ToolCallEnd)[0].args == {"x": 1, "y": 2}  # what the model sent

    log.clear()
    bad = [Gate("a", BeforeToolCallResult(args={"x": "ten"})), Gate("b", None)]
    agent = Agent(ScriptedModel([calls(("add", {"x": 1, "y": 2})), "ok"]), tools=[add], middleware=bad)
    events = await collect(agent)
    # the middleware's error, named; not "the edited arguments" the model would fix (finding V15)
    errors = of(events, ErrorEvent)
    assert [e.source for e in errors] == ["a"] and "returned arguments add does not take" in errors[0].error
    assert of(events, ToolExecutionEnd)[0].result.is_error
    assert log == ["a add{'x': 1, 'y': 2}"]


@pytest.mark.anyio
async def test_before_tool_call_block_with_a_result_is_the_middlewares_error() -> None:
    gate = Gate("a", BeforeToolCallResult(block=True, result="cached"))
    agent = Agent(ScriptedModel([calls(("add", {"x": 1, "y": 2})), "ok"]), tools=[add], middleware=[gate])
    events = await collect(agent)
    errors = of(events, ErrorEvent)
    assert [e.source for e in errors] == ["a"] and "both block=True and a result" in errors[0].error
    assert log == ["a add{'x': 1, 'y': 2}"]  # add did not run


@pytest.mark.anyio
async def test_before_tool_call_result_override_skips_execution() -> None:
    gates = [Gate("cache", BeforeToolCallResult(result=ToolResult("cached 3"))), Gate("never", None)]
    agent = Agent(ScriptedModel([calls(("add", {"x": 1, "y": 2})), "ok"]), tools=[add], middleware=gates)
    events = await collect(agent)
    assert of(events, ToolExecutionEnd)[0].result.content == "cached 3"
    assert log == ["cache add{'x': 1, 'y': 2}"]


# -- on_acting -----------------------------------------------------------------------------


class Wrap(Middleware):
    def __init__(self, name: str) -> None:
        self.name = name

    async def on_acting(self, ctx: ToolCallContext, request: ToolRequest, next: Any) -> ToolResult:
        log.append(f"{self.name} pre")
        result: ToolResult = await next(request.override(args={**request.args, "y": request.args["y"] + 1}))
        log.append(f"{self.name} post {result.content}")
        return ToolResult(f"{self.name}({result.content})")


@pytest.mark.anyio
async def test_on_acting_nests_first_outermost() -> None:
    agent = Agent(
        ScriptedModel([calls(("add", {"x": 1, "y": 1})), "ok"]),
        tools=[add],
        middleware=[Wrap("outer"), Wrap("inner")],
    )
    events = await collect(agent)
    assert log == ["outer pre", "inner pre", "add(1,3)", "inner post 4", "outer post inner(4)"]
    assert of(events, ToolExecutionEnd)[0].result.content == "outer(inner(4))"


# -- after_tool_call ----------------------------------------------------------------------


class After(Middleware):
    def __init__(self, name: str, change: AfterToolCallResult | None) -> None:
        self.name = name
        self.change = change

    async def after_tool_call(self, ctx: ToolCallContext, result: ToolResult) -> AfterToolCallResult | None:
        log.append(f"{self.name} saw {result.content}")
        return self.change


@pytest.mark.anyio
async def test_after_tool_call_reverse_order_and_field_overrides() -> None:
    stack = [
        After("first", AfterToolCallResult(is_error=True)),
        After("last", AfterToolCallResult(content="redacted")),
    ]
    agent = Agent(ScriptedModel([calls(("add", {"x": 1, "y": 1})), "ok"]), tools=[add], middleware=stack)
    events = await collect(agent)
    assert log == ["add(1,1)", "last saw 2", "first saw redacted"]
    assert of(events, ToolExecutionEnd)[0].result == ToolResult("redacted", is_error=True)


@pytest.mark.anyio
async def test_after_tool_call_terminate_stops_the_reply() -> None:
    model = ScriptedModel([calls(("add", {"x": 1, "y": 1})), "never"])
    agent = Agent(model, tools=[add], middleware=[After("t", AfterToolCallResult(terminate=True))])
    events = await collect(agent)
    assert events[-1].stop_reason == "stopped"  # type: ignore[union-attr]
    assert len(model.requests) == 1


# -- should_stop_after_turn -------------------------------------------------------------


class Stop(Middleware):
    def __init__(self, name: str, answer: bool) -> None:
        self.name = name
        self.answer = answer

    async def should_stop_after_turn(self, ctx: HookContext) -> bool:
        log.append(self.name)
        return self.answer


@pytest.mark.anyio
async def test_should_stop_any_true_stops_and_all_run() -> None:
    model = ScriptedModel([calls(("add", {"x": 1, "y": 1})), "never"])
    agent = Agent(model, tools=[add], middleware=[Stop("yes", True), Stop("no", False)])
    events = await collect(agent)
    assert log == ["add(1,1)", "yes", "no"]
    assert events[-1].stop_reason == "stopped"  # type: ignore[union-attr]
    assert len(model.requests) == 1


# -- on_error and middleware failures -----------------------------------------------------


class Observe(Middleware):
    def __init__(self, name: str, fail: bool = False) -> None:
        self.name = name
        self.fail = fail

    async def on_error(self, ctx: HookContext, error: BaseException, source: str) -> None:
        log.append(f"{self.name} {source} {error}")
        if self.fail:
            raise RuntimeError("observer broke")


@tool
def broken() -> str:
    """Fails."""
    raise ValueError("tool broke")


@pytest.mark.anyio
async def test_on_error_reverse_order_all_run_and_their_errors_are_logged(
    caplog: pytest.LogCaptureFixture,
) -> None:
    agent = Agent(
        ScriptedModel([calls(("broken", {})), RuntimeError("model down")]),
        tools=[broken],
        middleware=[Observe("first"), Observe("last", fail=True)],
    )
    with caplog.at_level(logging.ERROR):
        events = await collect(agent)
    assert log == [
        "last tool tool broke",
        "first tool tool broke",
        "last model model down",
        "first model model down",
    ]
    assert "middleware last failed in on_error" in caplog.text
    assert [(e.source, e.error) for e in of(events, ErrorEvent)] == [("model", "RuntimeError: model down")]
    assert agent.middleware.stats("last").errors == 2


class Faulty(Middleware):
    """Breaks in before_tool_call."""

    async def before_tool_call(self, ctx: ToolCallContext) -> BeforeToolCallResult | None:
        raise KeyError("oops")


@pytest.mark.anyio
async def test_a_middleware_error_is_reported_with_its_name_and_ends_the_reply_as_data() -> None:
    agent = Agent(
        ScriptedModel([calls(("add", {"x": 1, "y": 1})), "never"]),
        tools=[add],
        middleware=[Faulty(), Observe("obs")],
    )
    events = await collect(agent)
    error = of(events, ErrorEvent)[0]
    assert error.source == "Faulty"
    assert error.error.startswith("Middleware Faulty failed in before_tool_call: KeyError: 'oops'.")
    assert "/middleware Faulty off" in error.error
    assert events[-1].stop_reason == "error"  # type: ignore[union-attr]
    assert log == ["obs Faulty 'oops'"]
    stats = agent.middleware.stats("Faulty")
    assert stats.last_error == "KeyError: 'oops'" and stats.last_error_hook == "before_tool_call"
    assert history_is_valid(agent.messages)
    # switched off, the shell carries on
    agent.middleware.set_enabled("Faulty", False)
    agent.model = ScriptedModel([calls(("add", {"x": 1, "y": 1})), "fine"])
    assert (await collect(agent))[-1].stop_reason == "end_turn"  # type: ignore[union-attr]


class FaultyGate(Faulty):
    """Decides which calls run (as HumanInTheLoop does), and breaks."""

    gate = True


@pytest.mark.anyio
async def test_a_failing_gate_is_not_advised_off() -> None:
    """Switching the approval gate off to get past its failure would switch approvals
    off: the error says nothing ran past it instead."""
    agent = Agent(ScriptedModel([calls(("add", {"x": 1, "y": 1})), "never"]), tools=[add],
                  middleware=[FaultyGate()])
    events = await collect(agent)
    error = of(events, ErrorEvent)[0]
    assert "off" not in error.error.split("KeyError")[1] and "nothing ran past it" in error.error
    assert not any(isinstance(e, ToolExecutionStart) for e in events)


class BadStream(Middleware):
    async def on_model_call(
        self, ctx: HookContext, request: ModelRequest, next: Any
    ) -> AsyncIterator[ModelChunk]:
        async for chunk in next(request):
            yield chunk
            raise ZeroDivisionError("bad layer")


class PassThrough(Middleware):
    async def on_model_call(
        self, ctx: HookContext, request: ModelRequest, next: Any
    ) -> AsyncIterator[ModelChunk]:
        async for chunk in next(request):
            yield chunk


@pytest.mark.anyio
async def test_errors_are_attributed_to_the_layer_that_raised_not_the_ones_they_pass() -> None:
    agent = Agent(ScriptedModel(["hello"]), middleware=[PassThrough(), BadStream()])
    events = await collect(agent)
    assert of(events, ErrorEvent)[0].source == "BadStream"
    agent = Agent(ScriptedModel([RuntimeError("provider down")]), middleware=[PassThrough()])
    events = await collect(agent)
    assert of(events, ErrorEvent)[0].source == "model"
    assert agent.middleware.stats("PassThrough").errors == 0


class FailsWhenTold(Middleware):
    """One class, several instances: only the one told to fails (same code in every layer)."""

    def __init__(self, name: str, fail_in: str | None = None) -> None:
        self.name = name
        self.fail_in = fail_in

    async def on_model_call(
        self, ctx: HookContext, request: ModelRequest, next: Any
    ) -> AsyncIterator[ModelChunk]:
        async for chunk in next(request):
            if self.fail_in == "on_model_call":
                raise ValueError(f"{self.name} broke")
            yield chunk

    async def on_acting(self, ctx: ToolCallContext, request: ToolRequest, next: Any) -> ToolResult:
        result: ToolResult = await next(request)
        if self.fail_in == "on_acting":
            raise ValueError(f"{self.name} broke")
        return result


@pytest.mark.anyio
@pytest.mark.parametrize("hook", ["on_model_call", "on_acting"])
async def test_an_error_names_the_instance_that_raised_among_layers_of_one_class(hook: str) -> None:
    layers = [FailsWhenTold("outer"), FailsWhenTold("middle", hook), FailsWhenTold("inner")]
    agent = Agent(ScriptedModel([calls(("add", {"x": 1, "y": 1})), "ok"]), tools=[add], middleware=layers)
    events = await collect(agent)
    (error,) = of(events, ErrorEvent)
    assert error.source == "middle" and f"failed in {hook}" in error.error
    assert [agent.middleware.stats(n).errors for n in ("outer", "middle", "inner")] == [0, 1, 0]
    assert history_is_valid(agent.messages)


# -- toggles, tools, state, emit, ask -------------------------------------------------------


class SwitchOffDuringTool(Middleware):
    async def before_tool_call(self, ctx: ToolCallContext) -> BeforeToolCallResult | None:
        ctx.agent.middleware.set_enabled("suffix-x", False)
        return None


@pytest.mark.anyio
async def test_a_toggle_takes_effect_at_the_next_hook_inside_a_reply_in_flight() -> None:
    model = ScriptedModel([calls(("add", {"x": 1, "y": 1})), "ok"])
    agent = Agent(model, tools=[add], middleware=[Suffix("x"), SwitchOffDuringTool()], system_prompt="p")
    await collect(agent)
    assert [r.system_prompt for r in model.requests] == ["p x", "p"]


class Tools(Middleware):
    def __init__(self, name: str, *tools: Any, asynchronous: bool = False) -> None:
        self.name = name
        self._tools = tools
        self.asynchronous = asynchronous

    def list_tools(self) -> Any:
        if self.asynchronous:

            async def later() -> Any:
                return self._tools

            return later()
        return self._tools


@tool
def shout(text: str) -> str:
    """Shout."""
    return text.upper()


@pytest.mark.anyio
async def test_list_tools_of_enabled_middleware_only_each_round() -> None:
    model = ScriptedModel(["a", "b"])
    agent = Agent(model, tools=[add], middleware=[Tools("one", shout), Tools("two", slow, asynchronous=True)])
    await collect(agent)
    assert [t.name for t in model.requests[0].tools] == ["add", "shout", "slow"]
    agent.middleware.set_enabled("one", False)
    await collect(agent)
    assert [t.name for t in model.requests[1].tools] == ["add", "slow"]


@pytest.mark.anyio
async def test_a_middleware_tool_hidden_by_one_of_the_same_name_is_said_once() -> None:
    """The agent's tool wins; the middleware's was dropped silently (finding V9)."""

    @tool(name="add")
    def other_add(x: int, y: int) -> int:
        """Another add."""
        return 0

    model = ScriptedModel(["a", "b"])
    agent = Agent(model, tools=[add], middleware=[Tools("one", other_add, shout), Tools("two", shout)])
    told = [e for e in await collect(agent) + await collect(agent) if isinstance(e, Notice)]
    assert [t.name for t in model.requests[0].tools] == ["add", "shout"]
    assert model.requests[0].tools[0] is add
    assert [(n.level, n.source) for n in told] == [("warning", "one"), ("warning", "two")]
    assert "one: its tool 'add' is never offered" in told[0].text
    assert "two: its tool 'shout' is never offered" in told[1].text


class Remember(Middleware):
    async def on_reply(self, ctx: HookContext, request: ReplyRequest, next: Any) -> AsyncIterator[Event]:
        log.append(f"reply_state={dict(ctx.reply_state)} session_state={dict(ctx.session_state)}")
        ctx.reply_state["seen"] = True
        ctx.session_state["replies"] = ctx.session_state.get("replies", 0) + 1
        async for event in next(request):
            yield event

    async def before_tool_call(self, ctx: ToolCallContext) -> BeforeToolCallResult | None:
        log.append(f"in tool hook: {ctx.reply_state}")
        return None


@pytest.mark.anyio
async def test_reply_state_is_per_reply_session_state_persists() -> None:
    agent = Agent(
        ScriptedModel([calls(("add", {"x": 1, "y": 1})), "a", "b"]), tools=[add], middleware=[Remember()]
    )
    await collect(agent)
    await collect(agent)
    assert log == [
        "reply_state={} session_state={}",
        "in tool hook: {'seen': True}",
        "add(1,1)",
        "reply_state={} session_state={'replies': 1}",
    ]
    assert agent.session_state == {"Remember": {"replies": 2}}


class Announce(Middleware):
    async def before_tool_call(self, ctx: ToolCallContext) -> BeforeToolCallResult | None:
        ctx.emit(Notice("info", f"about to run {ctx.call.name}", self.name))
        ctx.emit(CustomEvent("progress", {"call": ctx.call.id}))
        return None


@pytest.mark.anyio
async def test_emitted_events_enter_the_stream_in_order_with_the_reply_id() -> None:
    agent = Agent(
        ScriptedModel([calls(("add", {"x": 1, "y": 1})), "ok"]), tools=[add], middleware=[Announce()]
    )
    events = await collect(agent)
    names = kinds(events)
    i = names.index("Notice")
    assert names[i - 1 : i + 3] == ["ModelCallEnd", "Notice", "CustomEvent", "ToolExecutionStart"]
    assert {e.reply_id for e in events} == {events[0].reply_id}


class Asker(Middleware):
    async def before_tool_call(self, ctx: ToolCallContext) -> BeforeToolCallResult | None:
        decision = await ctx.ask(ApprovalRequest(ctx.call, ctx.tool, ctx.args))
        log.append(decision.type)
        if decision.type == "reject":
            return BeforeToolCallResult(block=True, reason=decision.message)
        return None


@pytest.mark.anyio
async def test_ask_reaches_the_ui_and_with_no_ui_approvals_are_rejected() -> None:
    async def approve(request: ApprovalRequest) -> ApprovalDecision:
        return ApprovalDecision.approve()

    agent = Agent(
        ScriptedModel([calls(("add", {"x": 1, "y": 1})), "ok"]),
        tools=[add],
        middleware=[Asker()],
        ask=approve,
    )
    events = await collect(agent)
    names = kinds(events)
    assert (
        names.index("ApprovalRequested") < names.index("ApprovalResolved") < names.index("ToolExecutionStart")
    )
    assert of(events, ApprovalResolved)[0].decision.type == "approve"
    assert of(events, ApprovalRequested)[0].request.call.name == "add"

    log.clear()
    agent = Agent(ScriptedModel([calls(("add", {"x": 1, "y": 1})), "ok"]), tools=[add], middleware=[Asker()])
    events = await collect(agent)
    result = of(events, ToolExecutionEnd)[0].result
    assert result.is_error and "No one was there to approve" in str(result.content)
    assert log == ["reject"]


# -- the stack itself ----------------------------------------------------------------------


def test_names_are_unique_and_only_overridden_hooks_are_wired() -> None:
    stack = MiddlewareStack([Suffix("a"), Gate("g", None)])
    with pytest.raises(ValueError, match="already in the stack"):
        stack.add(Suffix("a"))
    assert stack.hooks_of("suffix-a") == ["transform_system_prompt", "transform_context"]
    assert [len(stack._hooks[h]) for h in ("on_reply", "before_tool_call", "transform_context")] == [0, 1, 1]
    assert stack.names() == ["suffix-a", "g"]
    with pytest.raises(KeyError, match="no middleware named 'nope'"):
        stack.set_enabled("nope", True)
    assert Faulty().description == "Breaks in before_tool_call."
    assert Faulty.name == "Faulty"


@pytest.mark.anyio
async def test_stats_count_calls_per_hook_and_time() -> None:
    agent = Agent(
        ScriptedModel([calls(("add", {"x": 1, "y": 1})), "ok"]),
        tools=[add],
        middleware=[Suffix("s"), Wrap("w")],
    )
    await collect(agent)
    stats = agent.middleware.stats("suffix-s")
    assert stats.hooks["transform_system_prompt"].calls == 2
    assert stats.hooks["transform_context"].calls == 2
    assert agent.middleware.stats("w").hooks["on_acting"].calls == 1
    assert stats.time_s >= 0 and agent.middleware.stats("w").time_s >= 0


@pytest.mark.anyio
async def test_reply_end_message_is_the_last_assistant_message() -> None:
    agent = Agent(ScriptedModel([AssistantMessage((TextBlock("done"),))]))
    end = (await collect(agent))[-1]
    assert isinstance(end, ReplyEnd) and end.message == agent.messages[-1]


class Policy(Middleware):
    async def before_tool_call(self, ctx: ToolCallContext) -> BeforeToolCallResult | None:
        from middleware import StopReply

        raise StopReply("Blocked by policy: no tools on Fridays.")


@pytest.mark.anyio
async def test_stop_reply_is_a_deliberate_stop_not_a_failure() -> None:
    agent = Agent(
        ScriptedModel([calls(("add", {"x": 1, "y": 1})), "never"]), tools=[add], middleware=[Policy()]
    )
    events = await collect(agent)
    error = of(events, ErrorEvent)[0]
    assert (error.error, error.source) == ("Blocked by policy: no tools on Fridays.", "Policy")
    assert events[-1].stop_reason == "error"  # type: ignore[union-attr]
    assert history_is_valid(agent.messages)


class Conclude(Middleware):
    async def after_model_response(self, ctx: HookContext, response: AssistantMessage) -> TurnAction | None:
        note = AssistantMessage((TextBlock("Stopped: limit reached."),))
        return TurnAction(inject_messages=(note,), decision="stop")


@pytest.mark.anyio
async def test_an_injected_assistant_message_is_the_reply_end_message() -> None:
    agent = Agent(ScriptedModel([calls(("add", {"x": 1, "y": 1}))]), tools=[add], middleware=[Conclude()])
    end = (await collect(agent))[-1]
    assert isinstance(end, ReplyEnd) and end.message is not None
    assert end.message.text == "Stopped: limit reached."


class Sometimes(Middleware):
    """Steps in and out of its hooks."""

    def __init__(self) -> None:
        self.on = False

    def is_active(self, hook: str) -> bool:
        return self.on

    async def transform_system_prompt(self, ctx: HookContext, prompt: str) -> str:
        return prompt + " [sometimes]"

    async def on_model_call(
        self, ctx: HookContext, request: ModelRequest, next: Any
    ) -> AsyncIterator[ModelChunk]:
        async for chunk in next(request):
            yield TextDelta(chunk.text.upper()) if isinstance(chunk, TextDelta) else chunk


@pytest.mark.anyio
async def test_a_middleware_can_step_out_of_its_hooks_per_instance() -> None:
    mw = Sometimes()
    model = ScriptedModel(["quiet", "quiet"])
    agent = Agent(model, middleware=[mw], system_prompt="p")
    await collect(agent)
    assert model.requests[0].system_prompt == "p" and agent.messages[-1].text == "quiet"  # type: ignore[union-attr]
    assert agent.middleware.stats("Sometimes").calls == 0  # not even a pass-through layer
    mw.on = True
    await collect(agent)
    assert model.requests[1].system_prompt == "p [sometimes]" and agent.messages[-1].text == "QUIET"  # type: ignore[union-attr]


@pytest.mark.anyio
async def test_time_waiting_for_the_user_is_not_the_middlewares_time(monkeypatch: pytest.MonkeyPatch) -> None:
    """The stack's clock moves 1,000 s while the user decides (no real wait, no bound on
    how fast the machine is): all of it is waiting, none of it the middleware's time
    (the hook's own time is measured: the stats were read before, so hooks are timed)."""
    import time

    from middleware import awaited_onion, context, onion_items, stack_slots

    user_time = [0.0]

    def clock() -> float:
        return time.perf_counter() + user_time[0]

    for module in (awaited_onion, context, onion_items, stack_slots):
        monkeypatch.setattr(module, "perf_counter", clock)

    async def slow_user(request: ApprovalRequest) -> ApprovalDecision:
        user_time[0] += 1000.0
        return ApprovalDecision.approve()

    agent = Agent(
        ScriptedModel([calls(("add", {"x": 1, "y": 1})), "ok"]),
        tools=[add],
        middleware=[Asker()],
        ask=slow_user,
    )
    stats = agent.middleware.stats("Asker")  # read before the reply, as the side panel does: hooks are timed
    await collect(agent)
    assert stats.waiting_s >= 1000.0
    assert stats.time_s < 500.0  # the user's 1,000 s are not in it
