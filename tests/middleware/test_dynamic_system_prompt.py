"""DynamicSystemPrompt: a fresh "Current Context" section on every model call."""

from __future__ import annotations

import os
from datetime import datetime
from pathlib import Path

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


async def test_the_sessions_working_directory_not_the_processs(tmp_path: Path,
                                                                monkeypatch: pytest.MonkeyPatch) -> None:
    """--cwd (and an ACP session's cwd) set the workspace apart from the process's
    directory: the prompt said both, and its "current" one was the process's (B8)."""
    from shell.config import load_config
    from shell.runtime import RuntimeOptions, ShellRuntime

    monkeypatch.setenv("AGENT_SHELL_CONFIG_DIR", str(tmp_path / "config"))
    monkeypatch.setenv("AGENT_SHELL_DATA_DIR", str(tmp_path / "data"))
    started, work = tmp_path / "started", tmp_path / "work"
    started.mkdir()
    work.mkdir()
    monkeypatch.chdir(started)
    (tmp_path / "config.toml").write_text("")
    model = ScriptedModel(["ok"])
    rt = ShellRuntime.create(
        RuntimeOptions(cwd=str(work), record=False, middleware_on=["DynamicSystemPrompt"]),
        settings=load_config(tmp_path / "config.toml"), model=model,
    )
    [e async for e in rt.reply("hi")]
    context = model.requests[0].system_prompt.split("## Current Context\n", 1)[1]
    assert f"Working directory: {work.resolve()}" in context
    assert str(started) not in model.requests[0].system_prompt
