"""``MiddlewareStack``: composes the middleware of an agent, hook by hook.

Each hook kind has one composition rule (see DESIGN.md's table); this module is
where those rules live (the onions' machinery is in :mod:`middleware.streaming_onion`
and :mod:`middleware.awaited_onion`; the members, their toggles and the calling of
one hook in :mod:`middleware.stack_slots`). Only
hooks a middleware's class overrides are wired, and each is checked when the stack
is built: a hook of a shape the stack cannot call is a ``TypeError`` naming the
middleware and the hook, then and there. Toggles are read at every invocation, so
switching a middleware off takes effect at its next hook, also inside a reply in
flight; an onion already entered completes.

Errors: an exception a middleware raises is tagged with its name (``error_source``)
and counted in its stats. Exceptions that only pass through a layer (a model error
going out through ``on_model_call`` layers) keep the source they started with.
"""

from __future__ import annotations

import dataclasses
import inspect
import logging
from collections.abc import AsyncIterator, Awaitable, Callable, Iterable, Mapping, Sequence
from typing import Any, TypeVar

from shell.core.events import Event, Notice
from shell.core.messages import AssistantMessage, Message, ToolCallBlock, ToolResult
from shell.core.tools import Tool, ToolArgumentError

from . import returns
from .awaited_onion import AwaitedOnion, call_layers
from .base import Middleware
from .blame import HOOK_ATTR, SOURCE_ATTR, owner_of
from .context import CallState, HookContext, ReplyRun
from .hook_shapes import AWAITED, CORO, PLAIN, Entry, hook_shape, lookalike_text
from .stack_slots import Slot, StackSlots
from .streaming_onion import StreamOnion
from .types import AfterToolCallResult, BeforeToolCallResult, CallOutcome, Decision, TurnAction

log = logging.getLogger("agent_shell.middleware")

__all__ = ["HOOK_ATTR", "SOURCE_ATTR", "MiddlewareStack", "Slot", "error_source"]

R = TypeVar("R")
T = TypeVar("T")


def error_source(exc: BaseException, default: str) -> str:
    """Who raised ``exc``: a middleware's name, or ``default`` (the model, a tool).

    Also for an error still on its way out of an onion (a fallback layer asking
    whether the model or a layer inside it failed): read off its traceback."""
    source = getattr(exc, SOURCE_ATTR, None)
    if isinstance(source, str):
        return source
    hit = owner_of(exc)
    if hit is not None:
        onion, slot = hit
        return slot.name if slot is not None else onion.core_source
    return default


def _is_gate(slot: Slot) -> bool:
    """A middleware that decides which calls may run (HumanInTheLoop: the permission
    policy and the approval): args edited after it passed them are judged again."""
    return bool(getattr(slot.middleware, "gate", False))


def _live(slot: Slot, hook: str) -> bool:
    return slot.enabled and (not slot.dynamic or slot.middleware.is_active(hook))


@dataclasses.dataclass(frozen=True, slots=True)
class BatchVerdict:
    """What ``before_tool_batch`` decided for one call, and which middleware's edit
    its ``args`` are: the edit is credited to it (``ToolExecutionStart.edited_by``,
    the note the model reads), not to the hook."""

    outcome: BeforeToolCallResult
    edited_by: str = ""


class MiddlewareStack(StackSlots):
    """The ordered middleware of an agent; the first is the outermost."""

    log = log

    def __init__(self, middleware: Iterable[Middleware] = ()) -> None:
        self._tool_stacks: dict[int, tuple[Tool, MiddlewareStack]] = {}
        self._told_hidden: set[tuple[str, str]] = set()
        super().__init__(middleware)

    # -- transformers and chains ------------------------------------------------
    # Each walks its entries inside one ``try``: a failure is named after the entry
    # it happened in (``_blame``), with no wrapper around each call.
    async def _chain(self, hook: str, run: ReplyRun, value: T, check: Callable[[Any], Any]) -> T:
        entry = None
        try:
            for entry in self._hooks[hook]:
                slot = entry.slot
                if not slot.enabled or (slot.dynamic and not slot.middleware.is_active(hook)):
                    continue
                ctx = run.contexts.get(slot) or run.context(slot)
                if entry.direct and not self.timing:
                    entry.stats.calls += 1
                    value = await entry.fn(ctx, value)
                else:
                    value = await self._run(entry, ctx, value)
                value = check(value)  # a wrong kind of value is this middleware's failure
        except Exception as exc:
            self._blame(entry, exc)
            raise
        return value

    async def transform_system_prompt(self, run: ReplyRun, prompt: str) -> str:
        return await self._chain("transform_system_prompt", run, prompt, returns.prompt)

    async def transform_context(self, run: ReplyRun, messages: list[Message]) -> list[Message]:
        return list(await self._chain("transform_context", run, messages, returns.context_view))

    async def convert_to_llm(self, run: ReplyRun, messages: list[Message]) -> list[Message]:
        """Single owner: only the last enabled implementation runs."""
        for entry in reversed(self._hooks["convert_to_llm"]):
            slot = entry.slot
            if _live(slot, "convert_to_llm"):
                try:
                    ctx = run.contexts.get(slot) or run.context(slot)
                    return list(returns.llm_messages(await self._invoke(entry, ctx, messages)))
                except Exception as exc:
                    self._blame(entry, exc)
                    raise
        return messages

    async def list_tools(self, run: ReplyRun | None = None, taken: Iterable[str] = ()) -> list[Tool]:
        """The tools of every enabled middleware (``list_tools`` may be sync or async).
        With ``run``: a tool named like one in ``taken`` (the agent's) or an earlier
        one is never offered (the first of a name wins), said once as a warning from
        its middleware; it was dropped silently (finding V9)."""
        if run is not None and self.lookalikes:  # once, at the first reply after it joined
            for owner, method, hook in self.lookalikes:
                run.emit(Notice("warning", lookalike_text(owner, method, hook), owner))
            self.lookalikes.clear()
        tools: list[Tool] = []
        names = set(taken)
        entry = None
        try:
            hook = "list_tools"
            for entry in self._hooks[hook]:
                slot = entry.slot
                if not slot.enabled or (slot.dynamic and not slot.middleware.is_active(hook)):
                    continue
                if entry.shape is PLAIN and not self.timing:
                    entry.stats.calls += 1
                    found = entry.fn()
                    if type(found) is not list and type(found) is not tuple and inspect.isawaitable(found):
                        found = await found
                    found = returns.tools(found)
                else:
                    found = returns.tools(await self._invoke(entry))
                if run is not None:
                    self._tell_hidden(run, slot.name, found, names)
                tools.extend(found)
        except Exception as exc:
            self._blame(entry, exc)
            raise
        return tools

    def _tell_hidden(self, run: ReplyRun, owner: str, found: Sequence[Tool], names: set[str]) -> None:
        for tool in found:
            if tool.name in names and (owner, tool.name) not in self._told_hidden:
                self._told_hidden.add((owner, tool.name))
                text = (f"{owner}: its tool {tool.name!r} is never offered: a tool of that name is "
                        "already there (the agent's, or an earlier middleware's); give it another name.")
                run.emit(Notice("warning", text, owner))
            names.add(tool.name)

    async def after_model_response(self, run: ReplyRun, response: AssistantMessage) -> TurnAction:
        """Reverse order; the response is replaced by the last non-None, injected
        messages concatenate, the last non-None decision wins."""
        inject: list[tuple[str, Message]] = []
        decision: Decision | None = None
        entry = None
        try:
            timing, contexts, hook = self.timing, run.contexts, "after_model_response"
            for entry in reversed(self._hooks[hook]):
                slot = entry.slot
                if not slot.enabled or (slot.dynamic and not slot.middleware.is_active(hook)):
                    continue
                ctx = contexts.get(slot) or run.context(slot)
                if entry.direct and not timing:  # (self._invoke, inline: this runs every round)
                    entry.stats.calls += 1
                    action = await entry.fn(ctx, response)
                else:
                    action = await self._run(entry, ctx, response)
                action = returns.turn_action(action)
                if action is None:
                    continue
                if action.response is not None:
                    response = action.response
                inject.extend((slot.name, m) for m in action.inject_messages)
                if action.decision is not None:
                    decision = action.decision
        except Exception as exc:
            self._blame(entry, exc)
            raise
        decision = decision or "natural"
        return TurnAction(response, self._injected(run, inject, decision), decision)

    @staticmethod
    def _injected(
        run: ReplyRun, inject: list[tuple[str, Message]], decision: Decision
    ) -> tuple[Message, ...]:
        """The messages to inject. With ``stop`` no model call follows to read them: a
        user or tool message would wait in the history for the user's next message and
        be sent as part of it (user turns in a row are one turn), the model reading the
        middleware's words as the user's. Those are dropped, and their author told; the
        model's own words (an ``AssistantMessage``, "stopped: limit reached") end the
        reply as its answer."""
        if decision != "stop":
            return tuple(m for _, m in inject)
        kept: list[Message] = []
        told: set[str] = set()
        for owner, message in inject:
            if isinstance(message, AssistantMessage):
                kept.append(message)
            elif owner not in told:
                told.add(owner)
                text = (f"{owner}: the messages it injected were dropped: the turn's decision was "
                        "'stop', so no model call reads them (inject an AssistantMessage to end "
                        "the reply with it, or decide 'loop_to_model').")
                run.emit(Notice("warning", text, owner))
        return tuple(kept)

    async def before_tool_batch(
        self, run: ReplyRun, calls: Sequence[ToolCallBlock]
    ) -> dict[str, BatchVerdict]:
        """Every call of a turn before any runs (list order). Each middleware may
        answer per call (a dict by call id, or a list in call order); per call the
        first ``block`` or ``result`` wins and edited ``args`` carry forward, credited
        to the middleware that gave them."""
        decided: dict[str, BatchVerdict] = {}
        ids = [c.id for c in calls]
        for entry in self._hooks["before_tool_batch"]:
            slot = entry.slot
            if not _live(slot, "before_tool_batch"):
                continue
            try:
                answer = await self._invoke(entry, run.contexts.get(slot) or run.context(slot), tuple(calls))
                answer = returns.batch_answers(answer, ids)
            except Exception as exc:
                self._blame(entry, exc)
                raise
            if answer is None:
                continue
            pairs = answer.items() if isinstance(answer, Mapping) else zip(ids, answer, strict=True)
            for call_id, outcome in pairs:
                if outcome is None:
                    continue
                verdict = decided.get(call_id)
                by = slot.name if outcome.args is not None else ""
                if verdict is not None:
                    before = verdict.outcome
                    if before.block or before.result is not None:
                        continue
                    if before.args is not None and outcome.args is None:
                        outcome, by = dataclasses.replace(outcome, args=before.args), verdict.edited_by
                decided[call_id] = BatchVerdict(outcome, by)
        return decided

    async def before_tool_call(
        self, call: CallState, early: BatchVerdict | None = None
    ) -> BeforeToolCallResult | None:
        """Gates in list order. Edited args carry forward (re-validated); the first
        block or result short-circuits. ``early`` is what ``before_tool_batch`` said.

        Args edited after a gate (HumanInTheLoop: the permission policy and the
        approval) passed the call are judged by the gates again (:meth:`recheck`):
        whatever finally runs has met the deny rules and, where the user was asked,
        is what they approved, whatever the list order (finding R7)."""
        outcome = early.outcome if early is not None else None
        if early is not None and outcome is not None:
            if outcome.block or outcome.result is not None:
                return outcome
            if outcome.args is not None:
                failed = self._edit(call, outcome.args, early.edited_by or "before_tool_batch")
                if failed is not None:
                    return failed
        passed: dict[str, Any] | None = None  # the args the last gate let through
        for entry in self._hooks["before_tool_call"]:
            slot = entry.slot
            if not slot.enabled or (slot.dynamic and not slot.middleware.is_active("before_tool_call")):
                continue
            outcome = await self._gate_once(entry, call)
            if outcome is not None:
                if outcome.block or outcome.result is not None:
                    return outcome
                if outcome.args is not None:
                    failed = self._gate_edit(entry, call, outcome.args)
                    if failed is not None:
                        return failed
            if _is_gate(slot):
                passed = call.args
        if passed is not None and call.args is not passed and call.args != passed:
            return await self._gates_again(call)
        return None

    async def recheck(
        self, call: CallState, args: dict[str, Any], editor: str
    ) -> BeforeToolCallResult | None:
        """Args changed after ``before_tool_call`` (an ``on_acting`` layer's
        ``request.override(args=...)``): validated, then judged by the gates again as
        an edit by ``editor``. None: they may run (``call.args`` holds them)."""
        failed = self._edit(call, args, editor)
        if failed is not None:
            return failed
        return await self._gates_again(call)

    async def _gates_again(self, call: CallState) -> BeforeToolCallResult | None:
        """The gates, in list order, on args a middleware changed after they passed
        them: a gate that refuses says who changed them; a gate's own edit (the user's,
        when asked again) stands."""
        editor = call.edited_by
        for entry in self._hooks["before_tool_call"]:
            slot = entry.slot
            if not _is_gate(slot) or not _live(slot, "before_tool_call"):
                continue
            outcome = await self._gate_once(entry, call)
            if outcome is None:
                continue
            if outcome.block:
                reason = outcome.reason or "The call was not allowed."
                return dataclasses.replace(outcome, reason=(
                    f"{reason} (middleware {editor} changed the arguments after the permission "
                    "check; the changed call was checked again)"
                ))
            if outcome.result is not None:
                return outcome
            if outcome.args is not None:
                failed = self._gate_edit(entry, call, outcome.args)
                if failed is not None:
                    return failed
        return None

    async def _gate_once(self, entry: Entry, call: CallState) -> BeforeToolCallResult | None:
        """One ``before_tool_call``; a wrong answer fails closed (the call does not run)."""
        slot = entry.slot
        try:
            ctx = call.contexts.get(slot) or call.context(slot)
            if entry.direct and not self.timing:  # (self._invoke, inline: this runs every call)
                entry.stats.calls += 1
                outcome = await entry.fn(ctx)
            else:
                outcome = await self._run(entry, ctx)
            return returns.gate(outcome)
        except Exception as exc:
            self._blame(entry, exc)
            raise

    def _gate_edit(self, entry: Entry, call: CallState, args: dict[str, Any]) -> BeforeToolCallResult | None:
        """A gate's new arguments. Ones the tool does not take are the user's slip when
        they are the user's edit (the model reads why), else that middleware's error:
        the model read "The edited arguments were invalid" about its own valid ones,
        and no error named the middleware (finding V15)."""
        failed = self._edit(call, args, entry.slot.name)
        if failed is None or (call.users_args is not None and args == call.users_args):
            return failed
        why = (failed.reason or "").removeprefix("The edited arguments were invalid. ")
        error = ValueError(f"before_tool_call returned arguments {call.tool.name} does not take ({why}); "
                           "the call was not run")
        self._blame(entry, error)
        raise error

    @staticmethod
    def _edit(call: CallState, args: dict[str, Any], editor: str) -> BeforeToolCallResult | None:
        try:
            validated = call.tool.validate(args)
        except ToolArgumentError as exc:
            return BeforeToolCallResult(block=True, reason=f"The edited arguments were invalid. {exc}")
        if validated != call.args:
            call.edited_by = "you" if call.users_args is not None and args == call.users_args else editor
        call.args = validated
        call.edited = True
        return None

    async def after_tool_call(self, call: CallState, result: ToolResult) -> ToolResult:
        """Reverse order; each non-None field of a returned value overrides.

        A layer that raises has its change dropped and the layers after it still run
        (a redaction among them still applies); the first such error is left in
        ``call.failed_after`` for the caller to end the reply with: the call ran, so
        its result stands (finding R4: it read "did not complete", blocked)."""
        timing, hook = self.timing, "after_tool_call"
        for entry in reversed(self._hooks[hook]):
            slot = entry.slot
            if not slot.enabled or (slot.dynamic and not slot.middleware.is_active(hook)):
                continue
            try:
                ctx = call.contexts.get(slot) or call.context(slot)
                change: AfterToolCallResult | ToolResult | None
                if entry.direct and not timing:  # (self._invoke, inline: this runs every call)
                    entry.stats.calls += 1
                    change = await entry.fn(ctx, result)
                else:
                    change = await self._run(entry, ctx, result)
                change = returns.after_call(change)
            except Exception as exc:
                self._blame(entry, exc)
                call.failed_after = call.failed_after or exc
                continue
            if change is None:
                continue
            fields = {
                f.name: getattr(change, f.name)
                for f in dataclasses.fields(change)
                if getattr(change, f.name) is not None
            }
            if fields:
                result = dataclasses.replace(result, **fields)
        return result

    async def after_turn(self, run: ReplyRun, outcomes: Sequence[CallOutcome]) -> None:
        """Observers, reverse order (HPD's After* unwinding), after a turn's tools."""
        entry = None
        try:
            timing, contexts, seen, hook = self.timing, run.contexts, tuple(outcomes), "after_turn"
            for entry in reversed(self._hooks[hook]):
                slot = entry.slot
                if not slot.enabled or (slot.dynamic and not slot.middleware.is_active(hook)):
                    continue
                ctx = contexts.get(slot) or run.context(slot)
                if entry.direct and not timing:  # (self._invoke, inline: this runs every round)
                    entry.stats.calls += 1
                    await entry.fn(ctx, seen)
                else:
                    await self._run(entry, ctx, seen)
        except Exception as exc:
            self._blame(entry, exc)
            raise

    async def should_stop_after_turn(self, run: ReplyRun) -> bool:
        """Every enabled predicate runs (counters stay right); any True stops."""
        stop = False
        entry = None
        try:
            timing, contexts, hook = self.timing, run.contexts, "should_stop_after_turn"
            for entry in self._hooks[hook]:
                slot = entry.slot
                if not slot.enabled or (slot.dynamic and not slot.middleware.is_active(hook)):
                    continue
                ctx = contexts.get(slot) or run.context(slot)
                if entry.direct and not timing:  # (self._invoke, inline: this runs every round)
                    entry.stats.calls += 1
                    if await entry.fn(ctx):
                        stop = True
                elif await self._run(entry, ctx):
                    stop = True
        except Exception as exc:
            self._blame(entry, exc)
            raise
        return stop

    async def on_error(self, run: ReplyRun, error: BaseException, source: str) -> None:
        """Reverse order, all run; an observer's own failure is logged, never raised."""
        for entry in reversed(self._hooks["on_error"]):
            if not entry.slot.live("on_error"):
                continue
            try:
                await self._run(entry, run.context(entry.slot), error, source)
            except Exception:
                log.exception("middleware %s failed in on_error", entry.slot.name)

    # -- onions -----------------------------------------------------------------
    def stream(
        self,
        hook: str,
        run: ReplyRun,
        request: Any,
        core: Callable[[Any], AsyncIterator[Any]],
        core_source: str,
        *,
        context: Callable[[Slot], HookContext] | None = None,
        finish: Callable[[], Awaitable[Event]] | None = None,
    ) -> StreamOnion:
        """A streaming onion (``on_reply``, ``on_reasoning``, ``on_model_call``). Pull
        ``.items``; ``await .aclose()`` when done (it closes every layer opened).
        ``finish`` says how the reply ends when an ``on_reply`` layer ends it."""
        return StreamOnion(
            self, hook, self._hooks[hook], run, request, core, core_source, context or run.context, finish
        )

    async def call(
        self,
        hook: str,
        request: Any,
        core: Callable[[Any], Awaitable[R]],
        core_source: str,
        context: Callable[[Slot], HookContext],
    ) -> R:
        """An awaited onion (``on_compress_context``, ``on_acting``). Untimed, with
        coroutine layers only, it runs as an :class:`AwaitedOnion` (no wrapper per
        layer); otherwise layer by layer, each timed and named as it returns."""
        entries = self._hooks[hook]
        value: Any
        if not self.timing and self._direct[hook]:
            live = [e for e in entries if e.slot.enabled and (not e.slot.dynamic or e.slot.live(hook))]
            if not live:
                return await call_layers(self, hook, (), request, core, core_source, context)
            value = await AwaitedOnion(self, hook, live, core, core_source, context).run(request)
        else:
            value = await call_layers(self, hook, entries, request, core, core_source, context)
        check = returns.AWAITED_RESULT.get(hook)
        if check is None:
            return value  # type: ignore[no-any-return]
        try:
            return check(value)  # type: ignore[no-any-return]
        except TypeError as exc:  # the outermost layer returned it: its failure
            outer = next((e for e in entries if e.slot.live(hook)), None)
            if outer is None:
                return value  # type: ignore[no-any-return]  # no layer: the core's own value
            self._failed(outer.slot, hook, exc)
            raise

    # -- a tool's own middleware ----------------------------------------------------
    def of_tool(self, tool: Tool) -> MiddlewareStack | None:
        """The stack of a tool's own middleware (``@tool(middleware=[...])``), which
        runs inside ``on_acting`` for that tool only; None when it has none."""
        own = getattr(tool, "middleware", ())
        if not own:
            return None
        found = self._tool_stacks.get(id(tool))
        if found is None or found[0] is not tool:
            found = self._tool_stacks[id(tool)] = (tool, MiddlewareStack(as_middleware(m) for m in own))
        return found[1]


assert set(AWAITED) <= set(Middleware.HOOKS)


class _Wrap(Middleware):
    """A plain ``async def mw(ctx, request, next)`` used as a tool's middleware."""

    def __init__(self, fn: Callable[..., Any]) -> None:
        self.name = getattr(fn, "__name__", type(fn).__name__)
        self._fn = fn

    async def on_acting(self, ctx: Any, request: Any, next: Any) -> ToolResult:
        result: ToolResult = await self._fn(ctx, request, next)
        return result


def as_middleware(value: Middleware | Callable[..., Any]) -> Middleware:
    if isinstance(value, Middleware):
        return value
    if callable(value):
        if hook_shape(getattr(value, "__name__", "tool middleware"), "on_acting", value) != CORO:
            raise TypeError("a tool's middleware function must be 'async def mw(ctx, request, next)'")
        return _Wrap(value)
    raise TypeError(f"a tool's middleware must be a Middleware or a function, not {type(value).__name__}")
