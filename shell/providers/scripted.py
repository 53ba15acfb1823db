"""``ScriptedModel``: the offline model for tests, demos and bug reports.

Each turn is a string (streamed as text), an ``AssistantMessage`` (its thinking,
text and tool calls streamed as the real providers stream them), an exception (raised
when that turn is reached) or a callable ``request -> turn`` for replies that depend
on what the model was sent. Every ``ModelRequest`` received is kept in ``.requests``.

    model = ScriptedModel([
        AssistantMessage((ToolCallBlock("c1", "read_file", {"path": "a.txt"}),)),
        "The file says hello.",
    ])
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Callable, Sequence
from typing import Any, TypeAlias

import anyio

from shell.core.messages import (
    AssistantMessage,
    HintBlock,
    Message,
    TextBlock,
    ThinkingBlock,
    ToolCallBlock,
    ToolResultMessage,
    Usage,
    UserMessage,
    result_length,
)
from shell.core.model import (
    ModelChunk,
    ModelError,
    ModelRequest,
    StopChunk,
    TextDelta,
    ThinkingDelta,
    ToolCallDelta,
    UsageChunk,
)

Turn: TypeAlias = "str | AssistantMessage | BaseException | Callable[[ModelRequest], Any]"


class ScriptedModel:
    """Replays ``turns`` in order, one per model call."""

    provider = "scripted"

    def __init__(
        self,
        turns: Sequence[Turn] = (),
        *,
        name: str = "scripted",
        chunk_size: int = 4,
        delay: float = 0.0,
        loop: bool = False,
    ) -> None:
        """``chunk_size`` characters per text or argument delta; ``delay`` seconds
        between chunks (to test cancellation and live rendering); ``loop`` starts
        the script over when it runs out instead of failing."""
        self.name = name
        self.turns: list[Turn] = list(turns)
        self.chunk_size = max(1, chunk_size)
        self.delay = delay
        self.loop = loop
        self.requests: list[ModelRequest] = []
        self._next = 0

    @property
    def remaining(self) -> int:
        return len(self.turns) - self._next

    def add(self, *turns: Turn) -> None:
        self.turns.extend(turns)

    async def stream(self, request: ModelRequest) -> AsyncIterator[ModelChunk]:
        self.requests.append(request)
        turn = self._take()
        if callable(turn) and not isinstance(turn, BaseException):
            turn = turn(request)
        if isinstance(turn, BaseException):
            raise turn
        message = AssistantMessage((TextBlock(turn),)) if isinstance(turn, str) else turn
        if not isinstance(message, AssistantMessage):
            raise TypeError(f"a scripted turn must be a str, AssistantMessage or exception, not {message!r}")
        async for chunk in self._chunks(message, request):
            if self.delay:
                await anyio.sleep(self.delay)
            yield chunk

    def _take(self) -> Any:
        if self._next >= len(self.turns):
            if not (self.loop and self.turns):
                raise ModelError(
                    f"The scripted model has no turn left (it had {len(self.turns)}); "
                    "add more turns to the script.",
                    provider="scripted",
                )
            self._next = 0
        turn = self.turns[self._next]
        self._next += 1
        return turn

    async def _chunks(self, message: AssistantMessage, request: ModelRequest) -> AsyncIterator[ModelChunk]:
        n = self.chunk_size
        index = 0
        for block in message.content:
            if isinstance(block, ThinkingBlock):
                for i in range(0, len(block.text), n):
                    yield ThinkingDelta(block.text[i : i + n])
                if block.signature:
                    yield ThinkingDelta("", signature=block.signature)
            elif isinstance(block, TextBlock):
                for i in range(0, len(block.text), n):
                    yield TextDelta(block.text[i : i + n])
            elif isinstance(block, ToolCallBlock):
                args = json.dumps(block.args)
                yield ToolCallDelta(index, id=block.id, name=block.name)
                for i in range(0, len(args), n):
                    yield ToolCallDelta(index, args_delta=args[i : i + n])
                index += 1
        usage = message.usage
        if usage == Usage():
            usage = Usage(estimate_tokens(request), max(1, len(_text_of(message)) // 4))
        yield UsageChunk(usage)
        reason = message.stop_reason
        if message.tool_calls and reason == "end_turn":
            reason = "tool_use"
        yield StopChunk(reason)


def _text_of(message: Message) -> str:
    if isinstance(message, AssistantMessage):
        parts = []
        for b in message.content:
            if isinstance(b, (TextBlock, ThinkingBlock, HintBlock)):
                parts.append(b.text)
            elif isinstance(b, ToolCallBlock):
                parts.append(b.name + json.dumps(b.args))
        return "".join(parts)
    if isinstance(message, (UserMessage, ToolResultMessage)):
        return message.text
    return message.text


def estimate_tokens(request: ModelRequest) -> int:
    """A deterministic estimate (four characters a token) of a request's input."""
    global _last
    messages = tuple(request.messages)
    seen, total = _last
    if seen and len(messages) >= len(seen) and messages[: len(seen)] == seen:
        total += sum(map(_length_of, messages[len(seen) :]))  # a long session: only what is new
    else:
        total = sum(map(_length_of, messages))
    _last = (messages, total)
    return max(1, (len(request.system_prompt) + total) // 4)


_last: tuple[tuple[Message, ...], int] = ((), 0)
"""The last request's messages and their length: the next request of a session
repeats them (compared in one C-level pass) and adds a few."""


_lengths: dict[int, tuple[Message, int]] = {}
"""Each message's length by ``id``, with the message itself held so the id cannot be
reused while it is here (messages are frozen: a length never changes). A long session
sends the same thousands of messages with every request; each is measured once."""


def _length_of(message: Message) -> int:
    known = _lengths.get(id(message))
    if known is not None and known[0] is message:
        return known[1]
    if len(_lengths) >= 100_000:  # bounded: a long test run forgets, then measures again
        _lengths.clear()
    length = result_length(message) if isinstance(message, ToolResultMessage) else len(_text_of(message))
    _lengths[id(message)] = (message, length)
    return length
