"""ReplyBudgetControl: weighted cost per reply, the hint in the view, tool_choice none."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import pytest

from middleware.human_in_the_loop import HumanInTheLoop
from middleware.reply_budget_control import DEFAULT_HINT, ReplyBudgetControl
from shell.agent import (
    ApprovalDecision,
    AssistantMessage,
    HintBlock,
    Message,
    TextBlock,
    ToolCallBlock,
    Usage,
    UserMessage,
    tool,
)
from shell.agent.loop import Agent
from shell.core.events import Event, Notice, ReplyEnd, ToolExecutionEnd
from shell.providers.scripted import ScriptedModel

pytestmark = pytest.mark.anyio


@tool
def search(query: str) -> str:
    """Search."""
    return f"results for {query}"


def tool_turn(call_id: str, input_tokens: int, output_tokens: int) -> AssistantMessage:
    return AssistantMessage(
        (TextBlock("looking"), ToolCallBlock(call_id, "search", {"query": call_id})),
        Usage(input_tokens, output_tokens),
    )


def text_turn(text: str, input_tokens: int = 10, output_tokens: int = 5) -> AssistantMessage:
    return AssistantMessage((TextBlock(text),), Usage(input_tokens, output_tokens))


async def run(agent: Agent, text: str = "go") -> list[Event]:
    return [e async for e in agent.reply(text)]


def hints(messages: tuple[Message, ...] | list[Message]) -> list[str]:
    return [
        b.text
        for m in messages
        if isinstance(m, AssistantMessage)
        for b in m.content
        if isinstance(b, HintBlock)
    ]


async def test_under_budget_nothing_changes() -> None:
    model = ScriptedModel([tool_turn("c1", 10, 10), text_turn("done")])
    agent = Agent(model, tools=[search], middleware=[ReplyBudgetControl(token_budget=1000)])
    events = await run(agent)
    assert [r.tool_choice for r in model.requests] == [None, None]
    assert hints(model.requests[1].messages) == []
    assert not any(isinstance(e, Notice) for e in events)


async def test_spent_budget_adds_hint_and_forbids_tools() -> None:
    # 60 * 1.0 + 20 * 2.0 = 100 = the budget: spent after the first call.
    model = ScriptedModel([tool_turn("c1", 60, 20), text_turn("final")])
    mw = ReplyBudgetControl(token_budget=100, input_token_weight=1.0, output_token_weight=2.0)
    agent = Agent(model, tools=[search], middleware=[mw])
    events = await run(agent)
    second = model.requests[1]
    assert second.tool_choice == "none"
    assert hints(second.messages) == [DEFAULT_HINT]
    # The hint rides on the last assistant message of the view (the one with the call).
    last_assistant = [m for m in second.messages if isinstance(m, AssistantMessage)][-1]
    assert isinstance(last_assistant.content[-1], HintBlock)
    assert last_assistant.tool_calls[0].id == "c1"
    # The history itself never carries the hint.
    assert hints(agent.messages) == []
    notices = [e for e in events if isinstance(e, Notice)]
    assert len(notices) == 1 and notices[0].source == "ReplyBudgetControl"
    assert "100" in notices[0].text


async def test_cost_accumulates_over_calls_within_a_reply() -> None:
    model = ScriptedModel([tool_turn("c1", 50, 10), tool_turn("c2", 50, 10), text_turn("final")])
    agent = Agent(
        model, tools=[search], middleware=[ReplyBudgetControl(token_budget=100, hint_message="WRAP UP")]
    )
    await run(agent)
    # 60 after the first call (under), 120 after the second (spent).
    assert [r.tool_choice for r in model.requests] == [None, None, "none"]
    assert hints(model.requests[1].messages) == []
    assert hints(model.requests[2].messages) == ["WRAP UP"]


async def test_each_reply_starts_with_a_fresh_budget() -> None:
    model = ScriptedModel(
        [tool_turn("c1", 100, 0), text_turn("final"), tool_turn("c2", 10, 0), text_turn("again")]
    )
    agent = Agent(model, tools=[search], middleware=[ReplyBudgetControl(token_budget=50)])
    await run(agent)
    assert model.requests[1].tool_choice == "none"
    await run(agent, "next question")
    assert model.requests[2].tool_choice is None
    assert model.requests[3].tool_choice is None
    assert hints(model.requests[3].messages) == []


async def test_calls_made_after_the_budget_is_spent_do_not_run_and_the_reply_ends() -> None:
    """A server that ignores tool_choice="none" (finding V4): the calls of the rounds
    after the budget was spent are refused with a result that says why, and the
    second such round ends the reply instead of running on to max_rounds."""
    ran: list[str] = []

    @tool
    def look(query: str) -> str:
        """Look."""
        ran.append(query)
        return "seen"

    turns = [AssistantMessage((ToolCallBlock(f"c{i}", "look", {"query": f"q{i}"}),), Usage(20, 20))
             for i in range(1, 8)]
    model = ScriptedModel([*turns, text_turn("final")])
    agent = Agent(model, tools=[look], middleware=[ReplyBudgetControl(token_budget=30)])
    events = await run(agent)
    assert ran == ["q1"]
    refused = [e.result.text for e in events if isinstance(e, ToolExecutionEnd) and e.blocked]
    assert len(refused) == 2 and all("token budget for this reply is used up" in r for r in refused)
    assert [r.tool_choice for r in model.requests] == [None, "none", "none"]
    end = events[-1]
    assert isinstance(end, ReplyEnd) and end.stop_reason == "stopped"
    assert end.message is not None and "kept calling tools" in end.message.text


async def test_nobody_is_asked_about_a_call_the_budget_refuses() -> None:
    asked: list[str] = []

    async def ask(request: Any) -> ApprovalDecision:
        asked.append(request.call.id)
        return ApprovalDecision.approve()

    @tool
    def write(text: str) -> str:
        """Write."""
        return "ok"

    model = ScriptedModel([AssistantMessage((ToolCallBlock("c1", "write", {"text": "a"}),), Usage(80, 30)),
                           AssistantMessage((ToolCallBlock("c2", "write", {"text": "b"}),), Usage(10, 0)),
                           text_turn("final")])
    agent = Agent(model, tools=[write], middleware=[HumanInTheLoop(), ReplyBudgetControl(token_budget=100)],
                  ask=ask)
    events = await run(agent)
    assert asked == ["c1"]
    assert [e.blocked for e in events if isinstance(e, ToolExecutionEnd)] == [False, True]


async def test_a_model_that_answers_after_one_refusal_is_not_stopped() -> None:
    model = ScriptedModel([tool_turn("c1", 60, 60), tool_turn("c2", 10, 10), text_turn("final")])
    agent = Agent(model, tools=[search], middleware=[ReplyBudgetControl(token_budget=100)])
    events = await run(agent)
    assert [e.result.is_error for e in events if isinstance(e, ToolExecutionEnd)] == [False, True]
    end = events[-1]
    assert isinstance(end, ReplyEnd) and end.stop_reason == "end_turn" and end.message is not None
    assert end.message.text == "final"


async def test_budget_state_survives_an_approval_wait() -> None:
    @tool
    def write(text: str) -> str:
        """Write."""
        return "ok"

    model = ScriptedModel(
        [
            AssistantMessage((ToolCallBlock("c1", "write", {"text": "a"}),), Usage(80, 0)),
            AssistantMessage((ToolCallBlock("c2", "write", {"text": "b"}),), Usage(30, 0)),
            text_turn("final"),
        ]
    )

    async def ask(request: Any) -> ApprovalDecision:
        return ApprovalDecision.approve()

    agent = Agent(
        model, tools=[write], middleware=[ReplyBudgetControl(token_budget=100), HumanInTheLoop()], ask=ask
    )
    await run(agent)
    assert [r.tool_choice for r in model.requests] == [None, None, "none"]


async def test_hint_creates_an_assistant_message_when_there_is_none() -> None:
    mw = ReplyBudgetControl(token_budget=10, hint_message="stop now")
    ctx: Any = SimpleNamespace(reply_state={"cost": 10.0})
    view = await mw.transform_context(ctx, [UserMessage("hi")])
    assert view == [UserMessage("hi"), AssistantMessage((HintBlock("stop now"),))]
    ctx.reply_state["cost"] = 9.0
    assert await mw.transform_context(ctx, [UserMessage("hi")]) == [UserMessage("hi")]


def test_cost_weights_and_validation() -> None:
    mw = ReplyBudgetControl(token_budget=1, input_token_weight=0.5, output_token_weight=3)
    assert mw.cost(Usage(10, 2)) == 11.0
    with pytest.raises(ValueError):
        ReplyBudgetControl(token_budget=0)
    with pytest.raises(ValueError):
        ReplyBudgetControl(token_budget=5, output_token_weight=-1)


async def test_unreported_usage_is_estimated_and_said() -> None:
    """A server that reports no usage (llama-cpp-python) must not count as zero forever."""
    unknown = Usage(unknown=True)
    turns = [
        AssistantMessage((TextBlock("looking"), ToolCallBlock("c1", "search", {"query": "q"})), unknown),
        AssistantMessage((TextBlock("final"),), unknown),
    ]
    model = ScriptedModel(turns)
    agent = Agent(model, tools=[search], middleware=[ReplyBudgetControl(token_budget=100)])
    events = await run(agent, "x" * 800)  # ~200 tokens of input, estimated
    assert [r.tool_choice for r in model.requests] == [None, "none"]
    said = [e.text for e in events if isinstance(e, Notice)]
    assert said[0] == (
        "The model's server does not report token usage, so the reply budget counts an estimate "
        "(about 4 characters a token)."
    )
    assert said[1].startswith("Reply budget spent (") and len(said) == 2
