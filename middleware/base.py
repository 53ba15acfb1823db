"""The ``Middleware`` base class: sixteen optional hooks.

Implement any subset; the stack wires only the hooks a class overrides, so an
unimplemented hook costs nothing. The defaults here pass everything through, so
``super()`` calls are safe too. Onion hooks may be written as async generators
(``async for x in next(request): yield x``) or as coroutines (``return await
next(request)``); ``next()`` with no argument passes the request the layer got.
A streaming onion hook that only looks at the items may be a plain ``def``
returning ``watch(next(request), each, end=...)`` (:mod:`middleware.watching`):
no generator layer of its own. The other hooks may be ``async def`` or plain ``def``.

Order: **the first middleware in the list is the outermost.** It sees every
request first and every result last, for every hook kind (chains that run "in
reverse" do so precisely so the first middleware has the last word).
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable, Generator, Mapping, Sequence
from typing import Any, ClassVar, Protocol, TypeVar

from shell.core.events import Event
from shell.core.messages import AssistantMessage, Message, ToolCallBlock, ToolResult
from shell.core.model import ModelChunk, ModelRequest
from shell.core.tools import Tool

from .context import HookContext, ToolCallContext
from .types import (
    AfterToolCallResult,
    BeforeToolCallResult,
    CallOutcome,
    CompressRequest,
    ReasoningRequest,
    ReplyRequest,
    ToolRequest,
    TurnAction,
)

ItemT = TypeVar("ItemT", covariant=True)


class NextItems(Protocol[ItemT]):
    """What ``next(request)`` returns in a streaming onion: iterate it (``async for``)
    to see each item, or await it for the hook's result (the message)."""

    def __aiter__(self) -> AsyncIterator[ItemT]: ...
    def __anext__(self) -> Awaitable[ItemT]: ...
    def __await__(self) -> Generator[Any, Any, Any]: ...


ReplyNext = Callable[..., NextItems[Event]]
"""``next(request)``, ``next()`` (the request the layer got) or ``next(**changes)``."""
ReasoningNext = Callable[..., NextItems[Event]]
ModelNext = Callable[..., NextItems[ModelChunk]]


class Middleware:
    """Subclass and override the hooks you need.

    ``name`` defaults to the class name and must be unique in a stack;
    ``description`` is shown in the side panel.
    """

    name: str = ""
    description: str = ""
    HOOKS: ClassVar[tuple[str, ...]] = (
        "on_reply",
        "transform_system_prompt",
        "list_tools",
        "on_compress_context",
        "transform_context",
        "on_reasoning",
        "convert_to_llm",
        "on_model_call",
        "after_model_response",
        "before_tool_call",
        "before_tool_batch",
        "on_acting",
        "after_tool_call",
        "after_turn",
        "should_stop_after_turn",
        "on_error",
    )

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if not cls.__dict__.get("name"):
            cls.name = cls.__name__
        if not cls.__dict__.get("description") and cls.__doc__:
            cls.description = cls.__doc__.strip().split("\n\n")[0].replace("\n", " ")

    # -- onion, streaming: the whole reply ------------------------------------
    async def on_reply(
        self, ctx: HookContext, request: ReplyRequest, next: ReplyNext
    ) -> AsyncIterator[Event]:
        """Sees every event of the reply, ReplyStart to ReplyEnd (inner layers first)."""
        async for event in next(request):
            yield event

    # -- transformer ------------------------------------------------------------
    async def transform_system_prompt(self, ctx: HookContext, prompt: str) -> str:
        """Chained in list order before every model call."""
        return prompt

    # -- tool source ------------------------------------------------------------
    def list_tools(self) -> Sequence[Tool]:
        """Tools this middleware contributes while it is enabled (may be async)."""
        return ()

    # -- onion: context compression (persisted) ------------------------------
    async def on_compress_context(
        self,
        ctx: HookContext,
        request: CompressRequest,
        next: Callable[[CompressRequest], Any],
    ) -> list[Message]:
        """Top of each round; the result replaces the history. Not calling
        ``next`` skips the default (which keeps the history as it is)."""
        result: list[Message] = await next(request)
        return result

    # -- transformer: a view for this model call only ---------------------------
    async def transform_context(self, ctx: HookContext, messages: list[Message]) -> list[Message]:
        """Chained; what the model sees this call. ``ctx.tools`` may be replaced too."""
        return messages

    # -- onion, streaming: one ReAct round's reasoning ------------------------
    async def on_reasoning(
        self, ctx: HookContext, request: ReasoningRequest, next: ReasoningNext
    ) -> AsyncIterator[Event]:
        async for event in next(request):
            yield event

    # -- single owner ---------------------------------------------------------
    async def convert_to_llm(self, ctx: HookContext, messages: list[Message]) -> list[Message]:
        """The last enabled implementation wins; its result is what the model gets."""
        return messages

    # -- onion, streaming: the model call -------------------------------------
    async def on_model_call(
        self, ctx: HookContext, request: ModelRequest, next: ModelNext
    ) -> AsyncIterator[ModelChunk]:
        """``next(request.override(...))``; retry or fall back by calling ``next`` again."""
        async for chunk in next(request):
            yield chunk

    # -- chain, reverse order ---------------------------------------------------
    async def after_model_response(self, ctx: HookContext, response: AssistantMessage) -> TurnAction | None:
        return None

    # -- gate, list order -------------------------------------------------------
    async def before_tool_call(self, ctx: ToolCallContext) -> BeforeToolCallResult | None:
        return None

    # -- gate: every call of a turn, before any runs ----------------------------------
    async def before_tool_batch(
        self, ctx: HookContext, calls: tuple[ToolCallBlock, ...]
    ) -> Mapping[str, BeforeToolCallResult | None] | Sequence[BeforeToolCallResult | None] | None:
        """HPD's BeforeParallelBatch: batch approval, dedup. Answer per call (a dict
        by call id, or a list in call order) or None; ``before_tool_call`` still runs
        for calls not blocked or answered here."""
        return None

    # -- onion: one tool execution -----------------------------------------------
    async def on_acting(
        self,
        ctx: ToolCallContext,
        request: ToolRequest,
        next: Callable[[ToolRequest], Any],
    ) -> ToolResult:
        result: ToolResult = await next(request)
        return result

    # -- chain, reverse order ---------------------------------------------------
    async def after_tool_call(self, ctx: ToolCallContext, result: ToolResult) -> AfterToolCallResult | None:
        return None

    # -- observer: a turn's results ------------------------------------------------
    async def after_turn(self, ctx: HookContext, results: tuple[CallOutcome, ...]) -> None:
        """HPD's AfterIteration: after a turn's tools (empty when it called none)."""
        return None

    # -- predicate: any True stops ------------------------------------------------
    async def should_stop_after_turn(self, ctx: HookContext) -> bool:
        return False

    # -- observer, reverse order ------------------------------------------------
    async def on_error(self, ctx: HookContext, error: BaseException, source: str) -> None:
        """Every error of a reply (model, tool, middleware). Errors raised here are
        logged, never raised."""
        return None

    # -- dynamic wiring ---------------------------------------------------------
    def is_active(self, hook: str) -> bool:
        """Whether this instance takes part in ``hook`` right now.

        Read at every invocation, like the enabled switch. Return False to step out
        of a hook while you have nothing to do there (Tracing with no exporter, say):
        the stack then skips you, so you cost nothing, not even a pass-through layer.
        """
        return True

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.name!r}>"


def overridden_hooks(middleware: Middleware) -> list[str]:
    """The hooks this middleware's class overrides (the ones the stack wires)."""
    cls = type(middleware)
    return [h for h in Middleware.HOOKS if getattr(cls, h) is not getattr(Middleware, h)]
