"""``ContextEditing`` with ``ClearToolUses`` (LangChain's ContextEditingMiddleware
and ClearToolUsesEdit).

Old tool outputs (a file read twenty steps ago, a long search result) are most of
a long agent context and rarely matter any more. When the context grows past
``trigger`` tokens, ``ClearToolUses`` replaces the content of older tool results
with a short placeholder, keeping the newest ``keep`` intact, so the model still
sees *that* a tool ran and with which arguments, but not its stale output.

It runs in ``transform_context``: a view for this model call only. The history
itself (what the session saves, what the user can scroll back to) is unchanged,
and the editing is redone from the full history on every call. The tool call
arguments can be cleared too (``clear_tool_inputs``); ``exclude_tools`` are
never touched. With ``clear_at_least`` set, clearing stops, oldest first, once
that many tokens were freed; otherwise every eligible result is cleared.

``keep`` counts the newest tool results of any tool, excluded ones included, as
LangChain does. Token counts are estimates (``token_count_method="approximate"``:
four characters a token); ``"model"`` uses the model's ``count_tokens(messages)``
when it has one, and a callable ``messages -> int`` may be passed instead.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar, Literal, Protocol, TypeAlias

from shell.core.events import Notice
from shell.core.messages import (
    AssistantMessage,
    HintBlock,
    Message,
    TextBlock,
    ThinkingBlock,
    ToolCallBlock,
    ToolResultMessage,
)

from .base import Middleware
from .context import HookContext

TokenCounter: TypeAlias = Callable[[Sequence[Message]], int]


def approximate_tokens(messages: Sequence[Message]) -> int:
    """About four characters a token, over text, tool calls and tool results."""
    chars = 0
    for m in messages:
        if isinstance(m, AssistantMessage):
            for b in m.content:
                if isinstance(b, (TextBlock, ThinkingBlock, HintBlock)):
                    chars += len(b.text)
                elif isinstance(b, ToolCallBlock):
                    chars += len(b.name) + len(json.dumps(b.args, default=str))
        else:
            chars += len(m.text)
    return (chars + 3) // 4


@dataclass(frozen=True)
class EditReport:
    """What an edit did to one view: how many results it cleared and tokens it freed."""

    cleared: int = 0
    tokens_freed: int = 0


Edited: TypeAlias = "tuple[list[Message], EditReport]"


class ContextEdit(Protocol):
    """A strategy: a new message list (never the input mutated) and what it did."""

    def apply(self, messages: list[Message], count_tokens: TokenCounter) -> Edited: ...


@dataclass(frozen=True)
class ClearToolUses:
    """Clear older tool results once the context exceeds ``trigger`` tokens."""

    trigger: int = 100_000
    clear_at_least: int = 0
    keep: int = 3
    clear_tool_inputs: bool = False
    exclude_tools: Sequence[str] = ()
    placeholder: str = "[cleared]"

    def __post_init__(self) -> None:
        if self.trigger < 0 or self.clear_at_least < 0 or self.keep < 0:
            raise ValueError("trigger, clear_at_least and keep must be >= 0")
        object.__setattr__(self, "exclude_tools", tuple(self.exclude_tools))  # a list from config

    def apply(self, messages: list[Message], count_tokens: TokenCounter) -> Edited:
        if count_tokens(messages) <= self.trigger:
            return messages, EditReport()
        results = [i for i, m in enumerate(messages) if isinstance(m, ToolResultMessage)]
        candidates = results[: len(results) - self.keep] if self.keep else results
        callers = _callers(messages)
        out = list(messages)
        cleared = freed = 0
        for i in candidates:
            if self.clear_at_least and freed >= self.clear_at_least:
                break
            result = out[i]
            assert isinstance(result, ToolResultMessage)
            if result.name in self.exclude_tools or result.content == self.placeholder:
                continue
            new = dataclasses.replace(result, content=self.placeholder)
            freed += count_tokens([result]) - count_tokens([new])
            out[i] = new
            cleared += 1
            j = callers.get(result.call_id)
            if self.clear_tool_inputs and j is not None:
                caller = out[j]
                assert isinstance(caller, AssistantMessage)
                edited = _without_args(caller, result.call_id)
                freed += count_tokens([caller]) - count_tokens([edited])
                out[j] = edited
        return out, EditReport(cleared, max(0, freed))


def _callers(messages: Sequence[Message]) -> dict[str, int]:
    """Tool call id → index of the assistant message that made the call."""
    found: dict[str, int] = {}
    for i, m in enumerate(messages):
        if isinstance(m, AssistantMessage):
            for call in m.tool_calls:
                found[call.id] = i
    return found


def _without_args(message: AssistantMessage, call_id: str) -> AssistantMessage:
    content = tuple(
        ToolCallBlock(b.id, b.name, {}) if isinstance(b, ToolCallBlock) and b.id == call_id else b
        for b in message.content
    )
    return dataclasses.replace(message, content=content)


class ContextEditing(Middleware):
    """Clears old tool outputs from what the model sees once the context grows large."""

    builtin: ClassVar[bool] = True
    name = "ContextEditing"
    description = "Clears older tool results from the model's view once the context grows large."

    def __init__(
        self,
        *,
        edits: Sequence[ContextEdit | Mapping[str, Any]] | None = None,
        token_count_method: Literal["approximate", "model"] | TokenCounter = "approximate",
    ) -> None:
        """``edits`` default to one ``ClearToolUses()``; a mapping (a table in the
        config file) is taken as ``ClearToolUses`` options."""
        if isinstance(token_count_method, str) and token_count_method not in ("approximate", "model"):
            raise ValueError("token_count_method must be 'approximate', 'model' or a callable")
        if edits is None:
            edits = [ClearToolUses()]
        self.edits: list[ContextEdit] = [
            ClearToolUses(**e) if isinstance(e, Mapping) else e for e in edits
        ]
        self.token_count_method = token_count_method

    def counter(self, ctx: HookContext) -> TokenCounter:
        method = self.token_count_method
        if callable(method):
            return method
        if method == "model":
            count: Any = getattr(ctx.agent.model, "count_tokens", None)
            if callable(count):
                return lambda messages: int(count(list(messages)))
        return approximate_tokens

    async def transform_context(self, ctx: HookContext, messages: list[Message]) -> list[Message]:
        count = self.counter(ctx)
        cleared = freed = 0
        for edit in self.edits:
            messages, report = edit.apply(messages, count)
            cleared += report.cleared
            freed += report.tokens_freed
        if cleared and not ctx.reply_state.get("announced"):
            ctx.reply_state["announced"] = True
            ctx.emit(
                Notice(
                    "info",
                    f"Cleared {cleared} older tool result{'s' if cleared != 1 else ''} "
                    f"(~{freed} tokens) from the context sent to the model.",
                    self.name,
                )
            )
        ctx.reply_state["last"] = {"cleared": cleared, "tokens_freed": freed}
        return messages
