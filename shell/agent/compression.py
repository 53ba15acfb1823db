"""The top of each round: ``on_compress_context``, whose result replaces the history
(Summarization lives there). Skipped at no cost when no middleware implements it."""

from __future__ import annotations

from middleware.types import CompressRequest
from shell.core.messages import Message

from .reply import Reply


async def compress_context(reply: Reply) -> None:
    """``on_compress_context``: the onion's result replaces the history."""
    stack = reply.agent.middleware
    if not stack.has_hook("on_compress_context"):
        return
    run = reply.run

    async def keep(request: CompressRequest) -> list[Message]:
        return list(request.messages)

    result: list[Message] | None = await stack.call(
        "on_compress_context", CompressRequest(tuple(run.history)), keep, "agent", run.context
    )
    if result is None:  # AgentScope's compress_context returns nothing: keep the history
        return
    changed = len(result) != len(run.history)
    if changed or any(a is not b for a, b in zip(result, run.history, strict=True)):
        run.history[:] = result
