"""Where the tokens of the next request go: system prompt, instructions, each tool's
schema, each message of the history, each tool result, each image.

No tokenizer ships for every provider (and none may be downloaded), so each part
is *estimated* with a pre-tokenizer shaped like the BPE ones (words, digit groups,
punctuation, white space: :func:`estimate`), and the estimate is then
*calibrated* against the provider's own count of the last request: the usage it
reported (input + cache reads + cache writes) divided by the estimate of that
same request (``agent.last_request``). The next request is mostly the last one
plus a little, so the calibrated total lands within a few per cent of what the
provider will count, and the parts keep their proportions. Before any request,
or when the provider reports no usage, the numbers are the raw estimate and say so.

Images are not text: their share comes from their pixel size (Anthropic's
``width * height / 750``, at most 1,600 a picture after the provider's resize)
and is left out of the calibration.

:func:`next_request` builds the request as the loop would now: the system prompt
through every enabled ``transform_system_prompt``, the agent's tools and those of
enabled middleware, and the history. (``transform_context`` hooks are not run: one
of them may call a model, which a look at the numbers must not pay for.)
"""

from __future__ import annotations

import json
import math
import re
import struct
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from shell.core.messages import (
    AssistantMessage,
    DataBlock,
    HintBlock,
    Message,
    SystemMessage,
    TextBlock,
    ThinkingBlock,
    ToolCallBlock,
    ToolResultMessage,
    Usage,
    UserMessage,
)
from shell.core.model import ModelRequest
from shell.core.tools import Tool

from .meter import prompt_tokens

Category = Literal["system", "instructions", "tools", "history", "tool_results", "images"]
CATEGORIES: tuple[Category, ...] = ("system", "instructions", "tools", "history", "tool_results", "images")
CATEGORY_NAMES: dict[Category, str] = {
    "system": "System prompt",
    "instructions": "Instructions",
    "tools": "Tool schemas",
    "history": "History",
    "tool_results": "Tool results",
    "images": "Images",
}
MESSAGE_OVERHEAD = 4
"""Tokens a chat template spends on each message's role and separators."""
TOOL_OVERHEAD = 8
IMAGE_MAX_TOKENS = 1600
IMAGE_UNKNOWN_TOKENS = 1600
CALIBRATION_RANGE = (0.25, 4.0)
"""A factor outside this says the usage and the request do not belong together."""

_PIECES = re.compile(
    r"[^\W\d_]+"  # a run of letters (any script)
    r"|\d+"  # a run of digits
    r"|\n[ \t]*"  # a line break and the next line's indentation
    r"|[ \t]+"  # a run of spaces or tabs
    r"|[^\w\s]+"  # a run of punctuation
    r"|_+"  # underscores (snake_case joins)
    r"|\S",
    re.UNICODE,
)


def estimate(text: str) -> float:
    """Tokens in ``text``, as a BPE tokenizer would roughly count them: a word of up
    to eight letters is one token, longer ones a token more per six letters; digits
    go in threes; a run of punctuation is a token per three characters; a line
    break with its indentation one token (a token more per 16 spaces); scripts
    without spaces (CJK) about a token a character. Tuned on prose, code, JSON,
    TOML and tool schemas against a real 49k-entry BPE vocabulary (within about 6%
    of it on each); the calibration takes care of the scale."""
    total = 0.0
    for piece in _PIECES.findall(text):
        first = piece[0]
        n = len(piece)
        if first.isalpha():
            if first.isascii():
                total += 1 if n <= 8 else 1 + (n - 8) / 6
            else:
                total += n * (1.0 if ord(first) > 0x2E80 else 0.5)
        elif first.isdigit():
            total += math.ceil(n / 3)
        elif first == "\n":
            total += 1 + (n - 1) // 16
        elif first in " \t":
            total += 0 if n == 1 else 1 + (n - 1) // 16
        elif first == "_":
            total += 0.5
        else:
            total += math.ceil(n / 3)
    return total


@dataclass(frozen=True, slots=True)
class Part:
    """One row: ``category``, a label for people, and its tokens (calibrated)."""

    category: Category
    label: str
    tokens: float
    index: int | None = None
    """The message's place in the history (1-based), for history and tool results."""


@dataclass(frozen=True, slots=True)
class Breakdown:
    """The next request, part by part. ``total`` is what the provider should count."""

    parts: tuple[Part, ...]
    window: int | None = None
    factor: float = 1.0
    """Provider's count ÷ estimate of the last request (1.0: not calibrated)."""
    calibrated: bool = False
    note: str = ""
    """Why the numbers are a raw estimate, when they are."""
    last_usage: Usage | None = None

    @property
    def total(self) -> int:
        return round(sum(p.tokens for p in self.parts))

    def by_category(self) -> dict[Category, int]:
        sums: dict[Category, float] = {c: 0.0 for c in CATEGORIES}
        for part in self.parts:
            sums[part.category] += part.tokens
        return {c: round(v) for c, v in sums.items()}

    def rows(self, category: Category) -> list[Part]:
        """The category's parts, the biggest first."""
        return sorted((p for p in self.parts if p.category == category), key=lambda p: -p.tokens)


# -- the parts of a request ---------------------------------------------------------------


def tool_text(tool: Tool) -> str:
    """A tool as providers send it: name, description, JSON schema."""
    schema = json.dumps(tool.parameters, ensure_ascii=False, separators=(",", ":"))
    return f"{tool.name}\n{tool.description}\n{schema}"


def _block_text(block: Any) -> str:
    if isinstance(block, (TextBlock, HintBlock, ThinkingBlock)):
        return block.text
    if isinstance(block, ToolCallBlock):
        return f"{block.name} {json.dumps(block.args, ensure_ascii=False)} {block.id}"
    return ""


def message_text(message: Message) -> str:
    if isinstance(message, (SystemMessage,)):
        return message.text
    content = message.content
    if isinstance(content, str):
        return content
    return "\n".join(_block_text(b) for b in content)


def images_of(message: Message) -> list[DataBlock]:
    content = getattr(message, "content", "")
    if isinstance(content, str):
        return []
    return [b for b in content if isinstance(b, DataBlock) and b.media_type.startswith("image/")]


def image_size(data: bytes) -> tuple[int, int] | None:
    """Width and height from a PNG, JPEG, GIF or WebP header (no image library)."""
    try:
        if data[:8] == b"\x89PNG\r\n\x1a\n":
            w, h = struct.unpack(">II", data[16:24])
            return int(w), int(h)
        if data[:6] in (b"GIF87a", b"GIF89a"):
            w, h = struct.unpack("<HH", data[6:10])
            return int(w), int(h)
        if data[:4] == b"RIFF" and data[8:12] == b"WEBP":
            kind = data[12:16]
            if kind == b"VP8X":
                return 1 + int.from_bytes(data[24:27], "little"), 1 + int.from_bytes(data[27:30], "little")
            if kind == b"VP8 ":
                w, h = struct.unpack("<HH", data[26:30])
                return int(w) & 0x3FFF, int(h) & 0x3FFF
            if kind == b"VP8L":
                bits = int.from_bytes(data[21:25], "little")
                return (bits & 0x3FFF) + 1, ((bits >> 14) & 0x3FFF) + 1
        if data[:2] == b"\xff\xd8":
            i = 2
            while i + 9 < len(data):
                if data[i] != 0xFF:
                    i += 1
                    continue
                marker = data[i + 1]
                if marker in (0xC0, 0xC1, 0xC2, 0xC3, 0xC5, 0xC6, 0xC7, 0xC9, 0xCA, 0xCB, 0xCD, 0xCE, 0xCF):
                    h, w = struct.unpack(">HH", data[i + 5 : i + 9])
                    return int(w), int(h)
                if marker in (0xD8, 0x01) or 0xD0 <= marker <= 0xD7:
                    i += 2
                    continue
                (length,) = struct.unpack(">H", data[i + 2 : i + 4])
                i += 2 + length
    except (struct.error, IndexError):
        return None
    return None


def image_tokens(block: DataBlock) -> int:
    """What a picture costs: ``w * h / 750`` after scaling its long side to 1,568."""
    size = image_size(block.data)
    if size is None or min(size) <= 0:
        return IMAGE_UNKNOWN_TOKENS
    w, h = size
    scale = min(1.0, 1568 / max(w, h))
    return max(1, min(IMAGE_MAX_TOKENS, round(w * scale * h * scale / 750)))


def _preview(text: str, width: int = 48) -> str:
    line = " ".join(text.split())
    return line if len(line) <= width else line[: width - 1] + "…"


def raw_parts(request: ModelRequest, instructions: Sequence[tuple[str, str]] = ()) -> list[Part]:
    """The request's parts, estimated but not calibrated. ``instructions``: (label,
    text) of each instruction file, taken out of the system prompt into rows of
    their own where the text is found in it."""
    parts: list[Part] = []
    system = request.system_prompt
    for label, text in instructions:
        if text and text in system:
            system = system.replace(text, "", 1)
            parts.append(Part("instructions", label, estimate(text)))
    if system.strip():
        parts.append(Part("system", "System prompt", estimate(system) + MESSAGE_OVERHEAD))
    for tool in request.tools:
        parts.append(Part("tools", tool.name, estimate(tool_text(tool)) + TOOL_OVERHEAD))
    for i, message in enumerate(request.messages, 1):
        text = message_text(message)
        tokens = estimate(text) + MESSAGE_OVERHEAD
        if isinstance(message, ToolResultMessage):
            label = f"{message.name} result{' (error)' if message.is_error else ''}: {_preview(text, 36)}"
            parts.append(Part("tool_results", label, tokens + estimate(message.call_id), i))
        else:
            role = message.role
            if isinstance(message, AssistantMessage) and message.tool_calls and not message.text:
                label = f"assistant: calls {', '.join(c.name for c in message.tool_calls)}"
            elif isinstance(message, UserMessage) and not isinstance(message.content, str):
                from .attachments import split_message

                words, chips = split_message(message)
                more = f" (+{len(chips)} attached)" if chips else ""
                label = f"user: {_preview(words, 40)}{more}"
            else:
                label = f"{role}: {_preview(text)}"
            parts.append(Part("history", label, tokens, i))
        for n, image in enumerate(images_of(message), 1):
            size = image_size(image.data)
            shown = f"{size[0]}x{size[1]}" if size else image.media_type
            parts.append(Part("images", f"image {n} of message {i} ({shown})", image_tokens(image), i))
    return parts


def _split(parts: Sequence[Part]) -> tuple[float, float]:
    """(text tokens, image tokens) of some parts."""
    images = sum(p.tokens for p in parts if p.category == "images")
    return sum(p.tokens for p in parts) - images, images


def calibration(last_request: ModelRequest | None, last_usage: Usage | None,
                instructions: Sequence[tuple[str, str]] = ()) -> tuple[float, str]:
    """The factor from estimate to the provider's count, and why it is 1.0 if it is."""
    if last_request is None:
        return 1.0, "no request has been sent yet: a raw estimate"
    reported = prompt_tokens(last_usage) if last_usage is not None else 0
    if reported <= 0:
        return 1.0, "the provider reported no usage for the last request: a raw estimate"
    text, images = _split(raw_parts(last_request, instructions))
    if text <= 0 or reported <= images:
        return 1.0, "the last request was too small to calibrate against: a raw estimate"
    factor = (reported - images) / text
    low, high = CALIBRATION_RANGE
    if not low <= factor <= high:
        return 1.0, (f"the provider's count of the last request ({reported:,}) is far from its "
                     f"estimate ({round(text + images):,}): a raw estimate")
    return factor, ""


def breakdown(
    request: ModelRequest,
    *,
    last_request: ModelRequest | None = None,
    last_usage: Usage | None = None,
    window: int | None = None,
    instructions: Sequence[tuple[str, str]] = (),
) -> Breakdown:
    """``request`` part by part, calibrated against the provider's count of
    ``last_request`` (``last_usage``)."""
    factor, note = calibration(last_request, last_usage, instructions)
    parts = tuple(
        p if p.category == "images" else Part(p.category, p.label, p.tokens * factor, p.index)
        for p in raw_parts(request, instructions)
    )
    return Breakdown(parts, window, factor, not note, note, last_usage)


# -- the next request -----------------------------------------------------------------------


@dataclass(slots=True)
class _Quiet:
    """What a preview's hooks may emit or ask: nothing reaches anyone."""

    events: list[Any] = field(default_factory=list)

    def emit(self, event: Any) -> None:
        self.events.append(event)

    async def ask(self, request: Any) -> Any:
        raise RuntimeError("a preview of the next request cannot ask anything")


async def next_request(agent: Any) -> ModelRequest:
    """The request the loop would send now (before any new message): the system
    prompt through the enabled ``transform_system_prompt`` hooks, the tools, the
    history. A middleware that fails here leaves its part as it was."""
    from middleware.context import ReplyRun

    quiet = _Quiet()
    run = ReplyRun(agent, "context-preview", quiet.emit, quiet.ask)
    stack = agent.middleware
    try:
        prompt = await stack.transform_system_prompt(run, agent.system_prompt)
    except Exception:
        prompt = agent.system_prompt
    try:
        extra = await stack.list_tools()
    except Exception:
        extra = []
    tools: dict[str, Tool] = {}
    for tool in [*agent.tools, *extra]:
        tools.setdefault(tool.name, tool)
    return ModelRequest(agent.model, prompt, tuple(agent.messages), tuple(tools.values()))
