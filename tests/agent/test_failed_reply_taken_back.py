"""Any error that ends a reply before an answer takes the user's message back
(finding E1). B2 did it for a provider's ModelError only: a middleware that raised
(``transform_system_prompt``, an ``on_model_call`` before its first chunk), a
ChatModel that raised something else, or a limit that stopped the first turn left
the message in the history, and after the error's own advice ("switch it off") the
next message went out glued to it ('first: delete the logs\\n\\nsecond: just list them')."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import pytest

from middleware import Middleware, ToolCallLimit
from shell.agent import AssistantMessage, ToolCallBlock, tool
from shell.agent.loop import Agent
from shell.core.events import ErrorEvent
from shell.providers.scripted import ScriptedModel

pytestmark = pytest.mark.anyio


class PromptSourceDown(Middleware):
    async def transform_system_prompt(self, ctx: Any, prompt: str) -> str:
        raise RuntimeError("prompt source unavailable")


class FailsBeforeAnyChunk(Middleware):
    async def on_model_call(self, ctx: Any, request: Any, next: Any) -> AsyncIterator[Any]:
        raise RuntimeError("cache down")
        yield  # a generator layer, as README's examples write them


@tool
def wr(path: str) -> str:
    """Write a file."""
    return f"wrote {path}"


async def first_then_second(agent: Agent, model: ScriptedModel, off: str | None = None) -> ErrorEvent:
    events = [e async for e in agent.reply("first: delete the logs")]
    [error] = [e for e in events if isinstance(e, ErrorEvent)]
    assert agent.messages == []  # taken back: not kept, not sent again
    assert [m.text for m in error.withdrawn] == ["first: delete the logs"]  # type: ignore[attr-defined]
    assert "taken back out of the conversation" in error.error
    if off:
        agent.middleware.set_enabled(off, False)  # as the error advises
    [e async for e in agent.reply("second: just list them")]
    assert [m.text for m in model.requests[-1].messages] == ["second: just list them"]
    return error


@pytest.mark.parametrize("layer", [PromptSourceDown, FailsBeforeAnyChunk])
async def test_a_middleware_that_fails_before_the_answer_gives_the_message_back(layer: type) -> None:
    model = ScriptedModel(["listed"])
    error = await first_then_second(Agent(model, middleware=[layer()]), model, off=layer.__name__)
    assert f"/middleware {layer.__name__} off" in error.error


async def test_a_chat_model_that_raises_something_else_gives_the_message_back() -> None:
    model = ScriptedModel([ConnectionError("down"), "listed"])
    error = await first_then_second(Agent(model), model)
    assert error.error.startswith("ConnectionError: down.")


async def test_a_limit_that_stops_the_first_turn_gives_the_message_back() -> None:
    turn = AssistantMessage(tuple(ToolCallBlock(f"c{i}", "wr", {"path": p}) for i, p in enumerate("ab")))
    model = ScriptedModel([turn, "listed"])
    agent = Agent(model, tools=[wr], middleware=[ToolCallLimit(run_limit=1, exit_behavior="error")])
    await first_then_second(agent, model, off="ToolCallLimit")


async def test_a_failure_after_part_of_an_answer_keeps_the_message() -> None:
    """Once the model answered (a turn, its tool results), the failure is not the
    message's alone: it stays."""

    class FailsOnTheSecondCall(Middleware):
        calls = 0

        async def on_model_call(self, ctx: Any, request: Any, next: Any) -> AsyncIterator[Any]:
            type(self).calls += 1
            if type(self).calls == 2:
                raise RuntimeError("down now")
            async for chunk in next(request):
                yield chunk

    model = ScriptedModel([AssistantMessage((ToolCallBlock("c1", "wr", {"path": "a"}),)), "done"])
    agent = Agent(model, tools=[wr], middleware=[FailsOnTheSecondCall()])
    events = [e async for e in agent.reply("write a")]
    [error] = [e for e in events if isinstance(e, ErrorEvent)]
    assert error.withdrawn == () and "taken back" not in error.error
    assert agent.messages[0].text == "write a" and len(agent.messages) == 3
