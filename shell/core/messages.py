"""Content blocks, messages, usage and tool results.

Everything here is a frozen, slotted dataclass: hooks return new values instead of
mutating shared ones, so a middleware can never change a message another one holds.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal, TypeAlias

from .packed_text import PackedText, packed_field, packed_variant, store, stored


@dataclass(frozen=True, slots=True, eq=False)
class TextBlock:
    text: str

    def __eq__(self, other: object) -> bool:
        """Equal to a block with the same text, packed (:class:`PackedTextBlock`) or not."""
        if isinstance(other, TextBlock):
            return self.text == other.text
        return NotImplemented

    def __hash__(self) -> int:
        return hash((self.text,))


class PackedTextBlock(TextBlock):
    """A :class:`TextBlock` whose large text is held as UTF-8 bytes and read back as the
    same ``str`` (a tool result's block, an MCP result's text next to an image, once
    packed: see ``packed_text``). A class of its own, which a block becomes when its text
    is packed, so that every other block's ``text`` stays a plain slot: through the
    packed field's descriptor each read took ~1.3 us instead of ~0.17, and a provider
    builds its request by reading every block of the history (BENCHMARKS.md,
    request_build). Test for it with ``isinstance(block, TextBlock)``."""

    __slots__ = ()


@dataclass(frozen=True, slots=True)
class ThinkingBlock:
    text: str
    signature: str | None = None
    """Provider signature (Anthropic) that must travel back with the block."""
    redacted: bool = False
    """Thinking the provider's safety system encrypted (Anthropic's ``redacted_thinking``):
    ``text`` is empty and ``signature`` holds the encrypted ``data``. It is never shown
    or exported, but it is kept and sent back unchanged, in its place: the API refuses
    a turn whose thinking is missing (a 400 right after a call, finding V2)."""


@dataclass(frozen=True, slots=True)
class ToolCallBlock:
    id: str
    name: str
    args: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class DataBlock:
    media_type: str
    data: bytes


@dataclass(frozen=True, slots=True)
class HintBlock:
    """A reminder injected by middleware (e.g. the budget hint); models see it as text."""

    text: str


Block: TypeAlias = TextBlock | ThinkingBlock | ToolCallBlock | DataBlock | HintBlock


def content_text(content: str | tuple[Block, ...]) -> str:
    """The text of a content value: the string itself or its text blocks joined."""
    if isinstance(content, str):
        return content
    return "".join(b.text for b in content if isinstance(b, (TextBlock, HintBlock)))


@dataclass(frozen=True, slots=True)
class Usage:
    """Token counts. ``unknown`` is True when a server did not report them for (part
    of) what this covers (llama-cpp-python ignores ``include_usage``): the counts are
    then a lower bound, and front ends show them as unknown rather than as zero."""

    input_tokens: int = 0
    output_tokens: int = 0
    cache_read_tokens: int = 0
    cache_write_tokens: int = 0
    unknown: bool = False

    def __add__(self, other: Usage) -> Usage:
        return Usage(
            self.input_tokens + other.input_tokens,
            self.output_tokens + other.output_tokens,
            self.cache_read_tokens + other.cache_read_tokens,
            self.cache_write_tokens + other.cache_write_tokens,
            self.unknown or other.unknown,
        )

    @property
    def total_tokens(self) -> int:
        return self.input_tokens + self.output_tokens


@dataclass(frozen=True, slots=True)
class SystemMessage:
    text: str
    role: Literal["system"] = field(default="system", init=False, repr=False)


@dataclass(frozen=True, slots=True)
class UserMessage:
    content: str | tuple[Block, ...]
    role: Literal["user"] = field(default="user", init=False, repr=False)

    @property
    def text(self) -> str:
        return content_text(self.content)


@dataclass(frozen=True, slots=True)
class AssistantMessage:
    content: tuple[Block, ...] = ()
    usage: Usage = field(default_factory=Usage)
    stop_reason: str = "end_turn"
    role: Literal["assistant"] = field(default="assistant", init=False, repr=False)

    @property
    def text(self) -> str:
        return "".join(b.text for b in self.content if isinstance(b, TextBlock))

    @property
    def tool_calls(self) -> tuple[ToolCallBlock, ...]:
        return tuple(b for b in self.content if isinstance(b, ToolCallBlock))


@dataclass(frozen=True, slots=True)
class ToolResultMessage:
    call_id: str
    name: str
    content: str | tuple[TextBlock | DataBlock, ...]
    is_error: bool = False
    role: Literal["tool"] = field(default="tool", init=False, repr=False)

    @property
    def text(self) -> str:
        return content_text(self.content)


Message: TypeAlias = SystemMessage | UserMessage | AssistantMessage | ToolResultMessage


@dataclass(frozen=True, slots=True)
class ToolResult:
    """What a tool returns. ``terminate`` ends the reply after this tool batch."""

    content: str | tuple[TextBlock | DataBlock, ...] = ""
    is_error: bool = False
    details: Any = None
    terminate: bool = False

    @property
    def text(self) -> str:
        return content_text(self.content)


# A large result is held as UTF-8 bytes and read back as the same str (see
# packed_text): every message that enters the history packs; a ToolResult packs once
# its hooks are done (``shell.agent.tool_call``), so they read plain strings.
packed_field(ToolResultMessage, "content", auto=True)
packed_field(ToolResult, "content", auto=False)
# a result's large text block (an MCP result: text next to an image) becomes a PackedTextBlock
packed_variant(TextBlock, PackedTextBlock, "text")


def tool_result_message(call_id: str, name: str, result: ToolResult) -> ToolResultMessage:
    """The history's message for ``result``, sharing its (packed) text rather than
    decoding and packing it again."""
    message = ToolResultMessage(call_id, name, "", result.is_error)
    store(message, "content", stored(result, "content"))
    return message


def stored_text(item: ToolResult | ToolResultMessage) -> str | PackedText:
    """``item.text`` as held: a packed text stays packed (for :func:`store` into
    another packed field, e.g. the front end's copy of a result)."""
    raw = stored(item, "content")
    return raw if isinstance(raw, PackedText) else content_text(raw)


def result_length(message: ToolResultMessage) -> int:
    """``len(message.text)`` without decoding a packed text (for token estimates)."""
    raw = stored(message, "content")
    return raw.length if isinstance(raw, PackedText) else len(content_text(raw))


def to_message(value: str | Message) -> Message:
    """Accept a plain string as a user message."""
    return UserMessage(value) if isinstance(value, str) else value
