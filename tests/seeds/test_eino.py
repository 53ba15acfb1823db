"""Eino's ChatModelAgentMiddleware page, its examples ported: run-local tool stats
(WrapInvokableToolCall + AfterModelRewriteState), the ProcessState migration,
AfterAgent, and the tool filter of BeforeModelRewriteState."""

from __future__ import annotations

from typing import Any

import pytest

from middleware import Middleware
from shell.agent import Agent, tool
from shell.core.events import ReplyEnd
from shell.providers.scripted import ScriptedModel
from tests.helpers import calls, collect

pytestmark = pytest.mark.anyio
logged: list[str] = []


@tool(read_only=True)
def weather(city: str) -> str:
    """The weather in a city."""
    return f"sunny in {city}"


@tool(read_only=True)
def transfer_funds(amount: int) -> str:
    """Move money."""
    return "moved"


class MyMiddleware(Middleware):
    """Record stats after tool call; read them after model call."""

    async def on_acting(self, ctx: Any, request: Any, next: Any) -> Any:
        result = await next(request)
        ctx.run_values["last_tool"] = {"Count": 1, "Name": request.tool.name}
        return result

    async def after_model_response(self, ctx: Any, response: Any) -> None:
        stats = ctx.run_values.get("last_tool")
        if stats is not None:
            logged.append(f"Last tool: {stats['Name']} (count={stats['Count']})")


async def test_run_local_values_carry_tool_stats_to_the_next_model_call() -> None:
    logged.clear()
    agent = Agent(
        ScriptedModel([calls(("weather", {"city": "Oslo"})), "done"]),
        tools=[weather],
        middleware=[MyMiddleware()],
    )
    await collect(agent)
    assert logged == ["Last tool: weather (count=1)"]  # set in the tool wrapper, read after the model
    logged.clear()
    await collect(Agent(ScriptedModel(["no tools"]), middleware=[MyMiddleware()]))
    assert logged == []  # values belong to one run


class Migrated(Middleware):
    """``st.Extra["myKey"] = myValue`` becomes ``SetRunLocalValue(ctx, "myKey", myValue)``."""

    def transform_context(self, ctx: Any, messages: list[Any]) -> list[Any]:
        ctx.run_values.setdefault("myKey", ctx.round)  # write
        logged.append(f"myKey={ctx.run_values['myKey']}")  # read
        return messages


async def test_process_state_extra_migrates_to_run_local_values() -> None:
    logged.clear()
    agent = Agent(
        ScriptedModel([calls(("weather", {"city": "Rome"})), "done"]),
        tools=[weather],
        middleware=[Migrated()],
    )
    await collect(agent)
    assert logged == ["myKey=0", "myKey=0"]  # written in round 0, still there in round 1


class AfterAgentMiddleware(Middleware):
    """AfterAgent: after the agent terminates successfully, never on an error."""

    async def on_reply(self, ctx: Any, request: Any, next: Any) -> Any:
        async for event in next(request):
            if isinstance(event, ReplyEnd) and event.stop_reason in ("end_turn", "stopped"):
                logged.append(f"Agent completed, {len(ctx.messages)} messages total")
            yield event


async def test_after_agent_runs_after_success_only() -> None:
    logged.clear()
    agent = Agent(
        ScriptedModel([calls(("weather", {"city": "Lima"})), "done"]),
        tools=[weather],
        middleware=[AfterAgentMiddleware()],
    )
    await collect(agent)
    assert logged == ["Agent completed, 4 messages total"]
    logged.clear()
    await collect(Agent(ScriptedModel([RuntimeError("model down")]), middleware=[AfterAgentMiddleware()]))
    assert logged == []


class ToolFilter(Middleware):
    """BeforeModelRewriteState: dynamically filter the tools the model is given."""

    def __init__(self, should_include: Any) -> None:
        self.should_include = should_include

    async def transform_context(self, ctx: Any, messages: list[Any]) -> list[Any]:
        ctx.tools = [t for t in ctx.tools if self.should_include(t.name)]
        return messages


async def test_tool_filter_offers_and_allows_only_the_kept_tools() -> None:
    model = ScriptedModel([calls(("transfer_funds", {"amount": 5})), "ok"])
    agent = Agent(
        model, tools=[weather, transfer_funds], middleware=[ToolFilter(lambda n: n != "transfer_funds")]
    )
    await collect(agent)
    assert [t.name for t in model.requests[0].tools] == ["weather"]
    refused = agent.messages[2]
    assert refused.is_error and "not available in this turn" in refused.text  # type: ignore[union-attr]
