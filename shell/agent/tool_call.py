"""One tool call, from the model's arguments to its result: validate, gate
(``before_tool_call``), execute (the ``on_acting`` onion, the tool's own middleware
inside it, the time limit), then ``after_tool_call``.

A tool's failure, a refused or unknown call, bad arguments: each becomes an error
result the model reads (``after_tool_call`` sees each one), never an exception (only
a middleware's failure leaves here, and ends the reply). :mod:`shell.agent.batch` decides when each call runs.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import replace
from functools import partial
from time import perf_counter
from typing import Any

import anyio

from middleware.context import CallState
from middleware.stack import BatchVerdict, error_source
from middleware.types import BLOCKED_REASON, CallOutcome, ToolRequest
from shell.core.events import (
    ToolArgsChanged,
    ToolExecutionEnd,
    ToolExecutionStart,
    ToolExecutionUpdate,
)
from shell.core.messages import AssistantMessage, TextBlock, ToolCallBlock, ToolResult
from shell.core.packed_text import compact
from shell.core.tools import CallRejected, Tool, ToolArgumentError, ToolContext, resolve_kind

from .reply import Reply
from .reporting import tell


class ToolTimeout(Exception):
    """A tool ran past its time limit (``Tool.timeout`` or ``Agent.tool_timeout``)."""


class NoSuchTool(Tool):
    """``ctx.tool`` in ``after_tool_call`` for a call to a tool the agent does not
    have (or not in this turn): a layer that audits or rewrites every result sees
    these too (DESIGN.md: "runs for every call"), by the name the model gave (not
    checked: it may be one no API would accept), with no parameters, never run."""

    def __init__(self, name: str) -> None:  # no name check: see above
        self.name = name
        self.description = ""
        self.parameters = {"type": "object", "properties": {}}
        self.kind, self.read_only = resolve_kind(None, False)
        self.timeout = None
        self.middleware = ()

    async def run(self, args: dict[str, Any], context: ToolContext) -> ToolResult:
        return ToolResult(f"Unknown tool {self.name!r}.", is_error=True)


async def run_call(
    reply: Reply,
    assistant: AssistantMessage,
    call: ToolCallBlock,
    early: BatchVerdict | None,
) -> CallOutcome:
    """Validate, gate (``before_tool_call``), execute (``on_acting``), then
    ``after_tool_call``. Tool failures become error results; never exceptions."""
    stack = reply.agent.middleware
    started = 0.0  # set when the tool starts: approval waits are not tool time
    tool = reply.tool_map.get(call.name) if call.name in reply.offered else None
    blocked, error, failed_after = False, None, None
    refused_early: CallState | None = None  # a call no gate saw: after_tool_call sees it all the same
    arg_error = reply.builder.arg_errors.get(call.id) if reply.builder else None
    if arg_error:
        result = ToolResult(f"{arg_error}. Call {call.name} again with a JSON object.", is_error=True)
        refused_early = CallState(reply.run, call, tool or NoSuchTool(call.name), dict(call.args), assistant)
    elif tool is None:
        known = ", ".join(n for n in reply.tool_map if n in reply.offered) or "none"
        if call.name in reply.tool_map:  # a middleware filtered it out of this model call
            text = f"Tool {call.name!r} is not available in this turn. Available tools: {known}."
        else:
            text = _gone(reply, call.name) or f"Unknown tool {call.name!r}. Available tools: {known}."
        result = ToolResult(text, is_error=True)
        refused_early = CallState(reply.run, call, NoSuchTool(call.name), dict(call.args), assistant)
    else:
        try:
            args = tool.validate(dict(call.args))
        except ToolArgumentError as exc:
            result = ToolResult(f"{exc}. Fix the arguments and call {call.name} again.", is_error=True)
            refused_early = CallState(reply.run, call, tool, dict(call.args), assistant)
        except Exception as exc:  # the tool's own check broke: this call fails, not the reply
            result = ToolResult(
                f"The arguments of {call.name} could not be checked: its own check failed "
                f"({type(exc).__name__}: {exc}). The tool is broken; do not call it again, and "
                "tell the user.",
                is_error=True,
            )
            refused_early = CallState(reply.run, call, tool, dict(call.args), assistant)
        else:
            state = CallState(reply.run, call, tool, args, assistant)
            gate = await stack.before_tool_call(state, early)
            if gate is not None and gate.block:
                result, blocked = ToolResult(gate.reason or BLOCKED_REASON, is_error=True), True
            elif gate is not None and gate.result is not None:
                result = gate.tool_result() or ToolResult("")
            else:
                # a gate's change, told to the model below; an on_acting layer owns the
                # result it returns, and can say so there itself
                gated = (state.edited_by, dict(state.args))
                reply.emit(ToolExecutionStart(call.id, call.name, state.args, state.edited_by))
                started = reply.started[call.id] = perf_counter()
                result, blocked = await _execute(reply, state)
            result = await stack.after_tool_call(state, result)
            if started and not blocked and state.edited_by == "you" and state.args != call.args:
                result = told_of_edit(result, state.args)
            elif started and not blocked and gated[0] and gated[1] != call.args:
                result = told_of_edit(result, gated[1], gated[0])
            error, failed_after = state.error, state.failed_after
    if refused_early is not None:  # DESIGN: after_tool_call runs for every call (round 21, E17)
        result = await stack.after_tool_call(refused_early, result)
        failed_after = refused_early.failed_after
    duration = perf_counter() - started if started else 0.0
    compact(result, "content")  # hooks are done with it: held from here on, packed if large
    reply.emit(ToolExecutionEnd(call.id, result, duration, blocked))
    if failed_after is not None:  # an after_tool_call layer failed: the reply ends with its
        reply.keep_result(call, result)  # error, and this call keeps the result it had
        raise failed_after
    return CallOutcome(call, result, error, blocked)


async def _execute(reply: Reply, state: CallState) -> tuple[ToolResult, bool]:
    """``on_acting`` around the tool (and around the tool's own middleware, if any);
    True with the result when the user rejected the call from inside it."""
    stack, call_id = reply.agent.middleware, state.call.id
    rejected = False
    # the call as it runs: after the user's edit, its arguments are theirs (a question the
    # tool asks, such as the outside-the-workspace one, shows those, not the model's)
    call = state.call if state.args == state.call.args else replace(state.call, args=dict(state.args))
    context = ToolContext(
        call, lambda progress: reply.emit(ToolExecutionUpdate(call_id, progress)), reply.run.ask
    )

    async def run_tool(request: ToolRequest) -> ToolResult:
        nonlocal rejected
        state.error = None
        try:
            args = request.args
            if args is not state.args and args != state.args:  # an on_acting layer changed them
                refused = await stack.recheck(state, dict(args), "an on_acting middleware")
                if refused is not None:
                    rejected = True  # refused: the tool did not run
                    reason = refused.reason or BLOCKED_REASON
                    return refused.tool_result() or ToolResult(reason, is_error=True)
                args = state.args
                # what runs from here: shown and recorded as the call (the model's args stay "asked for")
                reply.emit(ToolArgsChanged(call_id, state.call.name, dict(args), state.edited_by))
            limit = getattr(request.tool, "timeout", None) or reply.agent.tool_timeout
            if not limit:
                return await request.tool.run(args, context)
            with anyio.move_on_after(limit) as scope:
                return await request.tool.run(args, context)
            assert scope.cancelled_caught
            raise ToolTimeout(
                f"{request.tool.name} did not finish within {limit:g} s and was stopped. "
                "Try a smaller step, or ask the user to raise the limit."
            )
        except CallRejected as exc:  # the user's "no", not the tool's failure
            rejected = True
            return ToolResult(str(exc), is_error=True)
        except Exception as exc:
            state.error = exc
            await tell(reply, exc, "tool")
            raise

    core: Callable[[ToolRequest], Awaitable[ToolResult]] = run_tool
    own = stack.of_tool(state.tool)
    if own is not None:
        core = partial(own.call, "on_acting", core=run_tool, core_source="tool", context=state.context)
    request = ToolRequest(state.call, state.tool, state.args)
    try:
        return await stack.call("on_acting", request, core, "tool", state.context), rejected
    except Exception as exc:
        if error_source(exc, "tool") != "tool":
            raise  # a middleware failed, not the tool
        state.error = exc
        await tell(reply, exc, "tool")
        if isinstance(exc, ToolTimeout):
            return ToolResult(str(exc), is_error=True), False
        return ToolResult(f"{state.call.name} failed: {type(exc).__name__}: {exc}", is_error=True), False


EDIT_NOTE_CHARS = 4_000
"""The edited arguments told to the model at most (a rewritten file can be large)."""


def told_of_edit(result: ToolResult, args: Mapping[str, Any], editor: str = "you") -> ToolResult:
    """The result opens with the arguments an edit made the call run with, and who
    made it (``editor``: ``you`` for the user, else the middleware). The history's
    call keeps the model's (the session, resume and the approval show them as asked
    for), so without this the model read its own arguments next to the result of
    others: asked ``rm -rf build/``, edited to ``rm -rf build/tmp``, it believed
    build/ gone (finding T2; LangChain's HITL edit likewise shows the model what ran).
    A middleware's change misleads the model the same way (finding V1)."""
    shown = json.dumps(dict(args), ensure_ascii=False, default=str)
    if len(shown) > EDIT_NOTE_CHARS:
        shown = f"{shown[:EDIT_NOTE_CHARS]}… (cut: {len(shown):,} characters)"
    who = "The user edited" if editor == "you" else f"Middleware {editor} changed"
    note = f"[{who} the arguments before this call ran; it ran with: {shown}]"
    if isinstance(result.content, str):
        return replace(result, content=f"{note}\n{result.content}" if result.content else note)
    return replace(result, content=(TextBlock(note), *result.content))


def _gone(reply: Reply, name: str) -> str | None:
    """What the shell knows of a tool that went away (``Agent.missing_tool``); a
    failure there is not this call's: then nothing is known."""
    explain = reply.agent.missing_tool
    if explain is None:
        return None
    try:
        return explain(name)
    except Exception:
        return None
