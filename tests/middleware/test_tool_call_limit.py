"""ToolCallLimit: global and per-tool, run and thread scopes, continue / error / end."""

from __future__ import annotations

from typing import Any

import pytest

from middleware.tool_call_limit import ToolCallLimit
from shell.agent import AssistantMessage, Tool, ToolCallBlock, ToolResultMessage, tool
from shell.agent.loop import Agent
from shell.core.events import ErrorEvent, Event, ReplyEnd, ToolExecutionEnd
from shell.providers.scripted import ScriptedModel

pytestmark = pytest.mark.anyio


def make_tools(ran: list[str]) -> list[Tool]:
    @tool(read_only=True)
    def search(query: str) -> str:
        """Search."""
        ran.append(f"search:{query}")
        return "found"

    @tool(read_only=True)
    def ping() -> str:
        """Ping."""
        ran.append("ping")
        return "pong"

    return [search, ping]


def s(call_id: str) -> ToolCallBlock:
    return ToolCallBlock(call_id, "search", {"query": call_id})


def p(call_id: str) -> ToolCallBlock:
    return ToolCallBlock(call_id, "ping", {})


def turn(*blocks: ToolCallBlock) -> AssistantMessage:
    return AssistantMessage(blocks)


async def run(agent: Agent, text: str = "go") -> list[Event]:
    return [e async for e in agent.reply(text)]


def results(agent: Agent) -> dict[str, ToolResultMessage]:
    return {m.call_id: m for m in agent.messages if isinstance(m, ToolResultMessage)}


def end_of(events: list[Event]) -> ReplyEnd:
    assert isinstance(events[-1], ReplyEnd)
    return events[-1]


async def test_global_run_limit_blocks_only_calls_past_it() -> None:
    ran: list[str] = []
    model = ScriptedModel([turn(s("c1"), p("c2"), s("c3")), "done"])
    agent = Agent(model, tools=make_tools(ran), middleware=[ToolCallLimit(run_limit=2)])
    events = await run(agent)
    assert sorted(ran) == ["ping", "search:c1"]
    res = results(agent)
    assert not res["c1"].is_error and not res["c2"].is_error
    assert res["c3"].is_error
    assert res["c3"].text == (
        "Tool call limit exceeded: run limit (2/2). Do not call 'search' or any other tool again."
    )
    assert [e.blocked for e in events if isinstance(e, ToolExecutionEnd)].count(True) == 1
    assert end_of(events).stop_reason == "end_turn"  # the model carried on
    assert model.requests[1].messages[-1] == res["c3"]


async def test_run_limit_resets_each_reply() -> None:
    ran: list[str] = []
    model = ScriptedModel([turn(s("c1"), s("c2")), "one", turn(s("c3")), "two"])
    agent = Agent(model, tools=make_tools(ran), middleware=[ToolCallLimit(run_limit=1)])
    await run(agent)
    await run(agent, "again")
    assert ran == ["search:c1", "search:c3"]
    # Blocked calls are not counted: two allowed calls in the session.
    assert agent.session_state["ToolCallLimit"] == {"thread_count": 2}


async def test_per_tool_limit_leaves_other_tools_alone() -> None:
    ran: list[str] = []
    model = ScriptedModel([turn(s("c1"), s("c2"), p("c3"), p("c4")), "done"])
    mw = ToolCallLimit(tool_name="search", run_limit=1)
    assert mw.name == "ToolCallLimit[search]"
    agent = Agent(model, tools=make_tools(ran), middleware=[mw])
    await run(agent)
    assert sorted(ran) == ["ping", "ping", "search:c1"]
    assert results(agent)["c2"].text == (
        "Tool call limit exceeded for 'search': run limit (1/1). Do not call 'search' again."
    )


async def test_thread_limit_spans_replies() -> None:
    ran: list[str] = []
    model = ScriptedModel([turn(s("c1")), "one", turn(s("c2"), s("c3")), "two", turn(s("c4")), "three"])
    agent = Agent(
        model, tools=make_tools(ran), middleware=[ToolCallLimit(tool_name="search", thread_limit=2)]
    )
    await run(agent)
    await run(agent)
    await run(agent)
    assert ran == ["search:c1", "search:c2"]
    res = results(agent)
    assert "thread limit (2/2)" in res["c3"].text and "thread limit (2/2)" in res["c4"].text
    assert agent.session_state["ToolCallLimit[search]"]["thread_count"] == 2


async def test_two_limits_in_one_stack() -> None:
    ran: list[str] = []
    model = ScriptedModel([turn(s("c1"), s("c2"), p("c3"), p("c4"), p("c5")), "done"])
    agent = Agent(
        model,
        tools=make_tools(ran),
        middleware=[ToolCallLimit(tool_name="search", run_limit=1), ToolCallLimit(run_limit=3)],
        tool_execution="sequential",
    )
    await run(agent)
    errors = sorted(cid for cid, m in results(agent).items() if m.is_error)
    # after_model_response runs in reverse order: the global limit lets c1-c3 through
    # and blocks c4, c5; the search limit then blocks c2 (the global one counted it).
    assert errors == ["c2", "c4", "c5"]
    assert ran == ["search:c1", "ping"]
    assert agent.session_state["ToolCallLimit"]["thread_count"] == 3


async def test_error_behavior_raises_before_anything_runs() -> None:
    ran: list[str] = []
    model = ScriptedModel([turn(s("c1"), s("c2"), p("c3")), "never"])
    mw = ToolCallLimit(tool_name="search", run_limit=1, exit_behavior="error")
    agent = Agent(model, tools=make_tools(ran), middleware=[mw])
    events = await run(agent)
    assert ran == []
    errors = [e for e in events if isinstance(e, ErrorEvent)]
    assert len(errors) == 1 and errors[0].source == "ToolCallLimit[search]"
    assert "run limit (1/1)" in errors[0].error
    assert type(errors[0].exception).__name__ == "ToolCallLimitExceededError"
    assert end_of(events).stop_reason == "error"
    # The history stays valid: no tool call without a result.
    ids = {c.id for m in agent.messages if isinstance(m, AssistantMessage) for c in m.tool_calls}
    assert ids <= set(results(agent))


async def test_end_behavior_stops_with_a_tool_message_and_an_ai_message() -> None:
    ran: list[str] = []
    model = ScriptedModel([turn(s("c1")), turn(s("c2"), p("c3")), "never"])
    mw = ToolCallLimit(tool_name="search", run_limit=1, exit_behavior="end")
    agent = Agent(model, tools=make_tools(ran), middleware=[mw])
    events = await run(agent)
    assert ran == ["search:c1", "ping"]
    assert len(model.requests) == 2
    assert end_of(events).stop_reason == "stopped"
    res = results(agent)
    assert res["c2"].is_error and "Do not call 'search' again" in res["c2"].text
    last = agent.messages[-1]
    assert isinstance(last, AssistantMessage)
    assert last.text == "Stopped: the 'search' tool call limit was reached (run limit (1/1))."


def test_validation() -> None:
    with pytest.raises(ValueError, match="thread_limit, run_limit"):
        ToolCallLimit()
    with pytest.raises(ValueError, match="cannot exceed"):
        ToolCallLimit(thread_limit=1, run_limit=2)
    bad: Any = "stop"
    with pytest.raises(ValueError, match="exit_behavior"):
        ToolCallLimit(run_limit=1, exit_behavior=bad)


async def test_a_limit_on_a_tool_that_does_not_exist_says_so_once() -> None:
    """ToolCallLimit(tool_name="serch") limited nothing and said nothing (finding T3):
    a typo'd limit is a warning naming the tools there are, once; a real name, none."""
    from shell.core.events import Notice

    ran: list[str] = []
    model = ScriptedModel([turn(s("c1")), "ok", turn(s("c2")), "ok"])
    agent = Agent(model, tools=make_tools(ran), middleware=[ToolCallLimit(tool_name="serch", run_limit=1)])
    told = [e for e in await run(agent) + await run(agent) if isinstance(e, Notice)]
    assert [(n.level, n.source) for n in told] == [("warning", "ToolCallLimit[serch]")]
    assert "no tool is named 'serch' (tools: ping, search)" in told[0].text
    right = Agent(ScriptedModel([turn(s("c1")), "ok"]), tools=make_tools([]),
                  middleware=[ToolCallLimit(tool_name="search", run_limit=1)])
    assert not [e for e in await run(right) if isinstance(e, Notice)]
