"""The model's half of a turn: ``on_reasoning`` around the request's assembly and the
``on_model_call`` onion around the model; the message it streams lands in the
history, then ``after_model_response`` decides the turn (:attr:`Reply.turn`).

The path: :func:`reason` (the ``on_reasoning`` onion) -> :func:`reasoning_core`
(prompt, tools, view, ``on_model_call``) -> :func:`call_model`. The model call's
closing events (block ends, call ends) are held until the message is in the history
and the turn decided: a block shown as finished is in the history (a crash loses
nothing shown), and a response a hook replaced reaches the screen
(:func:`restated`).
"""

from __future__ import annotations

from collections.abc import AsyncGenerator, AsyncIterator, Sequence
from functools import partial
from time import perf_counter

import anyio.lowlevel

from middleware.types import ReasoningRequest, ReplyCancelled, StopReply, TurnAction
from shell.core.assembly import ChunkAssembler, MessageBuilder, NotAChunk, call_ids, message_chunks
from shell.core.events import (
    Event,
    ModelCallEnd,
    ModelCallStart,
    Notice,
    TextBlockEnd,
    ThinkingBlockEnd,
    ToolCallEnd,
    ToolCallStart,
    ToolExecutionEnd,
)
from shell.core.messages import AssistantMessage, TextBlock, ThinkingBlock, ToolResult
from shell.core.model import ModelChunk, ModelRequest, as_model, model_label
from shell.core.tools import Tool

from .reply import Reply

_CLOSING = (TextBlockEnd, ThinkingBlockEnd, ToolCallEnd, ModelCallEnd)
HOLD_SLICE_S = 0.004
"""While closing events are held (nothing reaches the consumer, whose pacing gives
the event loop its turns), the loop is given a turn this often: a turn of 1,000
tool calls closes them all at the end of the model call, ~25 ms in one go."""


async def _turn_when_due(turn: float) -> float:
    """Give the event loop a turn once ``turn`` (a ``perf_counter`` time) has passed;
    the time of the next one."""
    if perf_counter() < turn:
        return turn
    await anyio.lowlevel.checkpoint()
    return perf_counter() + HOLD_SLICE_S


async def reason(reply: Reply) -> AsyncGenerator[Event, None]:
    """One round's reasoning (the ``on_reasoning`` onion); its message is rebuilt from
    the events that come out, lands in the history, then ``after_model_response``
    decides the turn. The model call's closing events (block ends, call ends) wait
    for both: a block shown as finished is in the history (a crash loses nothing
    shown), and a replaced response reaches the screen."""
    run, stack = reply.run, reply.agent.middleware
    builder = reply.builder = MessageBuilder()
    reply.committed = None
    amend = stack.has_hook("after_model_response")
    held: list[Event] = []
    onion = stack.stream("on_reasoning", run, ReasoningRequest(), partial(reasoning_core, reply), "model")
    turn = perf_counter() + HOLD_SLICE_S
    try:
        async for event in onion.items:
            onion.check_event(event)
            if reply.cancelled and not isinstance(event, _CLOSING):
                raise ReplyCancelled()  # what streams after a cancel is neither shown nor kept
            builder.see(event)
            for queued in reply.drain():
                yield queued
            if isinstance(event, _CLOSING):
                held.append(event)
                turn = await _turn_when_due(turn)  # nothing goes out meanwhile
            else:
                yield event
    except BaseException as exc:
        if isinstance(exc, Exception):
            onion.blame(exc)
        _keep_partial(reply, builder, exc)
        if isinstance(exc, (Exception, ReplyCancelled)):  # not closing: end the blocks shown
            for event in _not_withdrawn(held, builder):
                yield event
        raise
    finally:
        await onion.aclose()
    held = _not_withdrawn(held, builder)
    if builder.empty:  # a layer skipped the model and said nothing: the reply ends here
        reply.stop = "stopped"
        return
    message = _commit(reply, builder.message())
    action = await _decided(reply, message) if amend else TurnAction(decision="natural")
    if action.response is not None and action.response is not message:
        held = restated(reply, held, message, action.response)
        run.history[-1] = reply.last_message = action.response
        reply.pending = (action.response, {}) if action.response.tool_calls else None
    else:  # its blocks are the builder's: a cancel while they are drawn can cut them
        reply.committed = (message, builder)
    reply.turn = action
    for event in [*reply.drain(), *held]:
        yield event


async def _decided(reply: Reply, message: AssistantMessage) -> TurnAction:
    """What ``after_model_response`` decides for ``message`` (in the history now)."""
    run = reply.run
    try:
        return await reply.agent.middleware.after_model_response(run, message)
    except StopReply:  # a policy refused the response (PII "block"): it does not stay
        if run.history and run.history[-1] is message:
            run.history.pop()
        reply.last_message, reply.pending = None, None
        raise


async def reasoning_core(reply: Reply, request: ReasoningRequest) -> AsyncIterator[Event]:
    """The innermost ``on_reasoning``: assemble the request, call the model through
    the ``on_model_call`` onion, turn its chunks into events."""
    agent, run = reply.agent, reply.run
    stack = agent.middleware
    prompt = await stack.transform_system_prompt(run, agent.system_prompt)
    own = agent.tools
    reply.tool_map = _tool_map([*own, *await stack.list_tools(run, [t.name for t in own])])
    run.tools = list(reply.tool_map.values())
    view = await stack.transform_context(run, list(run.history))
    messages = await stack.convert_to_llm(run, view)
    reply.offered = {t.name for t in run.tools}
    model_request = ModelRequest(
        agent.model, prompt, tuple(messages), tuple(run.tools), request.tool_choice, request.options
    )
    assembler = ChunkAssembler(run.reply_id, run.block_ids, call_ids(run.history))
    attempts = Attempts(reply, assembler)
    onion = stack.stream("on_model_call", run, model_request, partial(call_model, reply, attempts), "model")
    try:
        async for chunk in onion.items:
            events = assembler.feed(chunk)
            for queued in reply.drain():
                yield queued
            for event in events:
                yield event
    except Exception as exc:
        if isinstance(exc, NotAChunk):
            onion.outermost_failed(exc)
        onion.blame(exc)
        for event in [*reply.drain(), *assembler.abort()]:
            yield event
        raise
    finally:
        await onion.aclose()
    for event in reply.drain():
        yield event
    for event in assembler.finish():  # one call's arguments parsed at a time (see HOLD_SLICE_S)
        yield event


RETRIED = ToolResult(
    "The call was withdrawn: the model's answer failed part way and a middleware asked "
    "again; it did not run.",
    True,
)


class Attempts:
    """The attempts of one model call: an ``on_model_call`` layer that calls ``next``
    again after the model's stream failed (it raised, or a layer stopped reading it
    part way, e.g. because a layer between raised) is retrying, and what the failed
    attempt streamed is withdrawn (:class:`~shell.core.events.AttemptWithdrawn`):
    its text does not join the retry's and its tool calls never run (a provider
    re-sends the same call after a dropped stream: it ran twice). A call of ``next``
    after a stream that ended well is not a retry: its chunks follow the first's (a
    layer that continues a reply cut at ``max_tokens``)."""

    __slots__ = ("assembler", "failures", "reply", "stream")

    def __init__(self, reply: Reply, assembler: ChunkAssembler) -> None:
        self.reply = reply
        self.assembler = assembler
        self.stream: AsyncIterator[ModelChunk] | None = None
        self.failures = 0

    def begin(self, stream: AsyncIterator[ModelChunk]) -> None:
        """A model stream is entered: when the previous one failed, withdraw its output."""
        previous, reply = self.stream, self.reply
        if previous is not None and (
            reply.model_failures > self.failures or getattr(previous, "ag_frame", None) is not None
        ):
            withdrawn = self.assembler.withdraw()
            if withdrawn is not None:
                reply.emit(withdrawn)
                rid = withdrawn.reply_id
                for call_id in withdrawn.call_ids:  # its card ends as every front end shows one
                    reply.emit(ToolExecutionEnd(call_id, RETRIED, 0.0, blocked=True, reply_id=rid))
        self.stream, self.failures = stream, reply.model_failures


def call_model(reply: Reply, attempts: Attempts, request: ModelRequest) -> AsyncIterator[ModelChunk]:
    """The innermost ``on_model_call``: the model that answers is the one named."""
    model = as_model(request.model)
    reply.agent.last_request = request
    stream = reply.model_stream(
        model.stream(request if model is request.model else request.override(model=model))
    )
    attempts.begin(stream)
    reply.emit(ModelCallStart(model_label(model)))
    return stream


def _not_withdrawn(held: list[Event], builder: MessageBuilder) -> list[Event]:
    """The held closing events but those of the blocks a failed attempt streamed
    (filtered once a round, not checked per event: the common round has none)."""
    gone = builder.withdrawn
    if not gone:
        return held
    return [e for e in held if getattr(e, "block_id", getattr(e, "call_id", None)) not in gone]


def _keep_partial(reply: Reply, builder: MessageBuilder, exc: BaseException) -> None:
    """The message cut off by ``exc`` joins the history (when it has anything)."""
    message = _partial(reply, builder, exc)
    if message.content:
        reply.run.history.append(message)
        reply.last_message = message


def _partial(reply: Reply, builder: MessageBuilder, exc: BaseException) -> AssistantMessage:
    """The message cut off by ``exc``: what a cancelled one keeps is :mod:`shell.core.partial`'s."""
    if isinstance(exc, Exception):
        return builder.message(partial_reason="error")
    shown = reply.shown_now()
    # (a cut one ends with a marker that says so; no Notice: mounting one after Esc
    # kept the TUI busy 250 ms longer under a flood, and its cancel note says it)
    return builder.message(partial_reason="cancelled", shown=shown)


def _commit(reply: Reply, assistant: AssistantMessage) -> AssistantMessage:
    """The model's message joins the history (its calls pending until they run)."""
    reply.run.history.append(assistant)
    reply.last_message = assistant
    reply.usage = reply.usage + assistant.usage
    if assistant.tool_calls:
        reply.pending = (assistant, {})  # until they run, the calls would get "did not run"
    if assistant.stop_reason == "max_tokens":
        reply.emit(
            Notice(
                "warning",
                "The model stopped at its output token limit; the answer may be cut off.",
                "model",
            )
        )
    return assistant


def restated(
    reply: Reply, held: list[Event], original: AssistantMessage, new: AssistantMessage
) -> list[Event]:
    """The model call's closing events, restated for a response ``after_model_response``
    replaced: each block ends with its new content (a block with no counterpart ends
    empty, a new one is streamed whole), calls that were withdrawn are closed."""
    rid = reply.run.reply_id
    out: list[Event] = []
    for kind, end in ((TextBlock, TextBlockEnd), (ThinkingBlock, ThinkingBlockEnd)):
        ends = [e for e in held if isinstance(e, end)]
        blocks = [b for b in new.content if type(b) is kind]
        for i, old in enumerate(ends):
            text = blocks[i].text if i < len(blocks) else ""
            out.append(end(old.block_id, text, reply_id=rid))
        extra = AssistantMessage(tuple(blocks[len(ends) :]))
        if kind is TextBlock and extra.content:
            assembler = ChunkAssembler(rid, reply.run.block_ids)
            for chunk in message_chunks(extra):
                out.extend(e for e in assembler.feed(chunk) if not isinstance(e, ModelCallEnd))
            out.extend(assembler.abort())
    old_calls = {e.call_id: e for e in held if isinstance(e, ToolCallEnd)}
    for call in new.tool_calls:
        if call.id not in old_calls:
            out.append(ToolCallStart(call.id, call.name, reply_id=rid))
        out.append(ToolCallEnd(call.id, call.name, call.args, reply_id=rid))
    kept = {c.id for c in new.tool_calls}
    for call_id, old_end in old_calls.items():
        if call_id not in kept:
            out.append(old_end)
            withdrawn = ToolResult("The call was withdrawn: a middleware replaced the response.", True)
            out.append(ToolExecutionEnd(call_id, withdrawn, 0.0, blocked=True, reply_id=rid))
    out.extend(e for e in held if isinstance(e, ModelCallEnd))
    return out


def _tool_map(tools: Sequence[Tool]) -> dict[str, Tool]:
    """By name; the first tool of a name wins (the agent's own before middleware's)."""
    found: dict[str, Tool] = {}
    for t in tools:
        found.setdefault(t.name, t)
    return found
