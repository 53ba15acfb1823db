"""DynamicSystemPrompt: a fresh "Current Context" section on every model call."""

from __future__ import annotations

import os
from datetime import datetime

import pytest

from middleware.dynamic_system_prompt import DynamicSystemPrompt, default_context
from shell.agent import AssistantMessage, ToolCallBlock, tool
from shell.agent.loop import Agent
from shell.providers.scripted import ScriptedModel

pytestmark = pytest.mark.anyio


@tool(read_only=True)
def noop() -> str:
    """Do nothing."""
    return ""


async def test_default_context_has_date_and_cwd() -> None:
    model = ScriptedModel(["ok"])
    agent = Agent(model, system_prompt="You help.", middleware=[DynamicSystemPrompt()])
    [e async for e in agent.reply("hi")]
    prompt = model.requests[0].system_prompt
    assert prompt.startswith("You help.\n\n## Current Context\nDate and time: ")
    assert str(datetime.now().year) in prompt
    assert f"Working directory: {os.getcwd()}" in prompt
    assert default_context().count("\n") == 1


async def test_context_fn_is_called_for_every_model_call() -> None:
    count = iter(range(1, 10))
    model = ScriptedModel([AssistantMessage((ToolCallBlock("c", "noop", {}),)), "ok"])
    mw = DynamicSystemPrompt(lambda: f"Step {next(count)}")
    agent = Agent(model, tools=[noop], system_prompt="Base", middleware=[mw])
    [e async for e in agent.reply("hi")]
    assert [r.system_prompt for r in model.requests] == [
        "Base\n\n## Current Context\nStep 1",
        "Base\n\n## Current Context\nStep 2",
    ]


async def test_async_context_fn_and_empty_base_prompt() -> None:
    async def branch() -> str:
        return "Git branch: main"

    model = ScriptedModel(["ok"])
    agent = Agent(model, middleware=[DynamicSystemPrompt(branch)])
    [e async for e in agent.reply("hi")]
    assert model.requests[0].system_prompt == "## Current Context\nGit branch: main"
