"""``AnthropicPromptCaching``: mark requests to Anthropic models for prompt
caching (LangChain's AnthropicPromptCachingMiddleware).

An agent resends the same system prompt, tools and growing history every round;
Anthropic can serve that prefix from a cache at a fraction of the price and
latency, but only where the request asks for it. This middleware only marks the
request: it sets ``options["cache_control"] = {"type": ..., "ttl": ...}``, and
the Anthropic provider puts that marker on the system prompt, the last tool and
the last message (see ``shell.providers.anthropic``). Keeping the *how* in the
provider means the middleware stays provider-agnostic and testable offline.

It acts in ``on_model_call``, so it sees the model really called: put it after
(inside) a ``ModelFallback`` so a fallback to another provider is noticed. Short
conversations below ``min_messages_to_cache`` are sent unmarked (a cache write
costs more than a plain call). With a non-Anthropic model,
``unsupported_model_behavior`` decides: ``"ignore"`` passes the request through,
``"warn"`` (the default) also shows a warning once per session, ``"raise"`` fails
the call with an error that says what to do.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import ClassVar, Literal

from shell.core.events import Notice
from shell.core.model import ModelChunk, ModelRequest, model_label

from .base import Middleware, ModelNext
from .context import HookContext


class UnsupportedModelError(ValueError):
    """Prompt caching was asked of a model that is not Anthropic's."""


class AnthropicPromptCaching(Middleware):
    """Asks Anthropic models to cache the repeated prompt prefix (cheaper, faster)."""

    builtin: ClassVar[bool] = True
    name = "AnthropicPromptCaching"
    description = "Marks requests to Anthropic models for prompt caching of the repeated prefix."

    def __init__(
        self,
        *,
        type: Literal["ephemeral"] = "ephemeral",
        ttl: Literal["5m", "1h"] = "5m",
        min_messages_to_cache: int = 0,
        unsupported_model_behavior: Literal["ignore", "warn", "raise"] = "warn",
    ) -> None:
        if type != "ephemeral":
            raise ValueError("type must be 'ephemeral' (the only cache type Anthropic supports)")
        if ttl not in ("5m", "1h"):
            raise ValueError("ttl must be '5m' or '1h'")
        if min_messages_to_cache < 0:
            raise ValueError("min_messages_to_cache must be >= 0")
        if unsupported_model_behavior not in ("ignore", "warn", "raise"):
            raise ValueError("unsupported_model_behavior must be 'ignore', 'warn' or 'raise'")
        self.type = type
        self.ttl = ttl
        self.min_messages_to_cache = min_messages_to_cache
        self.unsupported_model_behavior = unsupported_model_behavior

    @property
    def cache_control(self) -> dict[str, str]:
        return {"type": self.type, "ttl": self.ttl}

    async def on_model_call(
        self, ctx: HookContext, request: ModelRequest, next: ModelNext
    ) -> AsyncIterator[ModelChunk]:
        if not speaks_anthropic(request.model):
            self._unsupported(ctx, request)
        elif len(request.messages) >= self.min_messages_to_cache:
            request = request.override(options={**request.options, "cache_control": self.cache_control})
        async for chunk in next(request):
            yield chunk

    def _unsupported(self, ctx: HookContext, request: ModelRequest) -> None:
        behavior = self.unsupported_model_behavior
        label = model_label(request.model)
        text = (
            f"Prompt caching works with Anthropic models only; {label} is not one, so its "
            "requests are sent without caching."
        )
        if behavior == "raise":
            raise UnsupportedModelError(
                f"{text} Use an anthropic: model, or set unsupported_model_behavior to 'warn' or 'ignore'."
            )
        if behavior == "warn" and not ctx.session_state.get("warned"):
            ctx.session_state["warned"] = True
            ctx.emit(Notice("warning", f"{text} Switch {self.name} off to hide this warning.", self.name))


def speaks_anthropic(model: object) -> bool:
    """Whether ``model`` talks Anthropic's Messages API. Judged by its class: a named
    provider (``[providers.work] type = "anthropic"``, a second key, a gateway) sets
    the instance's ``provider`` to its own name, and caching never applied to it
    (finding V16)."""
    kind = getattr(type(model), "provider", None)
    if not isinstance(kind, str):
        kind = getattr(model, "provider", "")
    return kind == "anthropic"
