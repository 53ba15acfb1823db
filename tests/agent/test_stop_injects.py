"""Messages injected with decision "stop" do not outlive the reply (finding Y15): no
model call reads them, and kept they were sent as part of the user's next message."""

from __future__ import annotations

import pytest

from middleware import HookContext, Middleware, TurnAction
from shell.agent import Agent, AssistantMessage, TextBlock, UserMessage
from shell.core.events import Notice
from shell.providers.openai import to_openai_messages
from shell.providers.scripted import ScriptedModel

pytestmark = pytest.mark.anyio


class StopAndInject(Middleware):
    async def after_model_response(self, ctx: HookContext, response: AssistantMessage) -> TurnAction:
        if ctx.round > 0 or any(m.text == "stopped here" for m in ctx.messages):
            return TurnAction()
        return TurnAction(
            decision="stop",
            inject_messages=(UserMessage("injected-after-stop"),
                             AssistantMessage((TextBlock("stopped here"),))),
        )


async def test_a_user_message_injected_with_stop_is_dropped_and_its_author_told() -> None:
    model = ScriptedModel(["first answer", "second answer"])
    agent = Agent(model, middleware=[StopAndInject()])
    events = [e async for e in agent.reply("go")]
    warned = [e for e in events if isinstance(e, Notice) and e.level == "warning"]
    assert len(warned) == 1 and warned[0].source == "StopAndInject" and "'stop'" in warned[0].text
    assert [m.text for m in agent.messages] == ["go", "first answer", "stopped here"]
    async for _ in agent.reply("next"):
        pass
    sent = to_openai_messages(model.requests[-1])
    assert [m["content"] for m in sent if m["role"] == "user"] == ["go", "next"]
