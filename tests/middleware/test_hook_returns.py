"""What a hook returns is checked: a wrong kind of value is that middleware's failure.

DESIGN.md: "An error raised inside a middleware is that middleware's
(`ErrorEvent.source` is its name), never the model's or a tool's." A hook that
returns the wrong thing is the middleware's mistake too; before, it failed later in
the loop and was blamed on the model or the agent, and a gate's wrong answer let
the tool run.
"""

from __future__ import annotations

from typing import Any

import pytest

from middleware import BeforeToolCallResult, Middleware
from shell.agent import Agent, ToolResult, tool
from shell.core.events import ErrorEvent, ReplyEnd, ToolExecutionEnd, ToolExecutionStart
from shell.providers.scripted import ScriptedModel
from tests.helpers import calls, collect, history_is_valid, of

pytestmark = pytest.mark.anyio

ran: list[str] = []


@tool
def write(path: str) -> str:
    """Write a file."""
    ran.append(path)
    return f"wrote {path}"


def _odd(hook: str, body: Any) -> Middleware:
    return type("Odd", (Middleware,), {hook: body})()  # type: ignore[no-any-return]


async def _gate_says_no(self: Any, ctx: Any) -> Any:
    return False


async def test_a_gate_that_answers_with_something_else_fails_closed_and_is_named() -> None:
    """DESIGN.md: "`before_tool_call(ctx)` → `BeforeToolCallResult` | gate | list order;
    … the first `block` or `result` short-circuits". A gate that returns ``False``
    (or "deny") meant something; read as "no objection", the tool ran."""
    ran.clear()
    agent = Agent(ScriptedModel([calls(("write", {"path": "a"})), "ok"]), tools=[write])
    agent.middleware.add(_odd("before_tool_call", _gate_says_no))
    events = await collect(agent)
    assert ran == [] and not of(events, ToolExecutionStart)
    (error,) = of(events, ErrorEvent)
    assert error.source == "Odd" and "BeforeToolCallResult" in error.error
    assert events[-1].stop_reason == "error"  # type: ignore[union-attr]
    assert history_is_valid(agent.messages)


async def _prompt_none(self: Any, ctx: Any, prompt: str) -> Any:
    return None


async def _view_none(self: Any, ctx: Any, messages: Any) -> Any:
    return None


async def _action_message(self: Any, ctx: Any, response: Any) -> Any:
    return response


async def _after_text(self: Any, ctx: Any, result: Any) -> Any:
    return "redacted"


async def _acting_none(self: Any, ctx: Any, request: Any, next: Any) -> Any:
    await next(request)


async def _compress_number(self: Any, ctx: Any, request: Any, next: Any) -> Any:
    return 5


def _tools_of_names(self: Any) -> Any:
    return ["search"]


async def _batch_true(self: Any, ctx: Any, calls: Any) -> Any:
    return True


@pytest.mark.parametrize(
    ("hook", "body", "should"),
    [
        ("transform_system_prompt", _prompt_none, "str"),
        ("transform_context", _view_none, "list of messages"),
        ("convert_to_llm", _view_none, "list of messages"),
        ("after_model_response", _action_message, "TurnAction"),
        ("after_tool_call", _after_text, "AfterToolCallResult"),
        ("on_acting", _acting_none, "ToolResult"),
        ("on_compress_context", _compress_number, "list of messages"),
        ("list_tools", _tools_of_names, "list of tools"),
        ("before_tool_batch", _batch_true, "BeforeToolCallResult"),
    ],
)
async def test_a_hook_that_returns_the_wrong_kind_of_value_is_that_middlewares_error(
    hook: str, body: Any, should: str
) -> None:
    """DESIGN.md: "An error raised inside a middleware is that middleware's
    (`ErrorEvent.source` is its name), never the model's or a tool's." The error
    says what the hook must return, and the reply ends with a valid history."""
    agent = Agent(ScriptedModel([calls(("write", {"path": "a"})), "ok"]), tools=[write])
    agent.middleware.add(_odd(hook, body))
    events = await collect(agent)
    (error,) = of(events, ErrorEvent)
    assert error.source == "Odd", error
    assert hook in error.error and should in error.error
    assert isinstance(events[-1], ReplyEnd) and events[-1].stop_reason == "error"
    assert history_is_valid(agent.messages)


async def _acting_text(self: Any, ctx: Any, request: Any, next: Any) -> Any:
    return "answered by the middleware"


async def _after_whole_result(self: Any, ctx: Any, result: Any) -> Any:
    return ToolResult("replaced whole", is_error=True)


async def test_the_shorthands_the_seeds_use_still_count_as_results() -> None:
    """DESIGN.md: "`result` may be a `ToolResult` or plain text" (a tool result, as
    AgentScope's tool middleware gives it); and ``after_tool_call`` may hand back a
    whole ``ToolResult``, every field of which overrides."""
    ran.clear()
    agent = Agent(ScriptedModel([calls(("write", {"path": "a"})), "ok"]), tools=[write])
    agent.middleware.add(_odd("on_acting", _acting_text))
    events = await collect(agent)
    assert not of(events, ErrorEvent) and ran == []
    assert of(events, ToolExecutionEnd)[0].result == ToolResult("answered by the middleware")

    agent = Agent(ScriptedModel([calls(("write", {"path": "a"})), "ok"]), tools=[write])
    agent.middleware.add(_odd("after_tool_call", _after_whole_result))
    events = await collect(agent)
    assert of(events, ToolExecutionEnd)[0].result == ToolResult("replaced whole", is_error=True)


async def _chunks_as_text(self: Any, ctx: Any, request: Any, next: Any) -> Any:
    async for chunk in next(request):
        yield str(chunk)


async def _events_as_text(self: Any, ctx: Any, request: Any, next: Any) -> Any:
    async for event in next(request):
        yield repr(event)


@pytest.mark.parametrize(
    ("hook", "body", "should"),
    [
        ("on_model_call", _chunks_as_text, "TextDelta"),
        ("on_reasoning", _events_as_text, "events"),
        ("on_reply", _events_as_text, "events"),
    ],
)
async def test_a_streaming_hook_that_yields_the_wrong_kind_of_item_is_that_middlewares_error(
    hook: str, body: Any, should: str
) -> None:
    """DESIGN.md: "An error raised inside a middleware is that middleware's
    (`ErrorEvent.source` is its name)"; `on_model_call` streams chunks, `on_reply` and
    `on_reasoning` stream events. Before, chunks of another kind vanished (the reply
    ended "stopped" with nothing said) and events of another kind crashed the loop,
    blamed on the agent."""
    agent = Agent(ScriptedModel(["hello there"]))
    agent.middleware.add(_odd(hook, body))
    events = await collect(agent)
    (error,) = of(events, ErrorEvent)
    assert error.source == "Odd" and hook in error.error and should in error.error
    assert type(events[0]).__name__ == "ReplyStart"
    assert isinstance(events[-1], ReplyEnd) and events[-1].stop_reason == "error"
    assert history_is_valid(agent.messages)


_BLOCK = BeforeToolCallResult(block=True, reason="not now")


def _two_writes() -> Any:
    return calls(("write", {"path": "x"}, "c0"), ("write", {"path": "z"}, "c1"))


@pytest.mark.parametrize(
    ("answer", "said"),
    [
        # keyed by the tool's name, the natural slip
        ({"write": _BLOCK}, "'write', which is not a call id of this turn (c0, c1)"),
        ({"c0": _BLOCK, "nope": _BLOCK}, "'nope', which is not a call id"),
        ([], "a list of 0 for 2 call(s)"),
        ([_BLOCK], "a list of 1 for 2 call(s)"),
        ([_BLOCK, _BLOCK, _BLOCK], "a list of 3 for 2 call(s)"),
    ],
)
async def test_a_batch_answer_that_misses_the_turns_calls_runs_none_of_them(answer: Any, said: str) -> None:
    """A gate's wrong answer never lets the call run (docs/MIDDLEWARE.md): a dict keyed
    by something that is not a call id of this turn, or a list of the wrong length, was
    read as "no objection" and the calls it meant to block ran (finding T1). It is that
    middleware's error, naming the ids, and no call of the turn runs."""

    async def batch(self: Any, ctx: Any, turn_calls: Any) -> Any:
        return answer

    ran.clear()
    agent = Agent(ScriptedModel([_two_writes(), "ok"]), tools=[write])
    agent.middleware.add(_odd("before_tool_batch", batch))
    events = await collect(agent)
    (error,) = of(events, ErrorEvent)
    assert error.source == "Odd" and said in error.error, error
    assert ran == [] and not of(events, ToolExecutionStart)
    assert isinstance(events[-1], ReplyEnd) and events[-1].stop_reason == "error"
    assert history_is_valid(agent.messages)


async def test_a_batch_answer_by_call_id_or_in_call_order_still_blocks_just_those_calls() -> None:
    for answer in ({"c1": _BLOCK}, [None, _BLOCK]):

        async def batch(self: Any, ctx: Any, turn_calls: Any, answer: Any = answer) -> Any:
            return answer

        ran.clear()
        agent = Agent(ScriptedModel([_two_writes(), "ok"]), tools=[write])
        agent.middleware.add(_odd("before_tool_batch", batch))
        events = await collect(agent)
        assert ran == ["x"] and not of(events, ErrorEvent)
