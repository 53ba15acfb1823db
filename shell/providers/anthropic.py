"""Anthropic Messages API (``POST {base_url}/v1/messages``, streaming).

The stream is SSE with ``event:`` names: ``message_start`` (input and cache
usage), ``content_block_start/delta/stop`` (text, ``tool_use`` with
``input_json_delta``, ``thinking`` with ``thinking_delta`` and ``signature_delta``),
``message_delta`` (stop reason, output usage), ``message_stop``, ``ping`` and
``error``. Usage is reported once, at ``message_stop``, as one ``UsageChunk``:
``cache_read_input_tokens`` → ``cache_read_tokens`` and
``cache_creation_input_tokens`` → ``cache_write_tokens``. An ``error`` event
(e.g. ``overloaded_error`` after the reply began) becomes a ``ModelError`` after
the chunks already yielded.

Messages: the system prompt (plus any ``SystemMessage``) goes in ``system``;
tool results become ``tool_result`` blocks in a user message, and consecutive
messages of the same role are merged (the API wants the results of one batch of
parallel calls in a single user message). Thinking blocks are sent back only
with their signature, as the API requires; ``redacted_thinking`` blocks (thinking
the safety system encrypted) are kept as redacted thinking blocks and sent back
unchanged, in their place, since a turn whose thinking is missing is refused.
Wherever content is one plain text block without a cache marker, it is sent as a
string: the API takes both, and translators (LiteLLM → an OpenAI-style server)
handle only the string well.

Tool calls: a ``tool_use`` block whose id was already seen continues that call
(LiteLLM, in front of a server that repeats the id in every delta, opens one
block per delta: one call arrived as 49 blocks).

**Prompt caching marker.** A prompt-caching middleware sets
``request.options["cache_control"] = {"type": "ephemeral", "ttl": "5m" | "1h"}``.
This provider then puts that ``cache_control`` on the system prompt's last
block, on the last tool, and on the last content block of the last message, so
the whole prefix up to each point can be served from the cache.

Other options read from ``ModelRequest.options``: ``max_tokens`` (default 8192;
the API requires one), ``temperature``, ``top_p``, ``stop_sequences``,
``thinking`` (e.g. ``{"type": "enabled", "budget_tokens": 4000}``), and
``extra_body``. Retries and ``on_notice``: see :mod:`shell.providers.base`.
"""

from __future__ import annotations

import base64
from collections.abc import AsyncIterator, Iterator
from typing import Any

from shell.core.messages import (
    AssistantMessage,
    Block,
    DataBlock,
    HintBlock,
    SystemMessage,
    TextBlock,
    ThinkingBlock,
    ToolCallBlock,
    ToolResultMessage,
    Usage,
    UserMessage,
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
from shell.core.partial import as_sent
from shell.core.textsafety import json_text

from .base import HTTPProvider
from .call_ids import ANTHROPIC_IDS, CallIds, wire_name
from .sse import expect, iter_sse, parse_json
from .wire import Wire, token_count

API_VERSION = "2023-06-01"
DEFAULT_MAX_TOKENS = 8192
STOP_REASONS = {
    "end_turn": "end_turn",
    "stop_sequence": "end_turn",
    "tool_use": "tool_use",
    "max_tokens": "max_tokens",
    "model_context_window_exceeded": "max_tokens",
    "refusal": "refusal",
}
RETRYABLE_ERRORS = {"overloaded_error": 529, "api_error": 500, "rate_limit_error": 429}


class AnthropicModel(HTTPProvider):
    """``anthropic:NAME``: Claude over the Messages API."""

    provider = "anthropic"
    label = "Anthropic"
    default_base_url = "https://api.anthropic.com"
    base_url_env = "ANTHROPIC_BASE_URL"
    path = "/v1/messages"

    def request_headers(self) -> dict[str, str]:
        headers = {"anthropic-version": API_VERSION, "Accept": "text/event-stream"}
        if self.api_key:
            headers["x-api-key"] = self.api_key
        return headers

    def build_body(self, request: ModelRequest) -> dict[str, Any]:
        options = {**self.options, **request.options}
        cache = options.get("cache_control")
        system, messages = to_anthropic_messages(request)
        body: dict[str, Any] = {
            "model": self.name,
            "max_tokens": int(options.get("max_tokens") or DEFAULT_MAX_TOKENS),
            "messages": messages,
            "stream": True,
        }
        if system:
            body["system"] = system
        if request.tools:
            body["tools"] = [
                {"name": t.name, "description": t.description, "input_schema": t.parameters}
                for t in request.tools
            ]
            choice = self.tool_choice(request)
            if choice == "required":
                body["tool_choice"] = {"type": "any"}
            elif choice in ("auto", "none"):
                body["tool_choice"] = {"type": choice}
            elif choice:
                body["tool_choice"] = {"type": "tool", "name": choice}
        for key in ("temperature", "top_p", "stop_sequences", "thinking"):
            if options.get(key) is not None:
                body[key] = options[key]
        if isinstance(cache, dict):
            mark_cache(body, dict(cache))
        compact(body)
        extra = options.get("extra_body")
        if isinstance(extra, dict):
            body.update(extra)
        return body

    async def parse(self, wire: Wire) -> AsyncIterator[ModelChunk]:
        stream = _Stream()
        async for event in iter_sse(wire, idle=self.idle_timeout, max_line=self.max_line_bytes):
            kind = event.event
            if kind == "ping":
                continue
            obj = parse_json(event.data)
            if not isinstance(obj, dict):
                continue
            kind = obj.get("type", kind)
            if kind == "content_block_delta":
                for chunk in stream.block_delta(obj):
                    yield chunk
            elif kind == "content_block_start":
                for chunk in stream.block_start(obj):
                    yield chunk
            elif kind in ("message_start", "message_delta"):
                stream.message(kind, obj)
            elif kind == "message_stop":
                for chunk in stream.end():
                    yield chunk
                return
            elif kind == "error":
                raise self._stream_error(obj)
        raise self.ended_early(wire, sse=True)

    def _stream_error(self, obj: dict[str, Any]) -> ModelError:
        err = obj.get("error") or {}
        etype = str(err.get("type", "error"))
        status = RETRYABLE_ERRORS.get(etype)
        return ModelError(
            f"Anthropic reported an error in the middle of the reply ({etype}): "
            f"{err.get('message', '')}. The text so far is kept; try again.",
            status=status,
            retryable=status is not None,
            provider=self.provider,
        )


class _Stream:
    """One streamed message's state: usage so far, the stop reason, the tool calls."""

    __slots__ = ("calls", "counted", "ids", "stop", "tools", "usage")

    def __init__(self) -> None:
        self.usage = Usage()
        self.counted = False
        self.stop: str | None = None
        self.tools: dict[int, int] = {}  # content block index -> our tool-call index
        self.ids: dict[str, int] = {}  # tool_use id -> our tool-call index
        self.calls = 0

    # A field of the wrong shape raises MalformedField (``expect``): the reply ends
    # with an error naming the server, what came before is kept.
    def block_delta(self, obj: dict[str, Any]) -> Iterator[ModelChunk]:
        delta = expect(obj.get("delta"), dict, "a delta that is not an object") or {}
        dtype = delta.get("type")
        if dtype == "text_delta":
            text = expect(delta.get("text"), str, "text that is not text")
            if text:
                yield TextDelta(text)
        elif dtype == "input_json_delta":
            part = expect(delta.get("partial_json"), str, "tool arguments that are not text")
            index = expect(obj.get("index"), int, "a block index that is not a number")
            if part and index in self.tools:
                yield ToolCallDelta(self.tools[index], args_delta=part)
        elif dtype == "thinking_delta":
            thinking = expect(delta.get("thinking"), str, "thinking that is not text")
            if thinking:
                yield ThinkingDelta(thinking)
        elif dtype == "signature_delta":
            signature = expect(delta.get("signature"), str, "a signature that is not text")
            yield ThinkingDelta("", signature=signature)

    def block_start(self, obj: dict[str, Any]) -> Iterator[ModelChunk]:
        block = expect(obj.get("content_block"), dict, "a content block that is not an object") or {}
        btype = block.get("type")
        if btype == "text":
            text = expect(block.get("text"), str, "text that is not text")
            if text:
                yield TextDelta(text)
        elif btype == "thinking":
            thinking = expect(block.get("thinking"), str, "thinking that is not text")
            signature = expect(block.get("signature"), str, "a signature that is not text")
            if thinking:
                yield ThinkingDelta(thinking, signature=signature or None)
        elif btype == "redacted_thinking":
            data = expect(block.get("data"), str, "redacted thinking that is not text")
            if data:
                yield ThinkingDelta("", signature=data, redacted=True)
        elif btype == "tool_use":
            yield from self._tool_use(obj, block)

    def _tool_use(self, obj: dict[str, Any], block: dict[str, Any]) -> Iterator[ModelChunk]:
        call_id = expect(block.get("id"), str, "a tool call id that is not text")
        name = expect(block.get("name"), str, "a tool name that is not text")
        index = expect(obj.get("index"), int, "a block index that is not a number")
        seen = self.ids.get(call_id) if call_id is not None else None
        ours = self.calls if seen is None else seen
        self.tools[len(self.tools) if index is None else index] = ours
        if seen is None:
            self.calls += 1
            if call_id is not None:
                self.ids[call_id] = ours
            yield ToolCallDelta(ours, id=call_id, name=name)
        if block.get("input"):
            yield ToolCallDelta(ours, args_delta=input_json(block["input"]))

    def message(self, kind: str, obj: dict[str, Any]) -> None:
        if kind == "message_start":
            message = expect(obj.get("message"), dict, "a message that is not an object") or {}
            reported = message.get("usage") or {}
        else:
            delta = expect(obj.get("delta"), dict, "a delta that is not an object") or {}
            self.stop = expect(delta.get("stop_reason"), str, "a stop reason that is not text") or self.stop
            reported = obj.get("usage") or {}
        if not isinstance(reported, dict):
            self.usage, self.counted = Usage(unknown=True), True
            return
        self.counted = self.counted or bool(reported)
        self.usage = merge_usage(self.usage, reported)

    def end(self) -> list[ModelChunk]:
        stop = self.stop or "end_turn"
        return [UsageChunk(self.usage if self.counted else Usage(unknown=True)),
                StopChunk(STOP_REASONS.get(stop, stop))]


def input_json(value: Any) -> str:
    """A ``tool_use`` block's whole ``input`` as the JSON text of its arguments (any
    depth: :func:`~shell.core.assembly.parse_args` bounds it and says so)."""
    return json_text(value)


def merge_usage(usage: Usage, data: dict[str, Any]) -> Usage:
    """Fields present in ``data`` replace ours (message_delta counts are cumulative);
    a count that is not a number makes the whole usage unknown."""

    if usage.unknown:
        return usage
    keys = ("input_tokens", "output_tokens", "cache_read_input_tokens", "cache_creation_input_tokens")
    counts = {key: token_count(data[key]) for key in keys if key in data}
    if any(count is None for count in counts.values()):
        return Usage(unknown=True)  # "lots", NaN: not a count, and not zero either

    def pick(key: str, old: int) -> int:
        count = counts.get(key)
        return old if count is None or data[key] is None else count

    return Usage(
        input_tokens=pick("input_tokens", usage.input_tokens),
        output_tokens=pick("output_tokens", usage.output_tokens),
        cache_read_tokens=pick("cache_read_input_tokens", usage.cache_read_tokens),
        cache_write_tokens=pick("cache_creation_input_tokens", usage.cache_write_tokens),
    )


def mark_cache(body: dict[str, Any], cache: dict[str, Any]) -> None:
    """The caching marker: system's last block, the last tool, the last message's last block."""
    system = body.get("system")
    if isinstance(system, list) and system:
        system[-1]["cache_control"] = cache
    if body.get("tools"):
        body["tools"][-1]["cache_control"] = cache
    messages = body.get("messages")
    if messages and messages[-1]["content"]:
        messages[-1]["content"][-1]["cache_control"] = cache


def compact(body: dict[str, Any]) -> None:
    """One plain text block (no cache marker) becomes a string, in ``system``, in a
    message's content and in a tool result's content."""
    system = body.get("system")
    if isinstance(system, list):
        text = _single_text(system)
        if text is not None:
            body["system"] = text
    for message in body.get("messages") or ():
        content = message.get("content")
        if isinstance(content, list):
            for block in content:
                if block.get("type") == "tool_result" and isinstance(block.get("content"), list):
                    text = _single_text(block["content"])
                    if text is not None:
                        block["content"] = text
            text = _single_text(content)
            if text is not None:
                message["content"] = text


def _single_text(blocks: list[dict[str, Any]]) -> str | None:
    if len(blocks) != 1:
        return None
    block = blocks[0]
    if block.get("type") != "text" or set(block) != {"type", "text"}:
        return None  # a cache marker (or anything else) needs the block form
    text = block.get("text")
    return text if isinstance(text, str) else None


def to_anthropic_messages(request: ModelRequest) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """``(system blocks, messages)``; same-role neighbours merged into one message, call
    ids and tool names Anthropic's API would refuse mapped (see :mod:`shell.providers.call_ids`)."""
    ids = CallIds(ANTHROPIC_IDS)
    system: list[dict[str, Any]] = []
    if request.system_prompt:
        system.append({"type": "text", "text": request.system_prompt})
    messages: list[dict[str, Any]] = []

    def add(role: str, blocks: list[dict[str, Any]]) -> None:
        if not blocks:
            return
        if messages and messages[-1]["role"] == role:
            messages[-1]["content"].extend(blocks)
        else:
            messages.append({"role": role, "content": blocks})

    for m in as_sent(request.messages):  # a cut reply says so (shell.core.partial)
        if isinstance(m, SystemMessage):
            if m.text:
                system.append({"type": "text", "text": m.text})
        elif isinstance(m, UserMessage):
            add("user", content_blocks(m.content))
        elif isinstance(m, AssistantMessage):
            add("assistant", assistant_blocks(m.content, ids))
        elif isinstance(m, ToolResultMessage):
            result: dict[str, Any] = {
                "type": "tool_result",
                "tool_use_id": ids.wire(m.call_id),
                "content": content_blocks(m.content) or [{"type": "text", "text": "(no output)"}],
            }
            if m.is_error:
                result["is_error"] = True
            add("user", [result])
    return system, messages


def content_blocks(content: str | tuple[Block, ...]) -> list[dict[str, Any]]:
    if isinstance(content, str):
        return [{"type": "text", "text": content}] if content else []
    out: list[dict[str, Any]] = []
    for b in content:
        if isinstance(b, (TextBlock, HintBlock)) and b.text:
            out.append({"type": "text", "text": b.text})
        elif isinstance(b, DataBlock) and b.media_type.startswith("image/"):
            data = base64.b64encode(b.data).decode()
            source = {"type": "base64", "media_type": b.media_type, "data": data}
            out.append({"type": "image", "source": source})
        elif isinstance(b, DataBlock):
            out.append({"type": "text", "text": f"[{b.media_type} data, {len(b.data)} bytes]"})
    return out


def assistant_blocks(content: tuple[Block, ...], ids: CallIds) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for b in content:
        if isinstance(b, ThinkingBlock):
            if b.redacted and b.signature:
                out.append({"type": "redacted_thinking", "data": b.signature})
            elif b.signature:
                out.append({"type": "thinking", "thinking": b.text, "signature": b.signature})
        elif isinstance(b, (TextBlock, HintBlock)):
            if b.text:
                out.append({"type": "text", "text": b.text})
        elif isinstance(b, ToolCallBlock):
            out.append({"type": "tool_use", "id": ids.wire(b.id), "name": wire_name(b.name), "input": b.args})
    return out
