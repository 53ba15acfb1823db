"""Tracing: OTel GenAI spans (in-memory exporter), redaction, HITL events, the UI's tree."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from typing import Any

import pytest
from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

from middleware.human_in_the_loop import HumanInTheLoop
from middleware.tracing import TraceSpan, Tracing
from shell.agent import ApprovalDecision, ApprovalRequest, AssistantMessage, ModelError, ToolCallBlock, tool
from shell.agent.loop import Agent
from shell.core.events import CustomEvent, Event, ReplyEnd, TextBlockDelta
from shell.core.secrets import REDACTED, Secrets, secret_values
from shell.providers.scripted import ScriptedModel

pytestmark = pytest.mark.anyio

SECRET = "sk-proj-abcdefghijklmnop1234567890"


@tool(read_only=True)
def lookup(key: str) -> str:
    """Look a key up."""
    return f"value of {key}; auth header was Bearer abc.def.ghi-123456"


@tool
def deploy(target: str) -> str:
    """Deploy somewhere."""
    return "deployed"


def call(name: str = "lookup", call_id: str = "call_1", **args: Any) -> AssistantMessage:
    return AssistantMessage((ToolCallBlock(call_id, name, args or {"key": "colour"}),))


def otel() -> tuple[TracerProvider, InMemorySpanExporter]:
    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    return provider, exporter


async def run(agent: Agent, text: str = "go") -> list[Event]:
    return [e async for e in agent.reply(text)]


def by_name(spans: tuple[ReadableSpan, ...] | list[ReadableSpan], prefix: str) -> list[ReadableSpan]:
    return [s for s in spans if s.name.startswith(prefix)]


async def test_otel_spans_follow_the_genai_conventions() -> None:
    provider, exporter = otel()
    model = ScriptedModel([call(), "The colour is blue.", "Again."])
    agent = Agent(model, tools=[lookup], middleware=[Tracing(tracer_provider=provider)], name="helper")
    events = await run(agent, "what colour?")
    spans = exporter.get_finished_spans()
    (root,) = by_name(spans, "invoke_agent ")
    chats = by_name(spans, "chat ")
    (tool_span,) = by_name(spans, "execute_tool ")
    assert root.name == "invoke_agent helper" and len(chats) == 2 and tool_span.name == "execute_tool lookup"
    assert len(spans) == 4

    ra = dict(root.attributes or {})
    assert ra["gen_ai.operation.name"] == "invoke_agent" and ra["gen_ai.agent.name"] == "helper"
    assert ra["agent_shell.reply.id"] == events[0].reply_id
    assert ra["gen_ai.provider.name"] == "scripted" and ra["gen_ai.request.model"] == "scripted"
    assert "what colour?" in str(ra["gen_ai.input.messages"])
    assert "blue" in str(ra["gen_ai.output.messages"])
    end = events[-1]
    assert isinstance(end, ReplyEnd)
    assert ra["gen_ai.usage.input_tokens"] == end.usage.input_tokens > 0

    ca = dict(chats[0].attributes or {})
    assert ca["gen_ai.operation.name"] == "chat" and ca["gen_ai.request.model"] == "scripted"
    assert ca["gen_ai.provider.name"] == "scripted"
    assert int(str(ca["gen_ai.usage.input_tokens"])) > 0 and int(str(ca["gen_ai.usage.output_tokens"])) > 0
    assert tuple(ca["gen_ai.response.finish_reasons"]) == ("tool_use",)  # type: ignore[arg-type]

    ta = dict(tool_span.attributes or {})
    assert ta["gen_ai.operation.name"] == "execute_tool" and ta["gen_ai.tool.name"] == "lookup"
    assert ta["gen_ai.tool.call.id"] == "call_1"
    assert json.loads(str(ta["gen_ai.tool.call.arguments"])) == {"key": "colour"}
    assert "value of colour" in str(ta["gen_ai.tool.call.result"])

    # one tree: the chat and tool spans are children of the reply span, in one trace
    for child in [*chats, tool_span]:
        assert child.parent is not None and child.parent.span_id == root.context.span_id
        assert child.context.trace_id == root.context.trace_id
    conversation = {s.attributes["gen_ai.conversation.id"] for s in spans if s.attributes}
    assert len(conversation) == 1

    exporter.clear()
    await run(agent, "and again?")
    second = exporter.get_finished_spans()
    assert len(by_name(second, "invoke_agent ")) == 1  # one invoke_agent span per reply
    assert {s.attributes["gen_ai.conversation.id"] for s in second if s.attributes} == conversation


async def test_secrets_are_redacted_everywhere(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MY_SERVICE_TOKEN", "tok-very-private-42")
    provider, exporter = otel()
    mw = Tracing(tracer_provider=provider)
    agent = Agent(
        ScriptedModel([call(key=f"{SECRET} and tok-very-private-42"), "done"]),
        tools=[lookup],
        middleware=[mw],
    )
    await run(agent, f"use my key {SECRET}")
    dumped = json.dumps([dict(s.attributes or {}) for s in exporter.get_finished_spans()])
    for secret in (SECRET, "tok-very-private-42", "abc.def.ghi-123456"):
        assert secret not in dumped
    assert REDACTED in dumped
    tree = json.dumps([s.attributes for s in mw.traces[-1].walk()], default=str)
    assert SECRET not in tree and "tok-very-private-42" not in tree


def test_redact_patterns() -> None:
    text = (
        "openai sk-ant-api03-AAAABBBBCCCC; Authorization: Bearer eyJhbGciOi.x.y; "
        "aws AKIAIOSFODNN7EXAMPLE aws_secret_access_key=wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY "
        'gh ghp_0123456789abcdefghijABCDEFGHIJ {"api_key": "hunter2hunter2"} plain words stay'
    )
    out = Secrets(["custom-secret-value"]).text(text)
    for secret in (
        "sk-ant-api03",
        "eyJhbGciOi",
        "AKIAIOSFODNN7EXAMPLE",
        "wJalrXUtnFEMI",
        "ghp_0123",
        "hunter2hunter2",
    ):
        assert secret not in out, secret
    assert "Bearer [REDACTED]" in out and "plain words stay" in out and '"api_key": "[REDACTED]"' in out
    assert Secrets(["custom-secret-value"]).text("the custom-secret-value leaked") == "the [REDACTED] leaked"
    found = secret_values(
        {"OPENAI_API_KEY": "sk-123456", "GH_TOKEN": "ghtoken99", "HOME": "/root", "X_KEY": "1"}
    )
    assert found == ["ghtoken99", "sk-123456"] or found == ["sk-123456", "ghtoken99"]


async def test_hitl_pending_calls_are_span_events() -> None:
    provider, exporter = otel()

    async def ask(request: ApprovalRequest) -> ApprovalDecision:
        return ApprovalDecision.reject("not today")

    agent = Agent(
        ScriptedModel([call("deploy", target="prod"), "ok, not deploying"]),
        tools=[deploy],
        middleware=[Tracing(tracer_provider=provider), HumanInTheLoop({"deploy": True})],
        ask=ask,
    )
    await run(agent)
    spans = exporter.get_finished_spans()
    (root,) = by_name(spans, "invoke_agent ")
    names = [e.name for e in root.events]
    assert names == ["agent_shell.approval.pending", "agent_shell.approval.resolved"]
    pending = dict(root.events[0].attributes or {})
    assert pending["gen_ai.tool.name"] == "deploy" and pending["gen_ai.tool.call.id"] == "call_1"
    assert json.loads(str(pending["gen_ai.tool.call.arguments"])) == {"target": "prod"}
    assert dict(root.events[1].attributes or {})["agent_shell.approval.decision"] == "reject"
    # the rejected call never ran, but it has its (blocked) span
    (blocked,) = by_name(spans, "execute_tool ")
    assert blocked.name == "execute_tool deploy" and not blocked.status.is_ok


async def test_span_tree_without_otel_is_live_and_complete() -> None:
    mw = Tracing(tree=True)
    assert mw.tracer() is None
    agent = Agent(ScriptedModel([call(), "The colour is blue."]), tools=[lookup], middleware=[mw])
    events: list[Event] = []
    live: list[TraceSpan | None] = []
    async for event in agent.reply("go"):
        events.append(event)
        if isinstance(event, TextBlockDelta):
            live.append(mw.traces[-1] if mw.traces and mw.traces[-1].end is None else None)
    assert live and all(span is not None for span in live)  # the root exists while the reply runs

    (root,) = mw.traces
    assert root.kind == "agent" and root.status == "ok" and root.duration_s is not None
    assert [c.kind for c in root.children] == ["model", "tool", "model"]
    first_chat, tool_span, _ = root.children
    assert first_chat.attributes["gen_ai.usage.output_tokens"] > 0
    assert tool_span.attributes["gen_ai.tool.name"] == "lookup" and tool_span.duration_s is not None
    assert tool_span.status == "ok" and all(c.end is not None for c in root.children)
    assert root.attributes["agent_shell.middleware.Tracing.time_s"] > 0  # from the stack's stats
    updates = [e for e in events if isinstance(e, CustomEvent) and e.name == "trace"]
    assert len(updates) == 4 and all(u.data is root for u in updates)  # three children closed, then the root
    assert events[-2] is updates[-1] and isinstance(events[-1], ReplyEnd)  # the root's, just before ReplyEnd


async def test_errors_and_cancellation_mark_the_spans() -> None:
    mw = Tracing(keep=2, tree=True)
    agent = Agent(ScriptedModel([ModelError("model down")]), middleware=[mw])
    await run(agent)
    root = mw.traces[-1]
    assert root.status == "error" and root.children[0].status == "error"
    assert root.children[0].attributes["error.type"] == "ModelError"
    assert [e["name"] for e in root.events] == ["exception"]

    slow = Agent(ScriptedModel(["word " * 50], chunk_size=2, delay=0.01), middleware=[mw])
    stream = slow.reply("go")
    async for event in stream:
        if isinstance(event, TextBlockDelta):
            break
    await stream.aclose()
    assert mw.traces[-1].status == "cancelled" and mw.traces[-1].end is not None
    assert len(mw.traces) == 2  # keep=2


async def test_tree_off_and_no_otel_leaves_the_stream_untouched() -> None:
    plain = await run(Agent(ScriptedModel([call(), "done"]), tools=[lookup]))
    mw = Tracing(tree=False)
    traced = await run(Agent(ScriptedModel([call(), "done"]), tools=[lookup], middleware=[mw]))
    assert [type(e) for e in traced] == [type(e) for e in plain]
    assert not mw.traces


def test_no_otel_import_without_a_configured_provider() -> None:
    code = (
        "import sys, anyio\n"
        "from middleware.tracing import Tracing\n"
        "from shell.agent.loop import Agent\n"
        "from shell.providers.scripted import ScriptedModel\n"
        "async def main():\n"
        "    mw = Tracing(tree=True)\n"
        "    agent = Agent(ScriptedModel(['hi']), middleware=[mw])\n"
        "    [e async for e in agent.reply('x')]\n"
        "    assert mw.traces[-1].status == 'ok'\n"
        "anyio.run(main)\n"
        "print(sorted(m for m in sys.modules if m.startswith('opentelemetry')))\n"
    )
    env = {**os.environ, "PYTHONPATH": os.getcwd()}
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=60)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "[]"


async def test_the_global_provider_is_used_only_when_real(monkeypatch: pytest.MonkeyPatch) -> None:
    from opentelemetry import trace

    mw = Tracing()
    assert isinstance(trace.get_tracer_provider(), trace.ProxyTracerProvider) or mw.tracer() is not None
    provider, exporter = otel()
    monkeypatch.setattr(trace, "get_tracer_provider", lambda: provider)
    assert mw.tracer() is not None
    await run(Agent(ScriptedModel(["hi"]), middleware=[mw]))
    assert [s.name for s in exporter.get_finished_spans()] == ["chat scripted", "invoke_agent agent"]
    monkeypatch.setattr(trace, "get_tracer_provider", lambda: trace.NoOpTracerProvider())
    assert mw.tracer() is None
