"""Small builders shared by the engine's tests."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

from middleware import HookContext, Middleware, ReplyRequest
from shell.agent import Agent, AssistantMessage, TextBlock, ToolCallBlock
from shell.core.events import Event


def calls(
    *specs: tuple[str, dict[str, Any]] | tuple[str, dict[str, Any], str], text: str = ""
) -> AssistantMessage:
    """An assistant turn that calls tools: ``calls(("add", {"x": 1}), ...)``."""
    blocks: list[Any] = [TextBlock(text)] if text else []
    for n, spec in enumerate(specs):
        name, args = spec[0], spec[1]
        call_id = spec[2] if len(spec) > 2 else f"call_{n}_{name}"  # type: ignore[misc]
        blocks.append(ToolCallBlock(call_id, name, args))
    return AssistantMessage(tuple(blocks))


async def collect(agent: Agent, prompt: Any = "hi") -> list[Event]:
    return [event async for event in agent.reply(prompt)]


def kinds(events: list[Event]) -> list[str]:
    return [type(e).__name__ for e in events]


def of(events: list[Event], kind: type) -> list[Any]:
    return [e for e in events if isinstance(e, kind)]


def history_is_valid(messages: list[Any]) -> bool:
    """Every tool call is followed by exactly one result before the next assistant turn."""
    from shell.agent import ToolResultMessage

    open_calls: set[str] = set()
    for m in messages:
        if isinstance(m, AssistantMessage):
            if open_calls:
                return False
            open_calls = {c.id for c in m.tool_calls}
        elif isinstance(m, ToolResultMessage):
            if m.call_id not in open_calls:
                return False
            open_calls.discard(m.call_id)
    return not open_calls


class Seen(Middleware):
    """An outer ``on_reply`` generator layer: records every event it passes on, and
    that it finished (it did not, when a layer inside it ended the reply early)."""

    def __init__(self) -> None:
        self.events: list[Event] = []
        self.finished = False

    async def on_reply(self, ctx: HookContext, request: ReplyRequest, next: Any) -> AsyncIterator[Event]:
        async for event in next(request):
            self.events.append(event)
            yield event
        self.finished = True
