"""From model chunks to events, and from events back to an assistant message.

The loop builds the assistant message from the events that come *out* of the
``on_reasoning`` onion, so a middleware that rewrites the stream (redaction, say)
rewrites what lands in the history too. The other way round, :func:`message_chunks`
streams a finished message (a middleware's own answer) as chunks.
"""

from __future__ import annotations

import json
from collections.abc import Collection, Iterable, Iterator, Mapping
from typing import Any

from .events import (
    AttemptWithdrawn,
    Event,
    ModelCallEnd,
    TextBlockDelta,
    TextBlockEnd,
    TextBlockStart,
    ThinkingBlockDelta,
    ThinkingBlockEnd,
    ThinkingBlockStart,
    ToolCallDelta,
    ToolCallEnd,
    ToolCallStart,
)
from .messages import AssistantMessage, Block, Message, TextBlock, ThinkingBlock, ToolCallBlock, Usage
from .model import ModelChunk, StopChunk, TextDelta, ThinkingDelta, UsageChunk
from .model import ToolCallDelta as ToolCallChunk
from .partial import cap_cancelled, shown_part
from .textsafety import encodable, encodable_value, is_encodable


class _Call:
    __slots__ = ("args", "id", "name", "raw", "started")

    def __init__(self, raw: str, call_id: str, name: str) -> None:
        self.raw = raw  # the provider's id: its later chunks carry that one
        self.id = call_id
        self.name = name
        self.args: list[str] = []
        self.started = False


class NotAChunk(TypeError):
    """Something that is not a model chunk came out of the ``on_model_call`` layers
    (the outermost layer's error: see ``StreamOnion.outermost_failed``)."""


class ChunkAssembler:
    """Turns one model call's chunks into block events (ids unique in the reply)."""

    def __init__(self, reply_id: str, ids: Iterator[int], taken: Collection[str] = ()) -> None:
        self.reply_id = reply_id
        self._ids = ids
        self._taken = set(taken)
        """Call ids the history holds: a provider's id among them is renamed (see ``_fresh``)."""
        self._open: tuple[str, str] | None = None  # (kind, block_id) of the open text/thinking block
        self._parts: list[str] = []
        self._signature: str | None = None
        self._calls: dict[int, _Call] = {}
        self._order: list[_Call] = []
        self._block_ids: list[str] = []
        """The text and thinking blocks opened so far (what :meth:`withdraw` takes back)."""
        self.usage = Usage()
        self.stop_reason = "end_turn"

    def _new_id(self) -> str:
        return f"{self.reply_id}.{next(self._ids)}"

    def feed(self, chunk: ModelChunk) -> Iterator[Event]:
        if isinstance(chunk, TextDelta):
            if chunk.text:
                yield from self._text(chunk)
        elif isinstance(chunk, ThinkingDelta):
            yield from self._thinking(chunk)
        elif isinstance(chunk, ToolCallChunk):
            yield from self._close()
            yield from self._tool_call(chunk)
        elif isinstance(chunk, UsageChunk):
            self.usage = self.usage + chunk.usage
        elif isinstance(chunk, StopChunk):
            self.stop_reason = chunk.reason
        else:
            raise NotAChunk(
                f"on_model_call yielded {type(chunk).__name__}; it must yield the model's chunks "
                "(TextDelta, ThinkingDelta, ToolCallDelta, UsageChunk, StopChunk), e.g. "
                "'async for chunk in next(request): yield chunk'"
            )

    def _open_block(self, kind: str) -> Iterator[Event]:
        """Close a block of the other kind and open one of ``kind``, unless one is open."""
        if self._open is None or self._open[0] != kind:
            yield from self._close()
            self._open = (kind, self._new_id())
            self._block_ids.append(self._open[1])
            start = TextBlockStart if kind == "text" else ThinkingBlockStart
            yield start(self._open[1], reply_id=self.reply_id)

    def _text(self, chunk: TextDelta) -> Iterator[Event]:
        yield from self._open_block("text")
        assert self._open is not None
        self._parts.append(chunk.text)
        yield TextBlockDelta(self._open[1], chunk.text, reply_id=self.reply_id)

    def _thinking(self, chunk: ThinkingDelta) -> Iterator[Event]:
        if chunk.redacted:  # a whole block of its own, never joined to the thought around it
            yield from self._close()
            yield from self._open_block("thinking")
            assert self._open is not None
            yield ThinkingBlockEnd(self._open[1], "", chunk.signature, True, reply_id=self.reply_id)
            self._open = None
            return
        if chunk.text and self._signature and self._open is not None and self._open[0] == "thinking":
            yield from self._close()  # a signature ends its block: new thought is a block of its own
        yield from self._open_block("thinking")
        assert self._open is not None
        if chunk.signature:
            self._signature = (self._signature or "") + chunk.signature
        if chunk.text:
            self._parts.append(chunk.text)
            yield ThinkingBlockDelta(self._open[1], chunk.text, reply_id=self.reply_id)

    def _tool_call(self, chunk: ToolCallChunk) -> Iterator[Event]:
        rid = self.reply_id
        call = self._calls.get(chunk.index)
        if call is None or (chunk.id and call.raw != chunk.id and call.started and call.args):
            raw = encodable(chunk.id or f"call_{self._new_id()}")
            call = _Call(chunk.id or "", self._fresh(raw), encodable(chunk.name or ""))
            self._calls[chunk.index] = call
            self._order.append(call)
        if chunk.name and not call.name:
            call.name = encodable(chunk.name)
        if not call.started and call.name:
            call.started = True
            yield ToolCallStart(call.id, call.name, reply_id=rid)
        if chunk.args_delta:
            call.args.append(chunk.args_delta)
            if call.started:
                yield ToolCallDelta(call.id, chunk.args_delta, reply_id=rid)

    def _fresh(self, call_id: str) -> str:
        """``call_id``, or a new one if the session or this reply holds it already. Ollama
        numbers calls from ``call_0`` in every answer (and a server may repeat any id):
        every record kept by call id (the user's rejection, an edit, a note, an editor's
        card) then named two calls, and a resumed session showed a call that ran as
        rejected, with the other call's command (finding T8). Letters, digits, ``_`` and
        ``-`` only: Anthropic's ids allow no more."""
        fresh, n = call_id, 1
        while fresh in self._taken:
            fresh, n = f"{call_id}_{n}", n + 1
        self._taken.add(fresh)
        return fresh

    def _close(self) -> Iterator[Event]:
        if self._open is None:
            return
        kind, block_id = self._open
        text = "".join(self._parts)
        if kind == "text":
            yield TextBlockEnd(block_id, text, reply_id=self.reply_id)
        else:
            yield ThinkingBlockEnd(block_id, text, self._signature, reply_id=self.reply_id)
        self._open, self._parts, self._signature = None, [], None

    def finish(self) -> Iterator[Event]:
        """Close what is open, end every tool call, and end the model call."""
        yield from self.abort()
        for call in self._order:
            args, error = parse_args(encodable("".join(call.args)))
            if not call.started:
                yield ToolCallStart(call.id, call.name, reply_id=self.reply_id)
            yield ToolCallEnd(call.id, call.name, args, error, reply_id=self.reply_id)
        yield ModelCallEnd(self.usage, self.stop_reason, reply_id=self.reply_id)

    def abort(self) -> Iterator[Event]:
        """After a failure: close the open text block so the text so far is kept."""
        yield from self._close()

    def withdraw(self) -> AttemptWithdrawn | None:
        """Forget what was fed so far (a failed attempt: a layer is retrying) and say
        which blocks and calls that was; None when nothing was. Ids stay taken, so
        the retry's blocks and calls never share one with a withdrawn block a front
        end was told about; the usage stays (those tokens were spent)."""
        blocks = tuple(self._block_ids)
        calls = tuple(call.id for call in self._order if call.started)
        self._open, self._parts, self._signature = None, [], None
        self._calls, self._order, self._block_ids = {}, [], []
        self.stop_reason = "end_turn"
        if not blocks and not calls:
            return None
        return AttemptWithdrawn(blocks, calls, reply_id=self.reply_id)


MAX_ARGS_DEPTH = 64
"""Nesting of a tool call's arguments read; deeper ones are an argument error. Real
tools take a few levels; a server that sends 1,000 made ``json.loads`` raise
``RecursionError``, which ended the reply as a model error (the text lost, exit 1),
and anything short of that would recurse again in validation or the next request."""


_TOO_DEEP = (
    f"The arguments were nested more than {MAX_ARGS_DEPTH} levels deep, too deep to "
    "read, so the tool was not run; use flatter arguments"
)


def call_ids(messages: Iterable[Message]) -> set[str]:
    """The ids of the tool calls ``messages`` hold (for :class:`ChunkAssembler`'s ``taken``)."""
    return {call.id for m in messages if isinstance(m, AssistantMessage) for call in m.tool_calls}


def parse_args(raw: str) -> tuple[dict[str, Any], str | None]:
    """A tool call's argument text as a dict, or ``({}, why)``: the call then fails
    as an argument error the model reads, never the reply."""
    if not raw.strip():
        return {}, None
    try:
        value = json.loads(raw)
    except json.JSONDecodeError as exc:
        return {}, f"The arguments were not valid JSON ({exc.msg} at position {exc.pos}): {raw[:200]}"
    except RecursionError:
        return {}, _TOO_DEEP
    if value is None:  # ``null`` is not too deep, it is no object at all
        return {}, "The arguments must be a JSON object, not null"
    if too_deep(value, MAX_ARGS_DEPTH):
        return {}, _TOO_DEEP
    if not isinstance(value, dict):
        return {}, f"The arguments must be a JSON object, not {type(value).__name__}"
    if not is_encodable(value):  # a "\udc00" escape: the tool gets U+FFFD, the history stays sendable
        value = encodable_value(value)
    return value, None


def too_deep(value: Any, limit: int) -> bool:
    """Whether a decoded JSON value nests more than ``limit`` containers (iterative)."""
    stack: list[tuple[Any, int]] = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, (dict, list)):
            if depth > limit:
                return True
            children = item.values() if isinstance(item, dict) else item
            stack.extend((child, depth + 1) for child in children if isinstance(child, (dict, list)))
    return False


class MessageBuilder:
    """Rebuilds the assistant message of one round from the events it saw."""

    def __init__(self) -> None:
        self._blocks: dict[str, Block | None] = {}
        self._parts: dict[str, list[str]] = {}
        self._thinking: set[str] = set()
        self.arg_errors: dict[str, str] = {}
        self.usage = Usage()
        self.stop_reason = "end_turn"
        self.left_out = 0
        """Characters a cancelled message was cut by (:func:`.partial.cap_cancelled`)."""
        self.withdrawn: set[str] = set()
        """Blocks and calls of failed attempts (``AttemptWithdrawn``): not in the message."""

    def see(self, event: Event) -> None:
        if isinstance(event, (TextBlockStart, ThinkingBlockStart, ToolCallStart)):
            key = event.call_id if isinstance(event, ToolCallStart) else event.block_id
            self._blocks.setdefault(key, None)
            self._parts.setdefault(key, [])
            if isinstance(event, ThinkingBlockStart):
                self._thinking.add(key)
        elif isinstance(event, (TextBlockDelta, ThinkingBlockDelta)):
            self._parts.setdefault(event.block_id, []).append(event.delta)
        elif isinstance(event, TextBlockEnd):
            self._blocks[event.block_id] = TextBlock(
                encodable(event.text or "".join(self._parts.get(event.block_id, ())))
            )
        elif isinstance(event, ThinkingBlockEnd):
            text = encodable(event.text or "".join(self._parts.get(event.block_id, ())))
            self._blocks[event.block_id] = ThinkingBlock(text, event.signature, event.redacted)
        elif isinstance(event, ToolCallEnd):
            args = event.args if is_encodable(event.args) else encodable_value(event.args)
            self._blocks[event.call_id] = ToolCallBlock(event.call_id, encodable(event.name), args)
            if event.args_error:
                self.arg_errors[event.call_id] = event.args_error
        elif isinstance(event, ModelCallEnd):
            self.usage = self.usage + event.usage
            self.stop_reason = event.stop_reason
        elif isinstance(event, AttemptWithdrawn):
            self.withdrawn.update(event.block_ids, event.call_ids)
            for key in (*event.block_ids, *event.call_ids):
                self._blocks.pop(key, None)
                self._parts.pop(key, None)
                self._thinking.discard(key)
                self.arg_errors.pop(key, None)

    def message(
        self, *, partial_reason: str | None = None, shown: Mapping[str, int] | None = None
    ) -> AssistantMessage:
        """The message; with ``partial_reason`` (cut off), unfinished text is kept
        and unfinished tool calls are dropped. A cancelled one keeps what the front
        end showed of each block (``shown``, by block id) and at most
        :data:`~.partial.CANCELLED_KEEP` characters (:mod:`.partial`)."""
        blocks: list[Block] = []
        cancelled = partial_reason == "cancelled"
        for key, block in self._blocks.items():
            if partial_reason is not None:
                if isinstance(block, ToolCallBlock):
                    continue  # a call that will never run is dropped, not left without a result
                if block is None and key in self._parts and self._parts[key]:
                    parts = encodable("".join(self._parts[key]))
                    block = ThinkingBlock(parts) if key in self._thinking else TextBlock(parts)
            if (cancelled and isinstance(block, (TextBlock, ThinkingBlock)) and shown and key in shown
                    and not (isinstance(block, ThinkingBlock) and block.redacted)):
                text = shown_part(key, block.text, shown)
                if len(text) < len(block.text):
                    block = TextBlock(text) if isinstance(block, TextBlock) else ThinkingBlock(text)
                if not text:
                    continue
            if block is not None:
                blocks.append(block)
        if cancelled:
            blocks, self.left_out = cap_cancelled(blocks)
        return AssistantMessage(tuple(blocks), self.usage, partial_reason or self.stop_reason)

    def shown_message(self, shown: Mapping[str, int]) -> AssistantMessage | None:
        """The finished message as far as the front end showed it when the reply was
        cancelled (``shown``, by block id: a screen still drawing text that had all
        arrived): its text and thinking cut there, its tool calls kept (they get
        their results), capped as a cancelled message is (:mod:`.partial`), marked
        ``cancelled``. ``None`` when all of it was shown."""
        blocks: list[Block] = []
        cut = False
        for key, block in self._blocks.items():
            short = key in shown and shown[key] < len(getattr(block, "text", ""))
            if short and isinstance(block, (TextBlock, ThinkingBlock)):
                cut = True
                text = shown_part(key, block.text, shown)
                if not text:
                    continue
                block = TextBlock(text) if isinstance(block, TextBlock) else ThinkingBlock(text)
            if block is not None:
                blocks.append(block)
        if not cut:
            return None
        blocks, self.left_out = cap_cancelled(blocks)
        return AssistantMessage(tuple(blocks), self.usage, "cancelled")

    @property
    def empty(self) -> bool:
        return not self._blocks


def message_chunks(message: AssistantMessage) -> Iterator[ModelChunk]:
    """A finished message as the chunks a model would stream for it (one per block)."""
    index = 0
    for block in message.content:
        if isinstance(block, TextBlock):
            if block.text:
                yield TextDelta(block.text)
        elif isinstance(block, ThinkingBlock):
            yield ThinkingDelta(block.text, signature=block.signature, redacted=block.redacted)
        elif isinstance(block, ToolCallBlock):
            yield ToolCallChunk(index, id=block.id, name=block.name, args_delta=json.dumps(block.args))
            index += 1
    if message.usage != Usage():
        yield UsageChunk(message.usage)
    yield StopChunk(message.stop_reason)


class ChunkCollector:
    """What ``await next(request)`` returns in ``on_model_call``: the message the
    chunks that went by make (text, thinking, tool calls, usage, stop reason)."""

    __slots__ = ("_assembler", "_builder")

    def __init__(self) -> None:
        self._assembler = ChunkAssembler("", iter(range(1, 1 << 62)))
        self._builder = MessageBuilder()

    def add(self, chunk: ModelChunk) -> None:
        for event in self._assembler.feed(chunk):
            self._builder.see(event)

    def result(self) -> AssistantMessage:
        for event in self._assembler.finish():
            self._builder.see(event)
        return self._builder.message()
