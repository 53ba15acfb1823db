"""OpenAI-compatible chat completions: OpenAI, vLLM, llama.cpp, LM Studio, OpenRouter...

One class serves every server that speaks ``POST {base_url}/chat/completions``
with ``stream: true``; only ``base_url`` and the key differ. The stream parser is
deliberately tolerant of what those servers do differently:

* tool-call deltas are assembled by ``index`` *and* ``id``: OpenAI sends the id
  once; some servers repeat id and name in every delta (ignored after the first),
  others reuse index 0 for several calls with different ids (each distinct id
  becomes its own call). Every call gets a stable index of our own, 0, 1, 2...
* ``reasoning_content`` (DeepSeek, vLLM, llama.cpp) and ``reasoning``
  (OpenRouter, Ollama) become ``ThinkingDelta``; ``refusal`` text is shown as
  text and makes the stop reason ``refusal``.
* ``finish_reason`` maps stop/tool_calls/length/content_filter/refusal to
  end_turn/tool_use/max_tokens/refusal/refusal; "stop" with tool calls (some
  local servers) is ``tool_use``.
* usage (``stream_options.include_usage``) becomes one ``UsageChunk`` whose
  ``input_tokens`` exclude cached prompt tokens (those are ``cache_read_tokens``),
  so the buckets mean the same as Anthropic's. A server that ignores
  ``include_usage`` (llama-cpp-python) gets ``Usage(unknown=True)``: unknown, not 0.
* an assistant message that only calls tools is sent with ``"content": ""``, never
  ``null``: llama-cpp-python answers 500 to a null, and so would every later turn.

Request options read from ``ModelRequest.options``: ``max_tokens``, ``temperature``,
``top_p``, ``stop``, ``seed``, ``reasoning_effort``, ``tool_choice`` (see
:meth:`~shell.providers.base.HTTPProvider.tool_choice`) and ``extra_body`` (a dict merged
into the JSON body as is). Retries and ``on_notice``: see :mod:`shell.providers.base`.
"""

from __future__ import annotations

import base64
import json
from collections.abc import AsyncIterator, Iterator
from typing import Any

from shell.core.messages import (
    AssistantMessage,
    Block,
    DataBlock,
    HintBlock,
    SystemMessage,
    TextBlock,
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
from .call_ids import OPENAI_IDS, CallIds, wire_name
from .sse import expect, iter_sse, parse_json
from .turns import join_user_turns
from .wire import Wire, token_count

FINISH_REASONS = {
    "stop": "end_turn",
    "tool_calls": "tool_use",
    "function_call": "tool_use",
    "length": "max_tokens",
    "content_filter": "refusal",
    "refusal": "refusal",
}
PASSED_OPTIONS = ("max_tokens", "temperature", "top_p", "stop", "seed", "reasoning_effort")


class OpenAIModel(HTTPProvider):
    """``openai:NAME`` and any OpenAI-compatible server (give ``base_url``)."""

    provider = "openai"
    label = "OpenAI"
    default_base_url = "https://api.openai.com/v1"
    base_url_env = "OPENAI_BASE_URL"
    path = "/chat/completions"
    max_tools = 128
    """OpenAI's API refuses a request with more (400 "array too long")."""

    def request_headers(self) -> dict[str, str]:
        headers = {"Accept": "text/event-stream"}
        if self.api_key:
            headers["Authorization"] = f"Bearer {self.api_key}"
        return headers

    def build_body(self, request: ModelRequest) -> dict[str, Any]:
        options = {**self.options, **request.options}
        body: dict[str, Any] = {
            "model": self.name,
            "messages": to_openai_messages(request),
            "stream": True,
            "stream_options": {"include_usage": True},
        }
        tools = self.offered_tools(request)
        if tools:
            body["tools"] = [
                {
                    "type": "function",
                    "function": {"name": t.name, "description": t.description, "parameters": t.parameters},
                }
                for t in tools
            ]
            choice = self.tool_choice(request)
            if choice in ("auto", "none", "required"):
                body["tool_choice"] = choice
            elif choice:
                body["tool_choice"] = {"type": "function", "function": {"name": choice}}
        for key in PASSED_OPTIONS:
            if options.get(key) is not None:
                body[key] = options[key]
        extra = options.get("extra_body")
        if isinstance(extra, dict):
            body.update(extra)
        return body

    async def parse(self, wire: Wire) -> AsyncIterator[ModelChunk]:
        stream = _Stream()
        done = False
        async for event in iter_sse(wire, idle=self.idle_timeout, max_line=self.max_line_bytes):
            data = event.data
            if data == "[DONE]":
                done = True
                break
            obj = parse_json(data)
            if not isinstance(obj, dict):
                continue
            if obj.get("error"):
                raise stream_error(self.label, self.provider, obj["error"])
            for chunk in stream.feed(obj):
                yield chunk
        if not done and stream.finish is None:
            raise self.ended_early(wire, sse=True)
        for chunk in stream.end():
            yield chunk


class _Stream:
    """One streamed completion's state: the finish reason, refusals, usage, tool calls."""

    __slots__ = ("calls", "counted", "finish", "refused")

    def __init__(self) -> None:
        self.calls = ToolCallAssembler()
        self.finish: str | None = None
        self.refused = False
        self.counted = False

    def feed(self, obj: dict[str, Any]) -> Iterator[ModelChunk]:
        """One event's chunks. A field of the wrong shape raises ``MalformedField``
        (the reply ends with an error naming the server; what came before is kept);
        usage that is not a count is unknown, never a crash."""
        usage = obj.get("usage")
        if usage and isinstance(usage, dict):
            self.counted = True
            yield UsageChunk(openai_usage(usage))
        for choice in expect(obj.get("choices"), list, "a list of choices that is not a list") or ():
            yield from self._choice(expect(choice, dict, "a choice that is not an object"))

    def _choice(self, choice: dict[str, Any]) -> Iterator[ModelChunk]:
        delta = expect(choice.get("delta"), dict, "a delta that is not an object") or {}
        text = expect(delta.get("content"), str, "message content that is not text")
        if text:
            yield TextDelta(text)
        thinking = delta.get("reasoning_content") or delta.get("reasoning")
        if thinking and isinstance(thinking, str):
            yield ThinkingDelta(thinking)
        refusal = expect(delta.get("refusal"), str, "a refusal that is not text")
        if refusal:
            self.refused = True
            yield TextDelta(refusal)
        for tc in expect(delta.get("tool_calls"), list, "tool calls that are not a list") or ():
            chunk = self.calls.add(expect(tc, dict, "a tool call that is not an object"))
            if chunk is not None:
                yield chunk
        finish = expect(choice.get("finish_reason"), str, "a finish reason that is not text")
        if finish:
            self.finish = finish

    def end(self) -> list[ModelChunk]:
        out: list[ModelChunk] = [] if self.counted else [UsageChunk(Usage(unknown=True))]
        finish = self.finish
        reason = FINISH_REASONS.get(finish or "stop", finish or "end_turn")
        if self.refused:
            reason = "refusal"
        elif self.calls.count and reason == "end_turn":
            reason = "tool_use"
        return [*out, StopChunk(reason)]


class ToolCallAssembler:
    """Gives each distinct streamed tool call a stable index of our own."""

    __slots__ = ("by_id", "by_index", "count", "last")

    def __init__(self) -> None:
        self.by_index: dict[int, tuple[int, str | None]] = {}
        self.by_id: dict[str, int] = {}
        self.count = 0
        self.last = -1

    def add(self, tc: dict[str, Any]) -> ToolCallDelta | None:
        """One tool-call delta; ``MalformedField`` when a field has the wrong shape
        (a name or id that is an object would otherwise reach the screen and the
        session as one)."""
        fn = expect(tc.get("function"), dict, "a tool call's function that is not an object") or {}
        call_id = expect(tc.get("id"), (str, int), "a tool call id that is not text")
        call_id = str(call_id) if call_id not in (None, "") else None
        name = expect(fn.get("name"), str, "a tool name that is not text") or None
        args = fn.get("arguments")
        if args is not None and not isinstance(args, str):
            args = json_text(args)  # a few servers send an object (any depth: never RecursionError)
        their = tc.get("index")
        known = self.by_index.get(their) if isinstance(their, int) else None
        new = False
        if call_id is not None and call_id in self.by_id:
            ours = self.by_id[call_id]
        elif call_id is not None and (known is None or known[1] not in (None, call_id)):
            new = True  # a new id, possibly on an index already used
        elif known is not None:
            ours = known[0]
        elif their is None and self.last >= 0 and call_id is None:
            ours = self.last
        else:
            new = True
        if new:
            ours = self.count
            self.count += 1
            if call_id is not None:
                self.by_id[call_id] = ours
        if isinstance(their, int):
            self.by_index[their] = (ours, call_id or (known[1] if known else None))
        self.last = ours
        if new:
            return ToolCallDelta(ours, id=call_id or f"call_{ours}", name=name, args_delta=args or "")
        if not args:
            return None
        return ToolCallDelta(ours, args_delta=args)


def openai_usage(usage: dict[str, Any]) -> Usage:
    """Usage as counted; unknown when a count is not a whole number a server could
    have counted ("lots", NaN, 1e308), never a crash that loses the reply."""
    details = usage.get("prompt_tokens_details") or {}
    prompt = token_count(usage.get("prompt_tokens"))
    output = token_count(usage.get("completion_tokens"))
    cached = token_count(details.get("cached_tokens")) if isinstance(details, dict) else 0
    if prompt is None or output is None or cached is None:
        return Usage(unknown=True)
    return Usage(input_tokens=max(0, prompt - cached), output_tokens=output, cache_read_tokens=cached)


def stream_error(label: str, provider: str, err: Any) -> ModelError:
    """An error object sent inside a 200 stream (OpenRouter, vLLM do this)."""
    if isinstance(err, dict):
        message = str(err.get("message") or err)
        code = err.get("code")
    else:
        message, code = str(err), None
    status = code if isinstance(code, int) else None
    retryable = status is None or status == 429 or status >= 500
    return ModelError(
        f"{label} reported an error in the middle of the reply: {message}",
        status=status,
        retryable=retryable,
        provider=provider,
    )


def to_openai_messages(request: ModelRequest) -> list[dict[str, Any]]:
    """Our messages as chat-completions messages (thinking is not sent back; call ids
    and tool names OpenAI's API would refuse are mapped, see :mod:`shell.providers.call_ids`)."""
    ids = CallIds(OPENAI_IDS)
    out: list[dict[str, Any]] = []
    if request.system_prompt:
        out.append({"role": "system", "content": request.system_prompt})
    for m in as_sent(request.messages):  # a cut reply says so (shell.core.partial)
        if isinstance(m, SystemMessage):
            out.append({"role": "system", "content": m.text})
        elif isinstance(m, UserMessage):
            out.append({"role": "user", "content": user_content(m.content)})
        elif isinstance(m, AssistantMessage):
            text = "".join(b.text for b in m.content if isinstance(b, (TextBlock, HintBlock)))
            msg: dict[str, Any] = {"role": "assistant", "content": text}
            if m.tool_calls:
                msg["tool_calls"] = [
                    {
                        "id": ids.wire(c.id),
                        "type": "function",
                        "function": {
                            "name": wire_name(c.name),
                            "arguments": json.dumps(c.args, ensure_ascii=False),
                        },
                    }
                    for c in m.tool_calls
                ]
            out.append(msg)
        elif isinstance(m, ToolResultMessage):
            text = m.text
            if m.is_error and not text.lower().startswith("error"):
                text = f"Error: {text}"
            out.append({"role": "tool", "tool_call_id": ids.wire(m.call_id), "content": text})
    return join_user_turns(out)


def user_content(content: str | tuple[Block, ...]) -> str | list[dict[str, Any]]:
    """A plain string when there are only text blocks; content parts when there is an image."""
    if isinstance(content, str):
        return content
    if not any(isinstance(b, DataBlock) for b in content):
        return "".join(b.text for b in content if isinstance(b, (TextBlock, HintBlock)))
    parts: list[dict[str, Any]] = []
    for b in content:
        if isinstance(b, (TextBlock, HintBlock)):
            parts.append({"type": "text", "text": b.text})
        elif isinstance(b, DataBlock) and b.media_type.startswith("image/"):
            url = f"data:{b.media_type};base64,{base64.b64encode(b.data).decode()}"
            parts.append({"type": "image_url", "image_url": {"url": url}})
        elif isinstance(b, DataBlock):
            parts.append({"type": "text", "text": f"[{b.media_type} data, {len(b.data)} bytes]"})
        elif isinstance(b, ToolCallBlock):
            continue
    return parts
