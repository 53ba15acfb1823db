"""An ``after_tool_call`` that raises (finding R4): the call ran, so its result is the
one it had, not "did not complete" and blocked; the failing layer's change is dropped,
the layers after it still apply theirs, and the reply ends with the middleware's error
(named as its source, ``on_error`` told)."""

from __future__ import annotations

from typing import Any

import pytest

from middleware import AfterToolCallResult, HookContext, Middleware, ToolCallContext
from shell.agent import Agent, AssistantMessage, ToolCallBlock, ToolResult, ToolResultMessage, tool
from shell.core.events import ErrorEvent, ToolExecutionEnd
from shell.providers.scripted import ScriptedModel
from tests.helpers import collect, history_is_valid, of

pytestmark = pytest.mark.anyio

WRITTEN: list[str] = []


@tool()
def append(line: str) -> str:
    """Append a line (not idempotent: a model that thinks it failed does it twice)."""
    WRITTEN.append(line)
    return f"appended {line}"


class Breaks(Middleware):
    async def after_tool_call(self, ctx: ToolCallContext, result: ToolResult) -> AfterToolCallResult:
        raise RuntimeError("atc broke")


class Redacts(Middleware):
    """Listed first, so it runs last (reverse order): after the layer that fails."""

    def __init__(self) -> None:
        self.told: list[tuple[str, str]] = []

    async def after_tool_call(self, ctx: ToolCallContext, result: ToolResult) -> AfterToolCallResult:
        return AfterToolCallResult(content=str(result.content).replace("one", "[redacted]"))

    async def on_error(self, ctx: HookContext, error: BaseException, source: str) -> None:
        self.told.append((source, str(error)))


def one_call() -> AssistantMessage:
    return AssistantMessage((ToolCallBlock("c0", "append", {"line": "one"}),))


async def test_a_call_that_ran_keeps_its_result_when_an_after_tool_call_fails() -> None:
    WRITTEN.clear()
    redacts = Redacts()
    agent = Agent(ScriptedModel([one_call(), "done"]), tools=[append], middleware=[redacts, Breaks()])
    events: list[Any] = await collect(agent)
    assert WRITTEN == ["one"]
    [end] = of(events, ToolExecutionEnd)
    assert not end.blocked and not end.result.is_error
    assert end.result.content == "appended [redacted]"  # the later layer still applied its change
    [kept] = [m for m in agent.messages if isinstance(m, ToolResultMessage)]
    assert kept.text == "appended [redacted]" and not kept.is_error
    [error] = of(events, ErrorEvent)
    assert error.source == "Breaks" and "atc broke" in error.error
    assert redacts.told == [("Breaks", "atc broke")]
    assert history_is_valid(agent.messages)


async def test_the_other_calls_of_the_turn_still_read_as_not_run() -> None:
    WRITTEN.clear()
    turn = AssistantMessage((
        ToolCallBlock("c0", "append", {"line": "one"}),
        ToolCallBlock("c1", "append", {"line": "two"}),
    ))
    agent = Agent(ScriptedModel([turn, "done"]), tools=[append], middleware=[Breaks()])
    events: list[Any] = await collect(agent)
    assert WRITTEN == ["one"]  # the reply ended after the first call's failure
    ends = {e.call_id: e for e in of(events, ToolExecutionEnd)}
    assert ends["c0"].result.content == "appended one" and not ends["c0"].blocked
    assert "did not complete" in str(ends["c1"].result.content)
    results = {m.call_id: m for m in agent.messages if isinstance(m, ToolResultMessage)}
    assert results["c0"].text == "appended one" and "did not complete" in results["c1"].text
