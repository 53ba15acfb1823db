"""LangChain's built-in middleware page: each built-in under its LangChain options,
importable from the package (``from middleware import ...``), doing what the page says."""

from __future__ import annotations

import pytest

from middleware import (
    PII,
    AnthropicPromptCaching,
    ClearToolUses,
    ContextEditing,
    HumanInTheLoop,
    LLMToolEmulator,
    LLMToolSelector,
    ModelCallLimit,
    ModelFallback,
    Summarization,
    TodoList,
    ToolCallLimit,
    ToolRetry,
)
from shell.agent import Agent, tool
from shell.core.model import ModelError
from shell.providers.scripted import ScriptedModel
from tests.helpers import calls, collect

pytestmark = pytest.mark.anyio


@tool(read_only=True)
def search(query: str) -> str:
    """Search."""
    return f"found {query}"


def test_every_builtin_takes_its_langchain_options() -> None:
    Summarization(
        model="openai:gpt-4o-mini", trigger=[("tokens", 4000), ("messages", 50)], keep=("messages", 20)
    )
    HumanInTheLoop(
        interrupt_on={
            "write_file": True,
            "search": False,
            "run_shell": {"allowed_decisions": ["approve", "reject"]},
        }
    )
    ModelCallLimit(thread_limit=10, run_limit=5, exit_behavior="end")
    ToolCallLimit(tool_name="search", thread_limit=5, run_limit=3, exit_behavior="continue")
    ModelFallback("openai:gpt-4o-mini", "anthropic:claude-3-5-sonnet-latest")
    PII("email", strategy="redact", apply_to_input=True, apply_to_output=True, apply_to_tool_results=True)
    PII("api_key", detector=r"sk-[a-zA-Z0-9]{32}", strategy="block")
    TodoList()
    LLMToolSelector(model="openai:gpt-4o-mini", max_tools=3, always_include=["search"])
    ToolRetry(max_retries=3, backoff_factor=2.0, initial_delay=1.0, max_delay=60.0, jitter=True)
    LLMToolEmulator(tools=["search"], model="anthropic:claude-3-5-sonnet-latest")
    ContextEditing(
        edits=[ClearToolUses(trigger=100000, keep=3, clear_tool_inputs=False, placeholder="[cleared]")]
    )
    AnthropicPromptCaching(ttl="5m", unsupported_model_behavior="ignore")


async def test_model_call_limit_run_limit_ends_gracefully() -> None:
    model = ScriptedModel([calls(("search", {"query": "q"}))] * 5)
    events = await collect(Agent(model, tools=[search], middleware=[ModelCallLimit(run_limit=2)]))
    assert len(model.requests) == 2 and events[-1].stop_reason == "stopped"  # type: ignore[union-attr]


async def test_tool_call_limit_continue_blocks_exceeded_calls_and_lets_the_model_decide() -> None:
    model = ScriptedModel([calls(("search", {"query": "a"}), ("search", {"query": "b"})), "done"])
    agent = Agent(model, tools=[search], middleware=[ToolCallLimit(tool_name="search", run_limit=1)])
    events = await collect(agent)
    results = [m for m in agent.messages if type(m).__name__ == "ToolResultMessage"]
    assert not results[0].is_error and results[1].is_error  # type: ignore[attr-defined]
    assert events[-1].stop_reason == "end_turn"  # type: ignore[union-attr]


async def test_model_fallback_tries_the_fallbacks_in_order() -> None:
    second = ScriptedModel(["from the second fallback"])
    fallbacks = ModelFallback(ScriptedModel([ModelError("down too")]), second)
    events = await collect(Agent(ScriptedModel([ModelError("down")]), middleware=[fallbacks]))
    assert events[-1].message.text == "from the second fallback"  # type: ignore[union-attr]


async def test_pii_redacts_the_input_before_the_model_sees_it() -> None:
    model = ScriptedModel(["ok"])
    await collect(Agent(model, middleware=[PII("email", strategy="redact")]), "mail me at ann@example.com")
    assert model.requests[0].messages[-1].text == "mail me at [REDACTED_EMAIL]"  # type: ignore[union-attr]


async def test_todo_list_gives_the_agent_write_todos() -> None:
    model = ScriptedModel(["ok"])
    await collect(Agent(model, middleware=[TodoList()]))
    assert "write_todos" in [t.name for t in model.requests[0].tools]
