"""``Tracing``: the span tree of every reply (AgentScope's TracingMiddleware).

Spans follow the OpenTelemetry GenAI semantic conventions: ``invoke_agent {agent}``
per reply (``on_reply``), ``chat {model}`` per model call (``on_model_call`` to
``after_model_response``: model, provider, tokens, finish reason), ``execute_tool
{tool}`` per tool (``on_acting``: name, call id, arguments, result). All share the
``gen_ai.conversation.id`` kept in session state; approvals (HITL pending calls) are
events on the reply span; content passes the one secrets policy
(:mod:`shell.core.secrets`) first.

Two outputs. OpenTelemetry, only when a real ``TracerProvider`` is configured (or
passed in): ``opentelemetry`` is never imported to find out (nobody imported it →
nobody configured it). And :class:`TraceSpan` trees for the UI: ``Tracing.traces``
holds recent replies' roots, updated live, with ``CustomEvent("trace", root)`` each
time a span closes. With ``tree=False`` and no provider, every hook goes straight
to ``next``.
"""

from __future__ import annotations

import sys
import time
import uuid
from collections import deque
from collections.abc import AsyncIterator, Callable, Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any, ClassVar

from shell.core.events import (
    ApprovalRequested,
    ApprovalResolved,
    CustomEvent,
    ErrorEvent,
    Event,
    ReplyEnd,
    ToolCallEnd,
    ToolExecutionEnd,
)
from shell.core.messages import AssistantMessage, ToolResult
from shell.core.model import ModelChunk, ModelRequest
from shell.core.secrets import NO_SECRETS, Secrets, environment_secrets
from shell.core.textsafety import json_text

from .base import Middleware, ModelNext, ReplyNext
from .context import HookContext, ToolCallContext
from .types import ReplyRequest, ToolRequest, TurnAction

EVENT_NAME = "trace"
SECRETS_TTL_S = 5.0
"""How long the environment's secret values are trusted before being read again."""


@dataclass(slots=True, eq=False)
class TraceSpan:
    """One span of a reply's tree, as the UI shows it (and OTel exports it)."""

    name: str
    kind: str
    """``agent``, ``model`` or ``tool``."""
    start: float
    end: float | None = None
    attributes: dict[str, Any] = field(default_factory=dict)
    children: list[TraceSpan] = field(default_factory=list)
    events: list[dict[str, Any]] = field(default_factory=list)
    """Point-in-time events: ``{"name", "time", "attributes"}`` (approvals, errors)."""
    status: str = "running"
    """``running``, ``ok``, ``error``, ``cancelled`` or ``blocked``."""

    @property
    def duration_s(self) -> float | None:
        return None if self.end is None else self.end - self.start

    def walk(self) -> Iterator[TraceSpan]:
        yield self
        for child in self.children:
            yield from child.walk()


class _Trace:
    """One reply's tracing: the tree, the OTel spans beside it, the secrets to mask."""

    def __init__(self, owner: Tracing, tracer: Any, root: TraceSpan) -> None:
        self.owner = owner
        self.tracer = tracer
        self.root = root
        self.secrets = owner.secrets() if owner.capture_content else NO_SECRETS
        self.otel: dict[int, Any] = {}  # id(TraceSpan) -> OTel span
        self.tools: dict[str, TraceSpan] = {}
        self.names: dict[str, str] = {}  # call id -> tool name, from ToolCallEnd
        self.middleware_before: dict[str, float] = {}
        self.model: TraceSpan | None = None  # the chat span open now

    def text(self, value: Any) -> str:
        # Redacted before encoding (an escaped "\n" would glue a key to the word before
        # it) and before the cut (half a key has no shape to recognise).
        secrets = self.secrets
        shown = secrets.text(value) if isinstance(value, str) else json_text(secrets.json(value))
        limit = self.owner.max_chars
        return shown if len(shown) <= limit else shown[:limit] + "…"

    def open(self, span: TraceSpan, parent: TraceSpan | None) -> TraceSpan:
        if parent is not None:
            parent.children.append(span)
        if self.tracer is not None:
            from opentelemetry import trace as otel

            context = otel.set_span_in_context(self.otel[id(parent)]) if parent is not None else None
            kind = otel.SpanKind.CLIENT if span.kind == "model" else otel.SpanKind.INTERNAL
            self.otel[id(span)] = self.tracer.start_span(span.name, context=context, kind=kind)
        return span

    def child(self, name: str, kind: str, attributes: dict[str, Any]) -> TraceSpan:
        """A span under the reply's, in the same conversation."""
        attributes["gen_ai.conversation.id"] = self.root.attributes["gen_ai.conversation.id"]
        return self.open(TraceSpan(name, kind, time.time(), attributes=attributes), self.root)

    def event(self, span: TraceSpan, name: str, attributes: dict[str, Any]) -> None:
        span.events.append({"name": name, "time": time.time(), "attributes": attributes})
        if id(span) in self.otel:
            self.otel[id(span)].add_event(name, _otel_attributes(attributes))

    def close(self, span: TraceSpan, status: str, error: str | None = None) -> None:
        span.end, span.status = time.time(), status
        if error:
            span.attributes["error.type"] = error
        handle = self.otel.pop(id(span), None)
        if handle is not None:
            from opentelemetry.trace import Status, StatusCode

            handle.set_attributes(_otel_attributes(span.attributes))
            if status in ("error", "blocked"):
                handle.set_status(Status(StatusCode.ERROR, error or status))
            handle.end()


def _otel_attributes(attributes: dict[str, Any]) -> dict[str, Any]:
    ok = (str, bool, int, float)
    return {
        k: v if isinstance(v, ok) or (isinstance(v, list) and all(isinstance(x, ok) for x in v)) else str(v)
        for k, v in attributes.items()
        if v is not None
    }


def _model_attributes(model: Any) -> dict[str, str]:
    return {
        "gen_ai.request.model": str(getattr(model, "name", type(model).__name__)),
        "gen_ai.provider.name": str(getattr(model, "provider", "") or "unknown"),
    }


def _message_json(trace: _Trace, messages: Iterable[Any]) -> str:
    items = [{"role": m.role, "parts": [{"type": "text", "content": m.text}]} for m in messages]
    return trace.text(items)


class Tracing(Middleware):
    """OpenTelemetry GenAI spans when an SDK is configured, and the span tree the UI shows."""

    builtin: ClassVar[bool] = True
    name = "Tracing"
    description = "Spans for every reply, model call and tool (OpenTelemetry when configured)."

    def __init__(
        self,
        *,
        tracer_provider: Any = None,
        tree: bool = False,
        keep: int = 20,
        capture_content: bool = True,
        max_chars: int = 4000,
    ) -> None:
        self.tracer_provider = tracer_provider  # None: the global one, if it is a real one
        self.tree = tree
        self.capture_content = capture_content  # messages, arguments, results (redacted)
        self.max_chars = max_chars
        self.traces: deque[TraceSpan] = deque(maxlen=keep)
        """The root spans of the most recent replies, oldest first, updated live."""
        self._cached: tuple[Any, Any] = (None, None)
        self._secrets: tuple[float, Secrets] = (-1e9, NO_SECRETS)

    def is_active(self, hook: str) -> bool:
        """Nothing to export and no tree to keep: step out of every hook, so Tracing
        costs nothing until a provider is configured or a UI shows the trace view
        (which sets ``tree = True``)."""
        return self.tree or self.tracer() is not None

    def secrets(self) -> Secrets:
        """The environment's secrets, re-read at most every ``SECRETS_TTL_S`` (the
        environment rarely changes, and scanning it every reply would be most of this
        layer's cost)."""
        now = time.monotonic()
        if now - self._secrets[0] > SECRETS_TTL_S:
            self._secrets = (now, environment_secrets())
        return self._secrets[1]

    def tracer(self) -> Any:
        """An OTel tracer if spans can go anywhere, else None (importing nothing)."""
        provider = self.tracer_provider
        if provider is None:
            api = sys.modules.get("opentelemetry.trace")
            if api is None:
                return None  # nobody imported OTel, so nobody configured it
            provider = api.get_tracer_provider()
            if isinstance(provider, (api.ProxyTracerProvider, api.NoOpTracerProvider)):
                return None
        if self._cached[0] is not provider:
            self._cached = (provider, provider.get_tracer("agent-shell"))
        return self._cached[1]

    # -- on_reply: the invoke_agent span --------------------------------------------
    def on_reply(self, ctx: HookContext, request: ReplyRequest, next: ReplyNext) -> AsyncIterator[Event]:
        # A plain function, not a generator: with nothing to record, the inner stream
        # is handed back as it is and this layer adds no frame of its own.
        tracer = self.tracer()
        if tracer is None and not self.tree:
            return next(request)
        return self._reply(ctx, tracer, request, next)

    async def _reply(
        self, ctx: HookContext, tracer: Any, request: ReplyRequest, next: ReplyNext
    ) -> AsyncIterator[Event]:
        trace = self._start(ctx, tracer, request)
        try:
            async for event in next(request):
                if type(event) in _WATCHED:
                    if isinstance(event, ReplyEnd):
                        self._end(ctx, trace, event)
                        yield CustomEvent(EVENT_NAME, trace.root)
                    else:
                        self._observe(trace, event)
                yield event
        finally:
            if trace.root.end is None:  # the stream was closed before ReplyEnd
                self._close_open(trace, "cancelled")
                trace.close(trace.root, "cancelled")

    def _start(self, ctx: HookContext, tracer: Any, request: ReplyRequest) -> _Trace:
        conversation = ctx.session_state.setdefault("conversation_id", f"conv_{uuid.uuid4().hex[:16]}")
        agent = ctx.agent
        attrs = {
            "gen_ai.operation.name": "invoke_agent",
            "gen_ai.agent.name": agent.name,
            "gen_ai.conversation.id": conversation,
            "agent_shell.reply.id": ctx.reply_id,
            **_model_attributes(agent.model),
        }
        root = TraceSpan(f"invoke_agent {agent.name}", "agent", time.time(), attributes=attrs)
        trace = _Trace(self, tracer, root)
        if self.capture_content:
            root.attributes["gen_ai.input.messages"] = _message_json(trace, request.input)
        trace.middleware_before = self._middleware_time(ctx)
        trace.open(root, None)
        ctx.reply_state["trace"] = trace
        self.traces.append(root)
        return trace

    @staticmethod
    def _middleware_time(ctx: HookContext) -> dict[str, float]:
        stack = ctx.agent.middleware
        return {name: stack.stats(name).time_s for name in stack.names()}

    def _observe(self, trace: _Trace, event: Event) -> None:
        """Approvals become events on the reply span; blocked calls get their tool span."""
        if isinstance(event, ApprovalRequested):
            req = event.request
            attrs: dict[str, Any] = {
                "gen_ai.tool.call.id": event.call_id,
                "gen_ai.tool.name": req.call.name,
                "agent_shell.approval.allowed_decisions": list(req.allowed_decisions),
            }
            if self.capture_content:
                attrs["gen_ai.tool.call.arguments"] = trace.text(req.args)
            trace.event(trace.root, "agent_shell.approval.pending", attrs)
        elif isinstance(event, ApprovalResolved):
            attrs = {
                "gen_ai.tool.call.id": event.call_id,
                "agent_shell.approval.decision": event.decision.type,
            }
            trace.event(trace.root, "agent_shell.approval.resolved", attrs)
        elif isinstance(event, ToolCallEnd):
            trace.names[event.call_id] = event.name
        elif isinstance(event, ToolExecutionEnd) and event.call_id not in trace.tools:
            # blocked or skipped before on_acting: still a span, so the tree shows the call
            name = trace.names.get(event.call_id, "unknown")
            span = self._tool_span(trace, event.call_id, name, {})
            span.attributes["agent_shell.tool.blocked_reason"] = trace.text(event.result.text)
            trace.close(span, "blocked", "blocked")
        elif isinstance(event, ErrorEvent):
            attrs = {"exception.message": trace.text(event.error), "agent_shell.error.source": event.source}
            trace.event(trace.root, "exception", attrs)
            if trace.model is not None and event.source == "model":
                span, trace.model = trace.model, None
                trace.close(span, "error", type(event.exception).__name__ if event.exception else "error")

    @staticmethod
    def _close_open(trace: _Trace, status: str) -> None:
        """Spans still open when the reply ends (a cancel, an error) end with it."""
        for span in trace.root.children:
            if span.end is None:
                trace.close(span, status)
        trace.model = None

    def _end(self, ctx: HookContext, trace: _Trace, event: ReplyEnd) -> None:
        self._close_open(trace, "cancelled" if event.stop_reason == "cancelled" else "error")
        attrs = trace.root.attributes
        before = trace.middleware_before
        for name, spent in self._middleware_time(ctx).items():
            if spent - before.get(name, 0.0) > 0:
                attrs[f"agent_shell.middleware.{name}.time_s"] = spent - before.get(name, 0.0)
        attrs["gen_ai.usage.input_tokens"] = event.usage.input_tokens
        attrs["gen_ai.usage.output_tokens"] = event.usage.output_tokens
        attrs["gen_ai.response.finish_reasons"] = [event.stop_reason]
        if self.capture_content and event.message is not None:
            attrs["gen_ai.output.messages"] = _message_json(trace, [event.message])
        status = "ok" if event.stop_reason in ("end_turn", "max_rounds", "stopped") else event.stop_reason
        trace.close(trace.root, status, "error" if status == "error" else None)

    # -- on_model_call .. after_model_response: the chat span ------------------------
    # The span opens in on_model_call and closes in after_model_response (usage and
    # stop reason are on the message), so no frame of ours sits on the chunk stream.
    def on_model_call(
        self, ctx: HookContext, request: ModelRequest, next: ModelNext
    ) -> AsyncIterator[ModelChunk]:
        trace: _Trace | None = ctx.reply_state.get("trace")
        if trace is not None:
            self._close_model(ctx, trace, "error", "retried")  # an inner layer called next again
            attrs = {"gen_ai.operation.name": "chat", **_model_attributes(request.model)}
            trace.model = trace.child(f"chat {attrs['gen_ai.request.model']}", "model", attrs)
        return next(request)

    async def after_model_response(self, ctx: HookContext, response: AssistantMessage) -> TurnAction | None:
        trace: _Trace | None = ctx.reply_state.get("trace")
        if trace is not None and trace.model is not None:
            attrs = trace.model.attributes
            attrs["gen_ai.usage.input_tokens"] = response.usage.input_tokens
            attrs["gen_ai.usage.output_tokens"] = response.usage.output_tokens
            attrs["gen_ai.response.finish_reasons"] = [response.stop_reason]
            self._close_model(ctx, trace, "ok")
        return None

    @staticmethod
    def _close_model(ctx: HookContext, trace: _Trace, status: str, error: str | None = None) -> None:
        span, trace.model = trace.model, None
        if span is not None:
            trace.close(span, status, error)
            ctx.emit(CustomEvent(EVENT_NAME, trace.root))

    # -- on_acting: the execute_tool span ---------------------------------------------
    def _tool_span(self, trace: _Trace, call_id: str, name: str, args: Any) -> TraceSpan:
        attrs: dict[str, Any] = {
            "gen_ai.operation.name": "execute_tool",
            "gen_ai.tool.name": name,
            "gen_ai.tool.call.id": call_id,
            "gen_ai.tool.type": "function",
        }
        if self.capture_content:
            attrs["gen_ai.tool.call.arguments"] = trace.text(args)
        span = trace.child(f"execute_tool {name}", "tool", attrs)
        trace.tools[call_id] = span
        return span

    async def on_acting(
        self, ctx: ToolCallContext, request: ToolRequest, next: Callable[[ToolRequest], Any]
    ) -> ToolResult:
        trace: _Trace | None = ctx.reply_state.get("trace")
        if trace is None:
            direct: ToolResult = await next(request)
            return direct
        span = self._tool_span(trace, request.call.id, request.tool.name, request.args)
        status, error = "cancelled", None
        try:
            if trace.tracer is not None:  # so spans the tool itself starts nest under this one
                from opentelemetry.trace import use_span

                with use_span(trace.otel[id(span)], end_on_exit=False):
                    result: ToolResult = await next(request)
            else:
                result = await next(request)
            status = "error" if result.is_error else "ok"
            error = "tool_error" if result.is_error else None
            if self.capture_content:
                span.attributes["gen_ai.tool.call.result"] = trace.text(result.text)
            return result
        except Exception as exc:
            status, error = "error", type(exc).__name__
            raise
        finally:
            trace.close(span, status, error)
            ctx.emit(CustomEvent(EVENT_NAME, trace.root))


_WATCHED = {ReplyEnd, ApprovalRequested, ApprovalResolved, ToolCallEnd, ToolExecutionEnd, ErrorEvent}
