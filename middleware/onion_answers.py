"""What ``await next(request)`` gives a coroutine layer of a streaming onion, and what a
coroutine layer's own answer streams as.

A coroutine layer sees one value where a generator layer sees items: the reply's last
message (``on_reply``), the message its events build (``on_reasoning``), the message
the model's chunks build (``on_model_call``). A layer that answers without calling
``next`` returns a message or plain text, which streams as if the inner layers had
produced it (:func:`answer_items`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any

from shell.core.assembly import ChunkAssembler, ChunkCollector, MessageBuilder, message_chunks
from shell.core.events import Event, ModelCallEnd, ReplyEnd
from shell.core.messages import AssistantMessage, TextBlock
from shell.core.model import StopChunk

if TYPE_CHECKING:
    from .context import ReplyRun


class _LastReplyMessage:
    __slots__ = ("message",)

    def __init__(self) -> None:
        self.message: AssistantMessage | None = None

    def add(self, event: Any) -> None:
        if type(event) is ReplyEnd:
            self.message = event.message

    def result(self) -> AssistantMessage | None:
        return self.message


class _EventMessage:
    __slots__ = ("builder",)

    def __init__(self) -> None:
        self.builder = MessageBuilder()

    def add(self, event: Any) -> None:
        self.builder.see(event)

    def result(self) -> AssistantMessage | None:
        return None if self.builder.empty else self.builder.message()


COLLECTORS: dict[str, Callable[[], Any]] = {
    "on_reply": _LastReplyMessage,
    "on_reasoning": _EventMessage,
    "on_model_call": ChunkCollector,
}


def _as_message(value: Any) -> AssistantMessage | None:
    if isinstance(value, AssistantMessage):
        return value
    if isinstance(value, str):
        return AssistantMessage((TextBlock(value),))
    return None


def answer_items(hook: str, run: ReplyRun, value: Any) -> Iterable[Any]:
    """What a coroutine layer's own answer streams as: a message or plain text
    becomes chunks (``on_model_call``) or block events; an iterable is its items."""
    message = _as_message(value)
    if message is None:
        if isinstance(value, Iterable):
            return value
        raise TypeError(
            f"{hook} returned {type(value).__name__}; return what next() returned, "
            "an AssistantMessage, plain text, or the items to stream"
        )
    chunks = list(message_chunks(message))
    if hook == "on_model_call":
        if not any(isinstance(c, StopChunk) for c in chunks):
            chunks.append(StopChunk("end_turn"))
        return chunks
    assembler = ChunkAssembler(run.reply_id, run.block_ids)
    events: list[Event] = []
    for chunk in chunks:
        events.extend(assembler.feed(chunk))
    events.extend(assembler.finish())
    if hook == "on_reply":  # no model was called: only the blocks
        events = [e for e in events if not isinstance(e, ModelCallEnd)]
    return events
