"""The agent loop: one reply = rounds of reasoning and acting, wrapped in middleware.

Read ``Agent._rounds`` first: it is the whole loop on one screen. Everything else
is a named step it calls. Concurrency is anyio's: the reply's core runs as a task
that sends events through a memory object stream; the caller iterates them. One
cancel scope covers the core, so ``cancel()`` reaches a running tool at once.
"""

from __future__ import annotations

from collections.abc import AsyncGenerator, AsyncIterator, Awaitable, Callable, Sequence
from contextlib import asynccontextmanager
from time import perf_counter
from typing import Any, Literal

import anyio
from anyio.abc import TaskGroup

from middleware.base import Middleware
from middleware.context import CallState
from middleware.stack import HOOK_ATTR, MiddlewareStack, error_source
from middleware.types import (
    BLOCKED_REASON,
    CompressRequest,
    ReasoningRequest,
    ReplyRequest,
    StopReply,
    ToolRequest,
)
from shell.core.approvals import ApprovalRequest, unattended_rejection
from shell.core.events import (
    ApprovalRequested,
    ApprovalResolved,
    ErrorEvent,
    Event,
    ModelCallStart,
    Notice,
    ReplyEnd,
    ReplyStart,
    StopReason,
    ToolExecutionEnd,
    ToolExecutionStart,
    ToolExecutionUpdate,
    with_reply_id,
)
from shell.core.messages import (
    AssistantMessage,
    Message,
    SystemMessage,
    ToolCallBlock,
    ToolResult,
    ToolResultMessage,
    Usage,
    UserMessage,
    to_message,
)
from shell.core.model import ChatModel, ModelChunk, ModelError, ModelRequest, model_label, notice_sink
from shell.core.tools import Tool, ToolArgumentError, ToolContext

from .assembly import ChunkAssembler, MessageBuilder
from .reply import Reply

Ask = Callable[[Any], Awaitable[Any]]


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
        self.tool_timeout = tool_timeout
        self.messages: list[Message] = []
        self.session_state: dict[str, dict[str, Any]] = {}
        self.usage = Usage()
        self._reply: Reply | None = None

    @property
    def busy(self) -> bool:
        return self._reply is not None

    def cancel(self) -> None:
        """End the reply in flight: running tools and the model call stop at once;
        the history stays valid (a "cancelled" result for every unfinished call)."""
        if self._reply is not None:
            self._reply.cancel(deadline=True)

    async def reply(self, input: str | Message | Sequence[Message]) -> AsyncGenerator[Event, None]:
        if self._reply is not None:
            raise RuntimeError("Agent.reply: a reply is already running (one reply at a time)")
        reply = self._reply = Reply(self, _as_messages(input))
        try:
            async with anyio.create_task_group() as tg:
                reply.task_group = tg
                events = self._drive(reply)
                try:
                    async for event in events:
                        yield event
                except GeneratorExit:
                    pass  # the caller stopped early (aclose): end quietly, below
                finally:
                    reply.finished.set()
                    reply.cancel(deadline=False)  # stop the core too, if it still runs
                    await events.aclose()
        finally:
            self.usage = self.usage + reply.usage
            self._reply = None

    # -- the loop ---------------------------------------------------------------
    async def _rounds(self, reply: Reply, request: ReplyRequest) -> StopReason:
        run = reply.run
        run.history.extend(request.input)
        while True:
            if run.round >= self.max_rounds:
                reply.emit(
                    Notice("warning", f"Stopped after {self.max_rounds} rounds (max_rounds).", "agent")
                )
                return "max_rounds"
            await self._compress_context(reply)
            assistant = await self._reason(reply)
            action = await self.middleware.after_model_response(run, assistant)
            assistant = self._commit(reply, action.response or assistant)
            calls = assistant.tool_calls
            terminate = False
            if calls and action.decision == "natural":
                terminate = await self._act(reply, assistant, calls)
            else:
                self._skip_calls(reply, f"the turn's decision was {action.decision}")
            self._inject(reply, action.inject_messages)
            stop = await self.middleware.should_stop_after_turn(run)
            if action.decision == "stop" or terminate or (stop and (calls or action.decision != "natural")):
                return "stopped"
            if not calls and action.decision == "natural":
                return "end_turn"
            run.round += 1

    # -- the steps --------------------------------------------------------------
    async def _compress_context(self, reply: Reply) -> None:
        """``on_compress_context``: the onion's result replaces the history."""
        if not self.middleware.has_hook("on_compress_context"):
            return
        run = reply.run

        async def keep(request: CompressRequest) -> list[Message]:
            return list(request.messages)

        result = await self.middleware.call(
            "on_compress_context", CompressRequest(tuple(run.history)), keep, "agent", run.context
        )
        changed = len(result) != len(run.history)
        if changed or any(a is not b for a, b in zip(result, run.history, strict=True)):
            run.history[:] = result

    async def _reason(self, reply: Reply) -> AssistantMessage:
        """``on_reasoning`` around one model call; the message is rebuilt from its events."""
        run = reply.run
        builder = reply.builder = MessageBuilder()
        events = self.middleware.stream(
            "on_reasoning", run, ReasoningRequest(), lambda r: self._reasoning_core(reply, r), "model"
        )
        try:
            async with closing(events):
                async for event in events:
                    builder.see(event)
                    reply.emit(event)
        except BaseException as exc:
            partial = builder.message(partial_reason="error" if isinstance(exc, Exception) else "cancelled")
            if partial.content:
                run.history.append(partial)
                reply.last_message = partial
            raise
        return builder.message()

    async def _reasoning_core(self, reply: Reply, request: ReasoningRequest) -> AsyncIterator[Event]:
        run, stack = reply.run, self.middleware
        prompt = await stack.transform_system_prompt(run, self.system_prompt)
        reply.tool_map = _tool_map([*self.tools, *await stack.list_tools()])
        run.tools = list(reply.tool_map.values())
        view = await stack.transform_context(run, list(run.history))
        messages = await stack.convert_to_llm(run, view)
        model_request = ModelRequest(
            self.model, prompt, tuple(messages), tuple(run.tools), request.tool_choice, request.options
        )
        yield ModelCallStart(model_label(self.model), reply_id=run.reply_id)
        assembler = ChunkAssembler(run.reply_id, reply.block_ids)
        chunks = stack.stream("on_model_call", run, model_request, _call_model, "model")
        try:
            async with closing(chunks):
                async for chunk in chunks:
                    for event in assembler.feed(chunk):
                        yield event
        except Exception:
            for event in assembler.abort():
                yield event
            raise
        for event in assembler.finish():
            yield event

    def _inject(self, reply: Reply, messages: Sequence[Message]) -> None:
        reply.run.history.extend(messages)
        for message in messages:
            if isinstance(message, AssistantMessage):
                reply.last_message = message  # e.g. a middleware's "stopped: limit reached"

    def _commit(self, reply: Reply, assistant: AssistantMessage) -> AssistantMessage:
        reply.run.history.append(assistant)
        reply.last_message = assistant
        reply.usage = reply.usage + assistant.usage
        if assistant.tool_calls:
            reply.pending = (assistant, {})
        if assistant.stop_reason == "max_tokens":
            reply.emit(
                Notice(
                    "warning",
                    "The model stopped at its output token limit; the answer may be cut off.",
                    "model",
                )
            )
        return assistant

    async def _act(self, reply: Reply, assistant: AssistantMessage, calls: Sequence[ToolCallBlock]) -> bool:
        """Run the turn's tool calls (in parallel or in order); True if one terminates."""
        assert reply.pending is not None
        results = reply.pending[1]

        async def one(call: ToolCallBlock, group: TaskGroup | None) -> None:
            try:
                results[call.id] = await self._run_call(reply, assistant, call)
            except Exception as exc:  # a middleware failed: the reply ends with it
                reply.fatal = reply.fatal or exc
                if group is not None:
                    group.cancel_scope.cancel()

        if self.tool_execution == "parallel" and len(calls) > 1:
            async with anyio.create_task_group() as group:
                for call in calls:
                    group.start_soon(one, call, group)
        else:
            for call in calls:
                await one(call, None)
                if reply.fatal:
                    break
        if reply.fatal:
            raise reply.fatal
        reply.run.history.extend(results[c.id][0] for c in calls)
        reply.pending = None
        return any(results[c.id][1] for c in calls)

    async def _run_call(
        self, reply: Reply, assistant: AssistantMessage, call: ToolCallBlock
    ) -> tuple[ToolResultMessage, bool]:
        """Validate, gate (``before_tool_call``), execute (``on_acting``), then
        ``after_tool_call``. Tool failures become error results; never exceptions."""
        started = 0.0  # set when the tool starts: approval waits are not tool time
        tool, blocked = reply.tool_map.get(call.name), False
        arg_error = reply.builder.arg_errors.get(call.id) if reply.builder else None
        if arg_error:
            result = ToolResult(f"{arg_error}. Call {call.name} again with a JSON object.", is_error=True)
        elif tool is None:
            known = ", ".join(reply.tool_map) or "none"
            result = ToolResult(f"Unknown tool {call.name!r}. Available tools: {known}.", is_error=True)
        else:
            try:
                args = tool.validate(dict(call.args))
            except ToolArgumentError as exc:
                result = ToolResult(f"{exc}. Fix the arguments and call {call.name} again.", is_error=True)
            else:
                state = CallState(reply.run, call, tool, args, assistant)
                gate = await self.middleware.before_tool_call(state)
                if gate is not None and gate.block:
                    result, blocked = ToolResult(gate.reason or BLOCKED_REASON, is_error=True), True
                else:
                    if gate is not None and gate.result is not None:
                        result = gate.result
                    else:
                        reply.emit(ToolExecutionStart(call.id, call.name, state.args))
                        started = reply.started[call.id] = perf_counter()
                        result = await self._execute(reply, state)
                    result = await self.middleware.after_tool_call(state, result)
        duration = perf_counter() - started if started else 0.0
        reply.emit(ToolExecutionEnd(call.id, result, duration, blocked))
        return ToolResultMessage(call.id, call.name, result.content, result.is_error), result.terminate

    async def _execute(self, reply: Reply, state: CallState) -> ToolResult:
        call_id = state.call.id
        context = ToolContext(
            state.call, lambda progress: reply.emit(ToolExecutionUpdate(call_id, progress)), reply.run.ask
        )

        async def run_tool(request: ToolRequest) -> ToolResult:
            args = request.args if request.args is state.args else request.tool.validate(request.args)
            limit = request.tool.timeout if getattr(request.tool, "timeout", None) else self.tool_timeout
            if not limit:
                return await request.tool.run(args, context)
            with anyio.move_on_after(limit) as scope:
                return await request.tool.run(args, context)
            assert scope.cancelled_caught
            raise ToolTimeout(
                f"{request.tool.name} did not finish within {limit:g} s and was stopped. "
                "Try a smaller step, or ask the user to raise the limit."
            )

        request = ToolRequest(state.call, state.tool, state.args)
        try:
            return await self.middleware.call("on_acting", request, run_tool, "tool", state.context)
        except Exception as exc:
            if error_source(exc, "tool") != "tool":
                raise  # a middleware failed, not the tool
            await self.middleware.on_error(reply.run, exc, "tool")
            if isinstance(exc, ToolTimeout):
                return ToolResult(str(exc), is_error=True)
            return ToolResult(f"{state.call.name} failed: {type(exc).__name__}: {exc}", is_error=True)

    def _skip_calls(self, reply: Reply, why: str, *, cancelled: bool = False) -> None:
        """Tool calls that will not run (or were cut off) still get a result, so the
        history stays valid. A cancelled call is marked so (``details``), not blocked."""
        if reply.pending is None:
            return
        assistant, done = reply.pending
        now = perf_counter()
        for call in assistant.tool_calls:
            message = done.get(call.id, (None, False))[0]
            if message is None:
                details = {"cancelled": True} if cancelled else None
                result = ToolResult(f"The tool call did not complete: {why}.", True, details)
                message = ToolResultMessage(call.id, call.name, result.content, True)
                started = reply.started.get(call.id)
                duration = now - started if started is not None else 0.0
                reply.emit(ToolExecutionEnd(call.id, result, duration, blocked=not cancelled))
            reply.run.history.append(message)
        reply.pending = None

    # -- the reply's frame ------------------------------------------------------
    async def _drive(self, reply: Reply) -> AsyncGenerator[Event, None]:
        """Pull events through the ``on_reply`` onion. Each pull has its own cancel
        scope (never one across a ``yield``), so a cancel that outlasts the grace
        period ends even a stuck ``on_reply`` layer."""
        run = reply.run
        onion = self.middleware.stream("on_reply", run, ReplyRequest(reply.input), reply.start_core, "agent")
        end: ReplyEnd | None = None  # held back until every layer has finished its post-processing
        failed = False
        try:
            async with closing(onion):
                while True:
                    with anyio.CancelScope() as scope:
                        reply.outer_scope = scope
                        try:
                            event = await onion.__anext__()
                        except StopAsyncIteration:
                            break
                    reply.outer_scope = None
                    if scope.cancelled_caught:
                        break
                    if isinstance(event, ReplyEnd):
                        end = with_reply_id(event, run.reply_id)  # type: ignore[assignment]
                    else:
                        yield with_reply_id(event, run.reply_id)
                    while reply.local:
                        yield reply.local.popleft()
        except Exception as exc:  # an on_reply layer failed
            reply.cancel(deadline=False)
            for event in await self._report(reply, exc, "agent"):
                yield event
            failed, end = True, None
        while reply.local:
            yield reply.local.popleft()
        if end is None:
            await reply.core_done.wait()  # the core repairs the history before the reply ends
            stop: StopReason = "error" if failed else reply.final_stop()
            end = ReplyEnd(reply.last_message, stop, reply.usage, reply_id=run.reply_id)
        yield end

    async def _core(self, reply: Reply, request: ReplyRequest) -> None:
        stop: StopReason = "end_turn"
        notice_sink.set(lambda text, level: reply.emit(Notice(level, text, model_label(self.model))))
        with anyio.CancelScope() as scope:
            reply.core_scope = scope
            if reply.cancelled:
                scope.cancel()
            try:
                reply.emit(ReplyStart(request.input, reply_id=reply.run.reply_id))
                stop = await self._rounds(reply, request)
            except Exception as exc:
                stop = "error"
                for event in await self._report(reply, exc, "model"):
                    reply.emit(event)
        if scope.cancelled_caught or (reply.cancelled and stop != "error"):
            stop = "cancelled"
        if stop == "cancelled":
            self._skip_calls(reply, "the reply was cancelled", cancelled=True)
        else:
            self._skip_calls(reply, "the reply ended early")
        reply.stop = stop
        reply.emit(ReplyEnd(reply.last_message, stop, reply.usage, reply_id=reply.run.reply_id))
        reply.close()

    async def _report(self, reply: Reply, exc: Exception, default: str) -> list[Event]:
        source = error_source(exc, default)
        if isinstance(exc, StopReply):
            text = str(exc)  # a deliberate stop (a policy said no), not a failure
        elif source in self.middleware:
            hook = getattr(exc, HOOK_ATTR, "a hook")
            text = (
                f"Middleware {source} failed in {hook}: {type(exc).__name__}: {str(exc).rstrip('.')}. "
                f"Switch it off (/middleware {source} off) to carry on without it."
            )
        elif isinstance(exc, ModelError):
            text = exc.message
        else:
            text = f"{type(exc).__name__}: {exc}"
        await self.middleware.on_error(reply.run, exc, source)
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


def _as_messages(input: str | Message | Sequence[Message]) -> tuple[Message, ...]:
    if isinstance(input, (str, SystemMessage, UserMessage, AssistantMessage, ToolResultMessage)):
        return (to_message(input),)
    return tuple(to_message(m) for m in input)


@asynccontextmanager
async def closing(iterator: AsyncIterator[Any]) -> AsyncGenerator[None, None]:
    """Close an async iterator on the way out (``aclosing`` for iterators that may
    not be generators)."""
    try:
        yield
    finally:
        close = getattr(iterator, "aclose", None)
        if close is not None:
            await close()


def _call_model(request: ModelRequest) -> AsyncIterator[ModelChunk]:
    return request.model.stream(request)


def _tool_map(tools: Sequence[Tool]) -> dict[str, Tool]:
    """By name; the first tool of a name wins (the agent's own before middleware's)."""
    found: dict[str, Tool] = {}
    for t in tools:
        found.setdefault(t.name, t)
    return found
