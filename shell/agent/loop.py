"""The agent: what one reply does. Rounds of reasoning and acting, wrapped in middleware.

Read ``Agent._core`` first: it is the whole loop on one screen, and every step it
calls is a named method below it. The path to the model: ``Agent.reply`` ->
``Reply.events`` (the ``on_reply`` onion, :mod:`shell.agent.reply`) -> ``_core`` ->
``_reason`` (the ``on_reasoning`` onion) -> ``_reasoning_core`` (the ``on_model_call``
onion) -> ``_call_model``. All of it is pulled by the caller, in the caller's task;
only a turn's tool calls run beside it (:mod:`shell.agent.batch`).
"""

from __future__ import annotations

from collections import deque
from collections.abc import AsyncGenerator, AsyncIterator, Awaitable, Callable, Sequence
from contextlib import aclosing
from functools import partial
from time import perf_counter
from typing import Any, Literal

import anyio
import anyio.lowlevel

from middleware.base import Middleware
from middleware.context import CallState
from middleware.stack import HOOK_ATTR, MiddlewareStack, error_source
from middleware.types import (
    BLOCKED_REASON,
    BeforeToolCallResult,
    CallOutcome,
    CompressRequest,
    ReasoningRequest,
    ReplyCancelled,
    ReplyRequest,
    StopReply,
    ToolRequest,
    TurnAction,
)
from shell.core.approvals import ApprovalRequest, unattended_rejection
from shell.core.assembly import ChunkAssembler, MessageBuilder, message_chunks
from shell.core.events import (
    ApprovalRequested,
    ApprovalResolved,
    ErrorEvent,
    Event,
    ModelCallEnd,
    ModelCallStart,
    Notice,
    ReplyStart,
    Steered,
    TextBlockEnd,
    ThinkingBlockEnd,
    ToolCallEnd,
    ToolCallStart,
    ToolExecutionEnd,
    ToolExecutionStart,
    ToolExecutionUpdate,
)
from shell.core.messages import (
    AssistantMessage,
    Message,
    SystemMessage,
    TextBlock,
    ThinkingBlock,
    ToolCallBlock,
    ToolResult,
    ToolResultMessage,
    Usage,
    UserMessage,
    to_message,
)
from shell.core.model import ChatModel, ModelChunk, ModelError, ModelRequest, as_model, model_label
from shell.core.tools import Tool, ToolArgumentError, ToolContext

from .batch import ToolBatch
from .reply import Reply

Ask = Callable[[Any], Awaitable[Any]]
REPORTED = "__agent_shell_reported__"
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


class Agent:
    """A model, tools and middleware; ``reply(input)`` is an async iterator of events.

    ``messages`` is the history, ``middleware`` the :class:`MiddlewareStack`,
    ``session_state`` each middleware's saved state, ``cancel()`` ends the reply in
    flight. One reply at a time.
    """

    def __init__(
        self,
        model: ChatModel,
        *,
        tools: Sequence[Tool] = (),
        middleware: Sequence[Middleware] | MiddlewareStack = (),
        system_prompt: str = "",
        max_rounds: int = 50,
        tool_execution: Literal["parallel", "sequential"] = "parallel",
        ask: Ask | None = None,
        name: str = "agent",
        cancel_grace: float = 0.4,
        tool_timeout: float | None = 600.0,
    ) -> None:
        if tool_execution not in ("parallel", "sequential"):
            raise ValueError("tool_execution must be 'parallel' or 'sequential'")
        self.model = model
        self.tools = list(tools)
        self.middleware = (
            middleware if isinstance(middleware, MiddlewareStack) else MiddlewareStack(middleware)
        )
        self.system_prompt = system_prompt
        self.max_rounds = max_rounds
        self.tool_execution = tool_execution
        self.ask = ask
        self.name = name
        self.cancel_grace = cancel_grace
        """How long closing the middleware may take after a cancel."""
        self.tool_timeout = tool_timeout
        self.messages: list[Message] = []
        self.session_state: dict[str, dict[str, Any]] = {}
        self.usage = Usage()
        self.last_request: ModelRequest | None = None
        """The request the model last received, after every ``on_model_call`` layer
        (``/context`` sets the usage the provider reported against it)."""
        self.steering: deque[UserMessage] = deque()
        """Messages given with :meth:`steer`, waiting for the next tool boundary."""
        self._reply: Reply | None = None

    @property
    def busy(self) -> bool:
        return self._reply is not None

    def cancel(self) -> None:
        """End the reply in flight: running tools and the model call stop at once;
        the history stays valid (a "cancelled" result for every unfinished call)."""
        if self._reply is not None:
            self._reply.cancel()

    def steer(self, message: str | UserMessage) -> bool:
        """Give the reply in flight a message without stopping it: it joins the
        history at the next tool boundary (once the turn's tools are done, before
        the next model call; a reply about to end goes on for it), announced by a
        ``Steered`` event where it landed. False when no reply runs (send it as a
        message instead). What a reply could not take (it was cancelled, stopped,
        or ended first) stays for :meth:`take_steering`."""
        if self._reply is None or self._reply.done or self._reply.cancelled:
            return False
        self.steering.append(message if isinstance(message, UserMessage) else UserMessage(message))
        return True

    def take_steering(self) -> list[UserMessage]:
        """The steering messages no reply took (front ends send them as messages)."""
        taken = list(self.steering)
        self.steering.clear()
        return taken

    async def reply(self, input: str | Message | Sequence[Message]) -> AsyncGenerator[Event, None]:
        if self._reply is not None:
            raise RuntimeError("Agent.reply: a reply is already running (one reply at a time)")
        reply = self._reply = Reply(self, _as_messages(input))
        try:
            async with aclosing(reply.events()) as events:
                async for event in events:
                    yield event
        finally:
            self.usage = self.usage + reply.usage
            self._reply = None

    # -- the loop -----------------------------------------------------------------------
    async def _core(self, reply: Reply, request: ReplyRequest) -> AsyncIterator[Event]:
        """What a reply does (the innermost ``on_reply``): rounds of reasoning and
        acting until the model answers without tools, a hook stops it, or max_rounds."""
        run = reply.run
        run.history.extend(request.input)
        yield ReplyStart(request.input, reply_id=run.reply_id)
        try:
            while not reply.ended():
                reply.check()
                if run.round >= self.max_rounds:
                    reply.emit(
                        Notice("warning", f"Stopped after {self.max_rounds} rounds (max_rounds).", "agent")
                    )
                    reply.stop = "max_rounds"
                    break
                await self._compress_context(reply)
                async with aclosing(self._reason(reply)) as reasoning:
                    async for event in reasoning:
                        yield event
                if reply.ended():
                    break
                async with aclosing(self._act(reply)) as acting:
                    async for event in acting:
                        yield event
                for event in [*reply.drain(), *self._steer(reply)]:
                    yield event
                run.round += 1
        except ReplyCancelled:
            reply.stop = "cancelled"
        except Exception as exc:
            for event in await self._report(reply, exc, "model"):
                yield event
            reply.stop = "error"
        reply.settle("end_turn")
        for event in reply.drain():
            yield event
        reply.core_ended = True
        yield reply.end_event()

    # -- the steps ------------------------------------------------------------------------
    async def _compress_context(self, reply: Reply) -> None:
        """``on_compress_context``: the onion's result replaces the history."""
        if not self.middleware.has_hook("on_compress_context"):
            return
        run = reply.run

        async def keep(request: CompressRequest) -> list[Message]:
            return list(request.messages)

        result: list[Message] | None = await self.middleware.call(
            "on_compress_context", CompressRequest(tuple(run.history)), keep, "agent", run.context
        )
        if result is None:  # AgentScope's compress_context returns nothing: keep the history
            return
        changed = len(result) != len(run.history)
        if changed or any(a is not b for a, b in zip(result, run.history, strict=True)):
            run.history[:] = result

    async def _reason(self, reply: Reply) -> AsyncGenerator[Event, None]:
        """One round's reasoning (the ``on_reasoning`` onion); its message is rebuilt from
        the events that come out, lands in the history, then ``after_model_response``
        decides the turn. The model call's closing events (block ends, call ends) wait
        for both: a block shown as finished is in the history (a crash loses nothing
        shown), and a replaced response reaches the screen."""
        run, stack = reply.run, self.middleware
        builder = reply.builder = MessageBuilder()
        amend = stack.has_hook("after_model_response")
        held: list[Event] = []
        onion = stack.stream(
            "on_reasoning", run, ReasoningRequest(), partial(self._reasoning_core, reply), "model"
        )
        turn = perf_counter() + HOLD_SLICE_S
        try:
            async for event in onion.items:
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
            partial_message = builder.message(
                partial_reason="error" if isinstance(exc, Exception) else "cancelled"
            )
            if partial_message.content:
                run.history.append(partial_message)
                reply.last_message = partial_message
            if isinstance(exc, (Exception, ReplyCancelled)):  # not closing: end the blocks shown
                for event in held:
                    yield event
            raise
        finally:
            await onion.aclose()
        if builder.empty:  # a layer skipped the model and said nothing: the reply ends here
            reply.stop = "stopped"
            return
        message = self._commit(reply, builder.message())
        action = TurnAction(decision="natural")
        try:
            if amend:
                action = await stack.after_model_response(run, message)
        except StopReply:  # a policy refused the response (PII "block"): it does not stay
            if run.history and run.history[-1] is message:
                run.history.pop()
            reply.last_message, reply.pending = None, None
            raise
        if action.response is not None and action.response is not message:
            held = _restated(reply, held, message, action.response)
            run.history[-1] = reply.last_message = action.response
            reply.pending = (action.response, {}) if action.response.tool_calls else None
        reply.turn = action
        for event in [*reply.drain(), *held]:
            yield event

    async def _reasoning_core(self, reply: Reply, request: ReasoningRequest) -> AsyncIterator[Event]:
        """The innermost ``on_reasoning``: assemble the request, call the model through
        the ``on_model_call`` onion, turn its chunks into events."""
        run, stack = reply.run, self.middleware
        prompt = await stack.transform_system_prompt(run, self.system_prompt)
        reply.tool_map = _tool_map([*self.tools, *await stack.list_tools()])
        run.tools = list(reply.tool_map.values())
        view = await stack.transform_context(run, list(run.history))
        messages = await stack.convert_to_llm(run, view)
        reply.offered = {t.name for t in run.tools}
        model_request = ModelRequest(
            self.model, prompt, tuple(messages), tuple(run.tools), request.tool_choice, request.options
        )
        assembler = ChunkAssembler(run.reply_id, run.block_ids)
        onion = stack.stream("on_model_call", run, model_request, partial(self._call_model, reply), "model")
        try:
            async for chunk in onion.items:
                events = assembler.feed(chunk)
                for queued in reply.drain():
                    yield queued
                for event in events:
                    yield event
        except Exception as exc:
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

    def _call_model(self, reply: Reply, request: ModelRequest) -> AsyncIterator[ModelChunk]:
        """The innermost ``on_model_call``: the model that answers is the one named."""
        model = as_model(request.model)
        self.last_request = request
        reply.emit(ModelCallStart(model_label(model)))
        return reply.model_stream(
            model.stream(request if model is request.model else request.override(model=model))
        )

    async def _tell(self, reply: Reply, exc: Exception, source: str) -> None:
        if not getattr(exc, REPORTED, False):
            try:
                setattr(exc, REPORTED, True)
            except AttributeError:
                pass
            await self.middleware.on_error(reply.run, exc, source)

    def _commit(self, reply: Reply, assistant: AssistantMessage) -> AssistantMessage:
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

    async def _act(self, reply: Reply) -> AsyncGenerator[Event, None]:
        """The turn after the model spoke: run its tool calls (or skip them as the turn's
        decision says), inject messages, ask whether to stop."""
        run, action = reply.run, reply.turn
        assistant = reply.last_message
        assert assistant is not None
        reply.check()
        calls = assistant.tool_calls
        outcomes: list[CallOutcome] = []
        if calls and action.decision == "natural":
            batch = ToolBatch(reply, assistant, self._run_call)
            batch.start()
            try:
                while True:
                    for event in reply.drain():
                        yield event
                    if batch.finished.is_set():
                        break
                    await reply.wait()
            finally:
                await batch.stop()
                reply.batch = None
            reply.check()
            if batch.fatal is not None:
                raise batch.fatal
            run.history.extend(batch.messages[c.id] for c in calls)
            reply.pending = None
            outcomes = [batch.outcomes[c.id] for c in calls]
        elif calls:
            reply.skip_calls(f"the turn's decision was {action.decision}")
        self._inject(reply, action.inject_messages)
        await self.middleware.after_turn(run, outcomes)
        stop = await self.middleware.should_stop_after_turn(run)
        answers = [o.result for o in outcomes if o.result.terminate]
        if answers:
            self._answer_directly(reply, answers)
        if action.decision == "stop" or answers or (stop and (calls or action.decision != "natural")):
            reply.stop = "stopped"
        elif not calls and action.decision == "natural":
            reply.stop = "end_turn"

    def _steer(self, reply: Reply) -> list[Event]:
        """A tool boundary: the user's steering messages join the history before the
        next model call. A reply that was about to end goes on so the model hears
        them; one stopped on purpose (a hook, a limit) or cancelled does not."""
        if not self.steering or reply.cancelled or reply.stop not in (None, "end_turn"):
            return []
        if reply.run.round + 1 >= self.max_rounds:
            return []  # no model call is left to hear them
        messages = self.take_steering()
        reply.run.history.extend(messages)
        reply.stop = None
        return [Steered(m, reply_id=reply.run.reply_id) for m in messages]

    def _answer_directly(self, reply: Reply, results: Sequence[ToolResult]) -> None:
        """Eino's ReturnDirectly: the tool's result is the reply's answer."""
        text = "\n\n".join(r.text for r in results if r.text)
        answer = AssistantMessage((TextBlock(text),) if text else ())
        reply.run.history.append(answer)
        reply.last_message = answer
        assembler = ChunkAssembler(reply.run.reply_id, reply.run.block_ids)
        for chunk in message_chunks(answer):
            for event in assembler.feed(chunk):
                reply.emit(event)
        for event in assembler.abort():
            reply.emit(event)

    def _inject(self, reply: Reply, messages: Sequence[Message]) -> None:
        reply.run.history.extend(messages)
        for message in messages:
            if isinstance(message, AssistantMessage):
                reply.last_message = message  # e.g. a middleware's "stopped: limit reached"

    async def _run_call(
        self,
        reply: Reply,
        assistant: AssistantMessage,
        call: ToolCallBlock,
        early: BeforeToolCallResult | None,
    ) -> CallOutcome:
        """Validate, gate (``before_tool_call``), execute (``on_acting``), then
        ``after_tool_call``. Tool failures become error results; never exceptions."""
        started = 0.0  # set when the tool starts: approval waits are not tool time
        tool = reply.tool_map.get(call.name) if call.name in reply.offered else None
        blocked, error = False, None
        arg_error = reply.builder.arg_errors.get(call.id) if reply.builder else None
        if arg_error:
            result = ToolResult(f"{arg_error}. Call {call.name} again with a JSON object.", is_error=True)
        elif tool is None:
            known = ", ".join(n for n in reply.tool_map if n in reply.offered) or "none"
            if call.name in reply.tool_map:  # a middleware filtered it out of this model call
                text = f"Tool {call.name!r} is not available in this turn. Available tools: {known}."
            else:
                text = f"Unknown tool {call.name!r}. Available tools: {known}."
            result = ToolResult(text, is_error=True)
        else:
            try:
                args = tool.validate(dict(call.args))
            except ToolArgumentError as exc:
                result = ToolResult(f"{exc}. Fix the arguments and call {call.name} again.", is_error=True)
            except Exception as exc:  # the tool's own check broke: this call fails, not the reply
                result = ToolResult(
                    f"The arguments of {call.name} could not be checked: its own check failed "
                    f"({type(exc).__name__}: {exc}). The tool is broken; do not call it again, and "
                    "tell the user.",
                    is_error=True,
                )
            else:
                state = CallState(reply.run, call, tool, args, assistant)
                gate = await self.middleware.before_tool_call(state, early)
                if gate is not None and gate.block:
                    result, blocked = ToolResult(gate.reason or BLOCKED_REASON, is_error=True), True
                elif gate is not None and gate.result is not None:
                    result = gate.tool_result() or ToolResult("")
                else:
                    reply.emit(ToolExecutionStart(call.id, call.name, state.args))
                    started = reply.started[call.id] = perf_counter()
                    result = await self._execute(reply, state)
                result = await self.middleware.after_tool_call(state, result)
                error = state.error
        duration = perf_counter() - started if started else 0.0
        reply.emit(ToolExecutionEnd(call.id, result, duration, blocked))
        return CallOutcome(call, result, error, blocked)

    async def _execute(self, reply: Reply, state: CallState) -> ToolResult:
        """``on_acting`` around the tool (and around the tool's own middleware, if any)."""
        call_id = state.call.id
        context = ToolContext(
            state.call, lambda progress: reply.emit(ToolExecutionUpdate(call_id, progress)), reply.run.ask
        )

        async def run_tool(request: ToolRequest) -> ToolResult:
            state.error = None
            try:
                args = request.args if request.args is state.args else request.tool.validate(request.args)
                limit = getattr(request.tool, "timeout", None) or self.tool_timeout
                if not limit:
                    return await request.tool.run(args, context)
                with anyio.move_on_after(limit) as scope:
                    return await request.tool.run(args, context)
                assert scope.cancelled_caught
                raise ToolTimeout(
                    f"{request.tool.name} did not finish within {limit:g} s and was stopped. "
                    "Try a smaller step, or ask the user to raise the limit."
                )
            except Exception as exc:
                state.error = exc
                await self._tell(reply, exc, "tool")
                raise

        core: Callable[[ToolRequest], Awaitable[ToolResult]] = run_tool
        own = self.middleware.of_tool(state.tool)
        if own is not None:
            core = partial(own.call, "on_acting", core=run_tool, core_source="tool", context=state.context)
        request = ToolRequest(state.call, state.tool, state.args)
        try:
            return await self.middleware.call("on_acting", request, core, "tool", state.context)
        except Exception as exc:
            if error_source(exc, "tool") != "tool":
                raise  # a middleware failed, not the tool
            state.error = exc
            await self._tell(reply, exc, "tool")
            if isinstance(exc, ToolTimeout):
                return ToolResult(str(exc), is_error=True)
            return ToolResult(f"{state.call.name} failed: {type(exc).__name__}: {exc}", is_error=True)

    # -- reporting and asking -------------------------------------------------------------
    async def _report(self, reply: Reply, exc: Exception, default: str) -> list[Event]:
        source = error_source(exc, default)
        if isinstance(exc, StopReply):
            text = str(exc)  # a deliberate stop (a policy said no), not a failure
        elif source in self.middleware:
            hook = getattr(exc, HOOK_ATTR, "a hook")
            advice = (
                "It decides which calls may run, so nothing ran past it; try again, and report it if "
                "it goes on." if getattr(self.middleware.get(source), "gate", False)
                else f"Switch it off (/middleware {source} off) to carry on without it."
            )
            said = str(exc).rstrip(".")
            text = f"Middleware {source} failed in {hook}: {type(exc).__name__}: {said}. {advice}"
        elif isinstance(exc, ModelError):
            text = exc.message
        else:
            text = f"{type(exc).__name__}: {exc}"
        await self._tell(reply, exc, source)
        return [ErrorEvent(text, source, exc, reply_id=reply.run.reply_id)]

    async def _ask(self, reply: Reply, request: Any) -> Any:
        if not isinstance(request, ApprovalRequest):
            return await self.ask(request) if self.ask else None
        reply.emit(ApprovalRequested(request.call.id, request))
        decision = await self.ask(request) if self.ask else unattended_rejection(request)
        reply.emit(ApprovalResolved(request.call.id, decision))
        return decision


class ToolTimeout(Exception):
    """A tool ran past its time limit (``Tool.timeout`` or ``Agent.tool_timeout``)."""


def _restated(
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


def _as_messages(input: str | Message | Sequence[Message]) -> tuple[Message, ...]:
    if isinstance(input, (str, SystemMessage, UserMessage, AssistantMessage, ToolResultMessage)):
        return (to_message(input),)
    return tuple(to_message(m) for m in input)


def _tool_map(tools: Sequence[Tool]) -> dict[str, Tool]:
    """By name; the first tool of a name wins (the agent's own before middleware's)."""
    found: dict[str, Tool] = {}
    for t in tools:
        found.setdefault(t.name, t)
    return found
