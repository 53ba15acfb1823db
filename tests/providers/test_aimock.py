"""Integration against aimock (``llmock``): real OpenAI, Anthropic and Ollama wire formats.

The server is started by this module on 127.0.0.1 (a free port) with
``aimock_fixtures.json``. Install it with ``.ci/setup.d/aimock.sh``; the binary is
looked up at ``.ci/node/node_modules/.bin/llmock`` or ``$AIMOCK_BIN``. Missing, the
tests skip locally and fail under ``CI=true`` so CI never skips them silently.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from shell.config import Settings
from shell.core.events import ErrorEvent, ReplyEnd, ToolExecutionEnd
from shell.core.model import ModelError, ModelRequest, TextDelta
from shell.core.tools import tool
from shell.providers.anthropic import AnthropicModel
from shell.providers.base import HTTPProvider
from shell.providers.ollama import OllamaModel
from shell.providers.openai import OpenAIModel
from shell.providers.registry import list_models
from tests.aimock import run_aimock

from .helpers import Assembled

FIXTURES = Path(__file__).parent / "aimock_fixtures.json"


@pytest.fixture(scope="module")
def aimock() -> Iterator[str]:
    with run_aimock(FIXTURES, "-c", "10") as url:
        yield url


MAKERS: dict[str, Callable[[str], HTTPProvider]] = {
    "openai": lambda url: OpenAIModel("gpt-4o", base_url=f"{url}/v1", api_key="test"),
    "anthropic": lambda url: AnthropicModel("claude-sonnet-4-5", base_url=url, api_key="test"),
    "ollama": lambda url: OllamaModel("llama3.2", base_url=url),
}
PROVIDERS = list(MAKERS)


async def ask(model: HTTPProvider, text: str) -> Assembled:
    from shell.core.messages import UserMessage

    request = ModelRequest(model=model, messages=(UserMessage(text),))
    return Assembled([c async for c in model.stream(request)])


@pytest.mark.anyio
@pytest.mark.parametrize("provider", PROVIDERS)
async def test_text(aimock: str, provider: str) -> None:
    got = await ask(MAKERS[provider](aimock), "hello there")
    assert got.text == "Hello from aimock! This is **markdown**."
    assert got.stop == "end_turn" and not got.calls


@pytest.mark.anyio
@pytest.mark.parametrize("provider", PROVIDERS)
async def test_parallel_tool_calls(aimock: str, provider: str) -> None:
    got = await ask(MAKERS[provider](aimock), "weather in two cities")
    ids = ("call_0", "call_1") if provider == "ollama" else ("call_paris", "call_london")
    assert got.text == "Checking both."
    assert got.tool_calls() == [
        (ids[0], "get_weather", {"city": "Paris"}),
        (ids[1], "get_weather", {"city": "London"}),
    ]
    assert got.stop == "tool_use"


@pytest.mark.anyio
@pytest.mark.parametrize("provider", PROVIDERS)
async def test_truncated_stream_keeps_text_and_says_it_dropped(aimock: str, provider: str) -> None:
    from shell.core.messages import UserMessage

    model = MAKERS[provider](aimock)
    text = ""
    with pytest.raises(ModelError) as info:
        async for c in model.stream(ModelRequest(model=model, messages=(UserMessage("cut short"),))):
            if isinstance(c, TextDelta):
                text += c.text
    assert text and "This reply will be cut off".startswith(text[:10])
    assert info.value.message == (
        f"The connection to {model.label} dropped in the middle of the reply; "
        "the text so far is kept. Try again."
    )


@pytest.mark.anyio
@pytest.mark.parametrize("provider", PROVIDERS)
async def test_agent_round_trip_with_tool_calls(aimock: str, provider: str) -> None:
    from shell.agent.loop import Agent

    calls: list[str] = []

    @tool(read_only=True)
    def get_weather(city: str) -> str:
        """The weather in a city."""
        calls.append(city)
        return {"Paris": "sunny", "London": "rainy"}[city]

    agent = Agent(MAKERS[provider](aimock), tools=[get_weather])
    events = [ev async for ev in agent.reply("What's the weather in two cities?")]
    assert not [e for e in events if isinstance(e, ErrorEvent)]
    results = [e.result.text for e in events if isinstance(e, ToolExecutionEnd)]
    assert sorted(results) == ["rainy", "sunny"] and sorted(calls) == ["London", "Paris"]
    end = events[-1]
    assert isinstance(end, ReplyEnd) and end.stop_reason == "end_turn"
    assert end.message is not None and end.message.text == "Paris is sunny and London is rainy."


@pytest.mark.anyio
async def test_list_models_from_aimock(aimock: str) -> None:
    env = {"OLLAMA_HOST": aimock, "OPENAI_BASE_URL": f"{aimock}/v1", "OPENAI_API_KEY": "test"}
    got = await list_models(Settings(), env=env)
    assert isinstance(got["ollama"], list) and "gpt-4o" in got["ollama"]
    assert isinstance(got["openai"], list) and "gpt-4o" in got["openai"]



@pytest.mark.anyio
@pytest.mark.parametrize("question", ["only redacted thinking", "some thinking redacted"])
async def test_redacted_thinking_goes_back_so_the_tool_loop_goes_on(aimock: str, question: str) -> None:
    """With thinking on, the turn after a tool call must start with its thinking,
    redacted blocks included, unchanged (finding V2): aimock's strict mode answers
    400 as the real API does when they are missing."""
    from shell.agent.loop import Agent
    from shell.core.messages import AssistantMessage, ThinkingBlock

    @tool(read_only=True)
    def get_weather(city: str) -> str:
        """The weather in a city."""
        return "sunny"

    model = AnthropicModel(
        "claude-sonnet-4-5", base_url=aimock, api_key="test", headers={"X-AIMock-Strict": "true"},
        options={"thinking": {"type": "enabled", "budget_tokens": 2000}},
    )
    agent = Agent(model, tools=[get_weather])
    events = [ev async for ev in agent.reply(question)]
    assert [e.error for e in events if isinstance(e, ErrorEvent)] == []
    end = events[-1]
    assert isinstance(end, ReplyEnd) and end.message is not None and end.message.text.startswith("It is")
    kept = [b for m in agent.messages if isinstance(m, AssistantMessage) for b in m.content
            if isinstance(b, ThinkingBlock) and b.redacted]
    assert [b.signature for b in kept] == [
        "ENCRYPTEDBLOB==" if question.startswith("only") else "BLOB2=="
    ] and kept[0].text == ""


@pytest.mark.anyio
async def test_reply_budget_holds_when_the_server_ignores_tool_choice(aimock: str) -> None:
    """aimock, like many OpenAI-compatible servers, answers tool_choice="none" with a
    call: the budget still ends the reply within two rounds of being spent, and no
    call made after it runs (finding V4: 51 rounds, 27 times the budget)."""
    from middleware.reply_budget_control import ReplyBudgetControl
    from shell.agent.loop import Agent

    ran: list[str] = []

    @tool(read_only=True)
    def get_weather(city: str) -> str:
        """The weather in a city."""
        ran.append(city)
        return "sunny"

    budget = ReplyBudgetControl(token_budget=1000)
    agent = Agent(MAKERS["openai"](aimock), tools=[get_weather], middleware=[budget])
    events = [ev async for ev in agent.reply("look again and again")]
    assert len(ran) == 2  # 550 then 1,100 weighted tokens: spent after the second call
    refused = [e for e in events if isinstance(e, ToolExecutionEnd) and e.blocked]
    assert len(refused) == 2
    end = events[-1]
    assert isinstance(end, ReplyEnd) and end.stop_reason == "stopped"
    assert end.usage.input_tokens == 2000
