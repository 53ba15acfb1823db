"""Chat model implementations: real providers over httpx, and the scripted and demo models."""

from __future__ import annotations

from shell.core.model import ChatModel, register_model_resolver


def _resolve(spec: str) -> ChatModel:
    """``provider:name`` -> a model, for layers below this one (``ModelFallback("openai:gpt-4o-mini")``)."""
    from .registry import resolve_model

    return resolve_model(spec)


register_model_resolver(_resolve)
