"""CubePi's hooks page, its examples ported: MaxTurnsMiddleware, a TurnAction that
re-prompts (inject_messages + loop_to_model), and the tool gates' composition."""

from __future__ import annotations

from typing import Any

import pytest

from middleware import AfterToolCallResult, BeforeToolCallResult, Middleware, TurnAction
from shell.agent import Agent, UserMessage, tool
from shell.providers.scripted import ScriptedModel
from tests.helpers import calls, collect

pytestmark = pytest.mark.anyio


@tool(read_only=True)
def look(thing: str) -> str:
    """Look at a thing."""
    return f"a {thing}"


class MaxTurnsMiddleware(Middleware):
    def __init__(self, max_turns: int) -> None:
        self.max_turns = max_turns
        self.turns = 0

    async def should_stop_after_turn(self, ctx: Any) -> bool:
        self.turns += 1
        return self.turns >= self.max_turns


async def test_max_turns_ends_the_run_without_another_model_call() -> None:
    model = ScriptedModel([calls(("look", {"thing": "cat"}))] * 9)
    events = await collect(Agent(model, tools=[look], middleware=[MaxTurnsMiddleware(5)]))
    assert len(model.requests) == 5 and events[-1].stop_reason == "stopped"  # type: ignore[union-attr]


class JsonOnly(Middleware):
    """Structured-output validation with a re-prompt."""

    async def after_model_response(self, ctx: Any, response: Any) -> TurnAction | None:
        if response.text.startswith("{"):
            return None
        return TurnAction(inject_messages=(UserMessage("Answer with JSON only."),), decision="loop_to_model")


async def test_turn_action_injects_and_loops_back_to_the_model() -> None:
    model = ScriptedModel(["Sure! Here it is.", '{"ok": true}'])
    agent = Agent(model, middleware=[JsonOnly()])
    events = await collect(agent)
    assert events[-1].message.text == '{"ok": true}'  # type: ignore[union-attr]
    assert model.requests[1].messages[-1] == UserMessage("Answer with JSON only.")


class Gate(Middleware):
    def __init__(
        self, name: str, verdict: BeforeToolCallResult | None, change: AfterToolCallResult | None
    ) -> None:
        self.name, self.verdict, self.change = name, verdict, change

    async def before_tool_call(self, ctx: Any) -> BeforeToolCallResult | None:
        return self.verdict

    async def after_tool_call(self, ctx: Any, result: Any) -> AfterToolCallResult | None:
        return self.change


async def test_first_block_short_circuits_and_later_after_fields_override() -> None:
    model = ScriptedModel([calls(("look", {"thing": "dog"})), "ok"])
    gates = [
        Gate("first", None, AfterToolCallResult(content="from the first")),  # runs last: its field wins
        Gate(
            "second",
            BeforeToolCallResult(block=True, reason="not today"),
            AfterToolCallResult(is_error=False),
        ),
        Gate("third", BeforeToolCallResult(block=True, reason="never seen"), None),
    ]
    agent = Agent(model, tools=[look], middleware=gates)
    await collect(agent)
    result = agent.messages[2]
    assert result.text == "from the first" and not result.is_error  # type: ignore[union-attr]


async def test_before_tool_call_context_has_the_assistant_message_the_call_and_its_args() -> None:
    seen: list[str] = []

    class Inspect(Middleware):
        async def before_tool_call(self, ctx: Any) -> None:
            seen.append(f"{ctx.call.name}({ctx.args}) from {ctx.assistant_message.text!r}")

    model = ScriptedModel([calls(("look", {"thing": "owl"}), text="checking"), "ok"])
    await collect(Agent(model, tools=[look], middleware=[Inspect()]))
    assert seen == ["look({'thing': 'owl'}) from 'checking'"]
