"""``ModelFallback``: when the model fails, try the next one (LangChain's
ModelFallbackMiddleware, in AgentScope's ``current_model`` override shape).

``ModelFallback(fallback_a, fallback_b)`` (models, or names such as
``"openai:gpt-4o-mini"``, resolved when first needed): when the current model call fails,
the same request is sent again with ``next(request.override(model=fallback_a))``, then
``fallback_b``, and so on. Each switch is announced with a warning ``Notice`` so the
user knows which model answered. If every model fails, the last error is raised (the
reply ends with it).

A model that fails part way (a dropped stream) falls back too: the engine withdraws
what the failed attempt streamed (``AttemptWithdrawn``: its text leaves the message
and the screen, its tool calls never run), so the fallback's answer is not joined to
half of another. Only the model's own failures trigger a fallback: an error raised by
a middleware inside this one (a call limit, say) keeps its meaning and passes
through; switching models would not help.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import aclosing
from typing import ClassVar

from shell.core.events import Notice
from shell.core.model import ChatModel, ModelChunk, ModelError, ModelRequest, as_model, model_label

from .base import Middleware, ModelNext
from .context import HookContext
from .stack import error_source


def _label(model: ChatModel | str) -> str:
    return model if isinstance(model, str) else model_label(model)


def _reason(exc: Exception) -> str:
    return exc.message if isinstance(exc, ModelError) else f"{type(exc).__name__}: {exc}"


class ModelFallback(Middleware):
    """On a model failure, retry the call with each fallback model in turn."""

    builtin: ClassVar[bool] = True

    def __init__(self, *fallback_models: ChatModel | str) -> None:
        """With no fallback models it stands aside (``is_active`` is False), so the
        side panel can list it before any are configured
        (``[middleware.ModelFallback] models = ["openai:gpt-4o-mini"]``)."""
        self.fallback_models: tuple[ChatModel | str, ...] = fallback_models

    def is_active(self, hook: str) -> bool:
        return bool(self.fallback_models)

    async def on_model_call(
        self, ctx: HookContext, request: ModelRequest, next: ModelNext
    ) -> AsyncIterator[ModelChunk]:
        candidates: list[ChatModel | str] = [request.model, *self.fallback_models]
        for i, model in enumerate(candidates):
            attempt = request if i == 0 else request.override(model=as_model(model))
            try:
                async with aclosing(next(attempt)) as chunks:  # type: ignore[type-var]
                    async for chunk in chunks:
                        yield chunk
                return
            except Exception as exc:
                last = i == len(candidates) - 1
                if last or error_source(exc, "model") != "model":
                    raise
                following = candidates[i + 1]
                ctx.emit(
                    Notice(
                        "warning",
                        f"Model {_label(model)} failed ({_reason(exc)}); "
                        f"falling back to {_label(following)}.",
                        self.name,
                    )
                )
