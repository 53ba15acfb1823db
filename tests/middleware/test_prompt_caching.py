"""AnthropicPromptCaching: the cache_control marker, the threshold, other providers."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import pytest

from middleware import HookContext, Middleware
from middleware.base import ModelNext
from middleware.prompt_caching import AnthropicPromptCaching
from shell.agent.loop import Agent
from shell.core.events import ErrorEvent, Event, Notice, ReplyEnd
from shell.core.model import ModelChunk, ModelRequest
from shell.providers.scripted import ScriptedModel

pytestmark = pytest.mark.anyio


class AnthropicLike(ScriptedModel):
    provider = "anthropic"


async def run(agent: Agent, text: str = "hi") -> list[Event]:
    return [e async for e in agent.reply(text)]


async def test_marks_anthropic_requests() -> None:
    model = AnthropicLike(["ok"])
    agent = Agent(model, middleware=[AnthropicPromptCaching(ttl="1h")])
    await run(agent)
    assert model.requests[0].options["cache_control"] == {"type": "ephemeral", "ttl": "1h"}


async def test_marks_requests_of_a_named_anthropic_provider() -> None:
    """[providers.work] type = "anthropic" (a second key, a gateway) is Anthropic's API:
    it got "Prompt caching works with Anthropic models only" and no marker (finding V16)."""
    from shell.config import ProviderSettings, Settings
    from shell.providers.registry import model_from_spec

    settings = Settings(providers={"work": ProviderSettings(type="anthropic", api_key="k", base_url="http://x")})
    named = model_from_spec("work:claude-sonnet-4-5", settings, {})
    seen: list[ModelRequest] = []

    class Seen(Middleware):
        async def on_model_call(
            self, ctx: HookContext, request: ModelRequest, next: ModelNext
        ) -> AsyncIterator[ModelChunk]:
            seen.append(request)
            async for chunk in ScriptedModel(["ok"]).stream(request):  # no network
                yield chunk

    events = await run(Agent(named, middleware=[AnthropicPromptCaching(ttl="1h"), Seen()]))
    assert not [e for e in events if isinstance(e, Notice)]
    assert seen[0].options["cache_control"] == {"type": "ephemeral", "ttl": "1h"}


class MaxTokens(Middleware):
    async def on_model_call(
        self, ctx: HookContext, request: ModelRequest, next: ModelNext
    ) -> AsyncIterator[ModelChunk]:
        async for chunk in next(request.override(options={"max_tokens": 100})):
            yield chunk


async def test_keeps_other_options() -> None:
    model = AnthropicLike(["ok"])
    agent = Agent(model, middleware=[MaxTokens(), AnthropicPromptCaching()])
    await run(agent)
    cache = {"type": "ephemeral", "ttl": "5m"}
    assert model.requests[0].options == {"max_tokens": 100, "cache_control": cache}


async def test_min_messages_to_cache() -> None:
    model = AnthropicLike(["one", "two"])
    agent = Agent(model, middleware=[AnthropicPromptCaching(min_messages_to_cache=3)])
    await run(agent, "first")  # 1 message sent
    await run(agent, "second")  # user, assistant, user: 3 messages
    assert "cache_control" not in model.requests[0].options
    assert model.requests[1].options["cache_control"]["ttl"] == "5m"


async def test_other_provider_warns_once_per_session() -> None:
    model = ScriptedModel(["a", "b"])
    agent = Agent(model, middleware=[AnthropicPromptCaching()])
    first, second = await run(agent), await run(agent)
    assert all("cache_control" not in r.options for r in model.requests)
    warnings = [e for e in first + second if isinstance(e, Notice)]
    assert len(warnings) == 1 and warnings[0].level == "warning"
    assert "Anthropic models only" in warnings[0].text and "scripted" in warnings[0].text


async def test_other_provider_ignored_silently() -> None:
    model = ScriptedModel(["a"])
    agent = Agent(model, middleware=[AnthropicPromptCaching(unsupported_model_behavior="ignore")])
    events = await run(agent)
    assert not any(isinstance(e, Notice) for e in events)
    assert model.requests[0].options == {}


async def test_other_provider_raise_is_a_clear_error() -> None:
    model = ScriptedModel(["a"])
    agent = Agent(model, middleware=[AnthropicPromptCaching(unsupported_model_behavior="raise")])
    events = await run(agent)
    errors = [e for e in events if isinstance(e, ErrorEvent)]
    assert errors and errors[0].source == "AnthropicPromptCaching"
    assert "Anthropic models only" in errors[0].error
    end = events[-1]
    assert isinstance(end, ReplyEnd) and end.stop_reason == "error"
    assert model.requests == []


@pytest.mark.parametrize(
    "kwargs",
    [
        {"type": "persistent"},
        {"ttl": "10m"},
        {"min_messages_to_cache": -1},
        {"unsupported_model_behavior": "x"},
    ],
)
def test_bad_options_rejected(kwargs: dict[str, Any]) -> None:
    with pytest.raises(ValueError):
        AnthropicPromptCaching(**kwargs)
