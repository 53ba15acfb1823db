"""Ollama over its native ``/api/chat`` (NDJSON), not the OpenAI-compatible ``/v1``.

Why native: through ``/v1`` Ollama cannot be told the context size, so it runs
every model with its small default window and *silently drops the start of the
prompt* once an agent's system prompt, tool schemas and history outgrow it.
``/api/chat`` takes ``options.num_ctx`` (set it in the config, e.g.
``[providers.ollama] options = { num_ctx = 32768 }``, or per request), reports
thinking in its own ``thinking`` field, and answers errors as ``{"error": ...}``.
Its tool calls arrive whole (arguments as an object, often without an id), so
each becomes one ``ToolCallDelta`` with a generated id when none is given.

``OLLAMA_HOST`` is honoured as the official client does: ``host``, ``host:port``
or a full URL; the scheme defaults to http and the port to 11434.

Request options: ``num_ctx``, ``temperature``, ``top_p``, ``seed``, ``stop`` and
``max_tokens`` (as ``num_predict``) go into Ollama's ``options``; ``think`` and
``keep_alive`` at the top level. Retries and ``on_notice``: see :mod:`shell.providers.base`.
"""

from __future__ import annotations

import base64
from collections.abc import AsyncIterator, Mapping
from typing import Any

from shell.core.messages import (
    AssistantMessage,
    DataBlock,
    HintBlock,
    SystemMessage,
    TextBlock,
    ThinkingBlock,
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
from .endpoints import DEFAULT_HOST
from .sse import expect, iter_ndjson
from .turns import join_user_turns
from .wire import Wire, token_count

MODEL_OPTIONS = ("num_ctx", "temperature", "top_p", "seed", "stop", "num_predict")


class OllamaModel(HTTPProvider):
    """``ollama:NAME``: a local (or remote) Ollama server."""

    provider = "ollama"
    label = "Ollama"
    default_base_url = DEFAULT_HOST
    base_url_env = "OLLAMA_HOST"
    path = "/api/chat"

    def request_headers(self) -> dict[str, str]:
        return {"Authorization": f"Bearer {self.api_key}"} if self.api_key else {}

    def where_hint(self) -> str:
        return "Is Ollama running (`ollama serve`)? The address comes from OLLAMA_HOST or the config."

    def http_error(
        self, status: int, detail: str, retries: int, headers: Mapping[str, str] | None = None
    ) -> ModelError:
        if status == 404 and "not found" in detail:
            return ModelError(
                f"Ollama has no model '{self.name}' ({detail}). Pull it with `ollama pull {self.name}` "
                "or pick an installed one (agent-shell models).",
                status=404,
                provider=self.provider,
            )
        return super().http_error(status, detail, retries, headers)

    def build_body(self, request: ModelRequest) -> dict[str, Any]:
        options = {**self.options, **request.options}
        model_options = {k: options[k] for k in MODEL_OPTIONS if options.get(k) is not None}
        if options.get("max_tokens") is not None:
            model_options["num_predict"] = options["max_tokens"]
        nested = options.get("options")
        if isinstance(nested, dict):
            model_options.update(nested)
        body: dict[str, Any] = {"model": self.name, "messages": to_ollama_messages(request), "stream": True}
        if model_options:
            body["options"] = model_options
        for key in ("think", "keep_alive", "format"):
            if options.get(key) is not None:
                body[key] = options[key]
        choice = self.tool_choice(request)
        if request.tools and choice != "none":
            # Ollama has no tool_choice: a forced tool is the only one offered.
            named = [t for t in request.tools if t.name == choice]
            body["tools"] = [
                {
                    "type": "function",
                    "function": {"name": t.name, "description": t.description, "parameters": t.parameters},
                }
                for t in named or request.tools
            ]
        return body

    async def parse(self, wire: Wire) -> AsyncIterator[ModelChunk]:
        calls = 0
        async for obj in iter_ndjson(wire, max_line=self.max_line_bytes):
            if not isinstance(obj, dict):
                continue
            if obj.get("error"):
                raise ModelError(
                    f"Ollama reported an error in the middle of the reply: {obj['error']}",
                    provider=self.provider,
                    retryable=True,
                )
            # A field of the wrong shape raises MalformedField (``expect``): the reply
            # ends with an error naming the server, what came before is kept.
            message = expect(obj.get("message"), dict, "a message that is not an object") or {}
            thinking = expect(message.get("thinking"), str, "thinking that is not text")
            if thinking:
                yield ThinkingDelta(thinking)
            content = expect(message.get("content"), str, "message content that is not text")
            if content:
                yield TextDelta(content)
            for tc in expect(message.get("tool_calls"), list, "tool calls that are not a list") or ():
                tc = expect(tc, dict, "a tool call that is not an object")
                fn = expect(tc.get("function"), dict, "a tool call's function that is not an object") or {}
                args = fn.get("arguments", {})
                call_id = expect(tc.get("id"), (str, int), "a tool call id that is not text")
                yield ToolCallDelta(
                    calls,
                    id=str(call_id) if call_id not in (None, "") else f"call_{calls}",
                    name=expect(fn.get("name"), str, "a tool name that is not text"),
                    args_delta=args if isinstance(args, str) else json_text(args),  # any depth
                )
                calls += 1
            if obj.get("done"):
                prompt, output = token_count(obj.get("prompt_eval_count")), token_count(obj.get("eval_count"))
                unknown = prompt is None or output is None  # "lots", NaN: not a count, and not zero
                yield UsageChunk(Usage(unknown=True) if unknown else Usage(prompt or 0, output or 0))
                reason = expect(obj.get("done_reason"), str, "a done reason that is not text") or "stop"
                if calls:
                    yield StopChunk("tool_use")
                else:
                    yield StopChunk({"stop": "end_turn", "length": "max_tokens"}.get(reason, reason))
                return
        raise self.ended_early(wire)


def to_ollama_messages(request: ModelRequest) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    if request.system_prompt:
        out.append({"role": "system", "content": request.system_prompt})
    for m in as_sent(request.messages):  # a cut reply says so (shell.core.partial)
        if isinstance(m, SystemMessage):
            out.append({"role": "system", "content": m.text})
        elif isinstance(m, UserMessage):
            msg: dict[str, Any] = {"role": "user", "content": m.text}
            if not isinstance(m.content, str):
                images = [
                    base64.b64encode(b.data).decode()
                    for b in m.content
                    if isinstance(b, DataBlock) and b.media_type.startswith("image/")
                ]
                if images:
                    msg["images"] = images
            out.append(msg)
        elif isinstance(m, AssistantMessage):
            text = "".join(b.text for b in m.content if isinstance(b, (TextBlock, HintBlock)))
            msg = {"role": "assistant", "content": text}
            thinking = "".join(b.text for b in m.content if isinstance(b, ThinkingBlock))
            if thinking:
                msg["thinking"] = thinking
            if m.tool_calls:
                msg["tool_calls"] = [
                    {"id": c.id, "function": {"name": c.name, "arguments": c.args}} for c in m.tool_calls
                ]
            out.append(msg)
        elif isinstance(m, ToolResultMessage):
            out.append({"role": "tool", "content": m.text, "tool_name": m.name})
    return join_user_turns(out)
