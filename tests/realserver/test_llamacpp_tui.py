"""The TUI against the real llama.cpp server (Textual's pilot): Esc mid-stream ends
the reply, the status line says usage is not reported, and the next message works."""

from __future__ import annotations

import asyncio
import time
from typing import Any

import pytest

from shell.agent import Agent
from shell.core.messages import AssistantMessage
from shell.providers.openai import OpenAIModel
from shell.tui.app import AgentShellApp

from .llama import LlamaServer

pytestmark = pytest.mark.anyio


async def until(condition: Any, timeout: float) -> None:
    end = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > end:
            raise AssertionError("condition not reached in time")
        await asyncio.sleep(0.05)


async def test_esc_mid_stream_then_the_next_message(llama: LlamaServer) -> None:
    model = OpenAIModel(
        llama.model_id(), base_url=llama.url, options={"max_tokens": 1500, "temperature": 0.0}
    )
    agent = Agent(model, system_prompt="You are a helpful assistant.")
    app = AgentShellApp(agent, model_label="llama")
    async with app.run_test(size=(100, 30)) as pilot:
        app.prompt.cursor_blink = False
        await pilot.press(*"Write a very long story about the sea.", "enter")
        await until(lambda: app.status.state == "streaming", 120)
        await asyncio.sleep(0.5)
        await pilot.press("escape")
        started = time.monotonic()
        await until(lambda: not app.busy, 5)
        assert time.monotonic() - started < 2
        shown = [str(getattr(w, "text", "")) for w in app.conversation.query("*")]
        assert any("Reply cancelled." in s for s in shown) or "Reply cancelled." in str(app.screen)
        await pilot.press(*"Name a fruit.", "enter")

        def answered() -> bool:  # a quick answer can start and end between two looks at `busy`
            return sum(isinstance(m, AssistantMessage) for m in agent.messages) == 2 and not app.busy

        await until(answered, 120)
        # not "↑0 ↓0" (the status line redraws from the reply's end: wait for it, not for busy)
        await until(lambda: "tokens not reported" in str(app.status.render()), 10)
    answers = [m for m in agent.messages if isinstance(m, AssistantMessage)]
    assert len(answers) == 2 and answers[0].stop_reason == "cancelled" and answers[1].text.strip()
