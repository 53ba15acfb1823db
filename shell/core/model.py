"""The model protocol: what the loop asks of any chat model.

A provider implements ``stream(request)`` and yields :data:`ModelChunk` values;
the loop assembles them into blocks and events. Provider failures are raised as
:class:`ModelError` with a message that says what to do.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import AsyncIterator, Callable, Mapping, Sequence
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal, Protocol, TypeAlias, runtime_checkable

from .messages import Message, Usage

if TYPE_CHECKING:
    from .tools import Tool

NoticeLevel: TypeAlias = Literal["info", "warning", "error"]
ToolChoice: TypeAlias = str | None
"""``None`` or ``"auto"`` (the model decides), ``"none"``, ``"required"``, or a tool name."""


@dataclass(frozen=True, slots=True)
class TextDelta:
    text: str


@dataclass(frozen=True, slots=True)
class ThinkingDelta:
    text: str
    signature: str | None = None
    redacted: bool = False
    """A whole redacted thinking block (its encrypted data in ``signature``, no text):
    a block of its own, see :class:`~.messages.ThinkingBlock`."""


@dataclass(frozen=True, slots=True)
class ToolCallDelta:
    """A piece of a tool call. ``id`` and ``name`` arrive with the first piece of a
    call (some servers repeat them); ``index`` keeps parallel calls apart."""

    index: int
    id: str | None = None
    name: str | None = None
    args_delta: str = ""


@dataclass(frozen=True, slots=True)
class UsageChunk:
    usage: Usage


@dataclass(frozen=True, slots=True)
class StopChunk:
    reason: str
    """``end_turn``, ``tool_use``, ``max_tokens``, ``refusal`` or a provider's own."""


ModelChunk: TypeAlias = TextDelta | ThinkingDelta | ToolCallDelta | UsageChunk | StopChunk


@runtime_checkable
class ChatModel(Protocol):
    """Anything with a ``name`` and a ``stream(request)`` async iterator of chunks."""

    name: str

    def stream(self, request: ModelRequest) -> AsyncIterator[ModelChunk]: ...


@dataclass(frozen=True, slots=True)
class ModelRequest:
    """One model call. Middleware change it with ``request.override(...)``."""

    model: ChatModel
    system_prompt: str = ""
    messages: tuple[Message, ...] = ()
    tools: tuple[Tool, ...] = ()
    tool_choice: ToolChoice = None
    options: Mapping[str, Any] = field(default_factory=dict)

    def override(self, **changes: Any) -> ModelRequest:
        if "messages" in changes:
            changes["messages"] = tuple(changes["messages"])
        if "tools" in changes:
            changes["tools"] = tuple(changes["tools"])
        return dataclasses.replace(self, **changes)


class ModelError(Exception):
    """A model call failed. ``message`` is for the user: what happened and what to do.

    ``retryable`` tells retry/fallback middleware whether trying again can help.
    ``context_overflow``: the request does not fit the model's context window (the
    provider said so, or answered as servers do then, with nothing at all): the
    agent takes the message just sent back out of the history rather than keep a
    conversation no request can carry.
    """

    def __init__(
        self,
        message: str,
        *,
        status: int | None = None,
        retryable: bool = False,
        provider: str = "",
        context_overflow: bool = False,
    ) -> None:
        super().__init__(message)
        self.message = message
        self.status = status
        self.retryable = retryable
        self.provider = provider
        self.context_overflow = context_overflow


def model_label(model: Any) -> str:
    """``provider:name`` when the model names its provider, else its name."""
    name = str(getattr(model, "name", type(model).__name__))
    provider = getattr(model, "provider", "")
    return f"{provider}:{name}" if provider and provider != name and ":" not in name else name


_GGUF_PATH = re.compile(r"(?:~|\.{0,2})/(?:[^\s/]*/)*([^\s/]+\.gguf)\b", re.IGNORECASE)
"""A local model file as its id (llama-cpp-python's server): its name is enough."""


def shown_label(label: str) -> str:
    """A model label as a screen shows it: a local model file's path cut to its name
    (``llama:/…/site-packages/…/SmolLM2-135M-Instruct.Q4_1.gguf`` filled the welcome)."""
    return _GGUF_PATH.sub(r"\1", label)


def tool_names(tools: Sequence[Tool]) -> list[str]:
    return [t.name for t in tools]


notice_sink: ContextVar[Callable[[str, NoticeLevel], None] | None] = ContextVar("notice_sink", default=None)
"""Set by the agent for the duration of a reply; see :func:`report_notice`."""


def report_notice(text: str, level: NoticeLevel = "warning") -> bool:
    """Tell the user something from inside a model call (a retry, a fallback).

    Providers call this without knowing who listens: inside an agent reply it
    becomes a ``Notice`` event in the reply stream; elsewhere it returns False and
    the caller may log instead.
    """
    sink = notice_sink.get()
    if sink is None:
        return False
    sink(text, level)
    return True


_resolvers: list[Callable[[str], ChatModel]] = []


def register_model_resolver(resolve: Callable[[str], ChatModel]) -> None:
    """Let ``provider:name`` strings stand for models below the providers' layer.

    The providers package registers its resolver when it is imported; middleware
    that takes a model (``ModelFallback("openai:gpt-4o-mini")``) resolves through
    :func:`as_model` without importing the layer above it.
    """
    if resolve not in _resolvers:
        _resolvers.append(resolve)


def as_model(model: ChatModel | str) -> ChatModel:
    """``model`` itself, or the model a ``provider:name`` string names."""
    if not isinstance(model, str):
        return model
    if not _resolvers:
        raise ValueError(
            f"Cannot resolve the model {model!r}: no model resolver is registered. "
            "Import shell.providers (the shell does) or pass a ChatModel object."
        )
    return _resolvers[-1](model)
