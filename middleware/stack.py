"""``MiddlewareStack``: composes the middleware of an agent, hook by hook.

Each hook kind has one composition rule (see DESIGN.md's table); this module is
where those rules live. Only hooks a middleware's class overrides are wired.
Toggles are read at every invocation, so switching a middleware off takes effect
at its next hook, also inside a reply in flight; an onion already entered completes.

Errors: an exception a middleware raises is tagged with its name (``error_source``)
and counted in its stats. Exceptions that only pass through a layer (a model error
going out through ``on_model_call`` layers) keep the source they started with.
"""

from __future__ import annotations

import dataclasses
import inspect
import logging
from collections.abc import AsyncIterator, Awaitable, Callable, Iterable, Iterator
from time import perf_counter
from typing import Any, TypeVar

from shell.core.messages import AssistantMessage, Message, ToolResult
from shell.core.tools import Tool, ToolArgumentError

from .base import Middleware, overridden_hooks
from .context import CallState, HookContext, ReplyRun
from .stats import HookStats, MiddlewareStats
from .types import AfterToolCallResult, BeforeToolCallResult, Decision, TurnAction

log = logging.getLogger("agent_shell.middleware")

SOURCE_ATTR = "__agent_shell_source__"
HOOK_ATTR = "__agent_shell_hook__"

R = TypeVar("R")
T = TypeVar("T")
Entry = tuple["Slot", Callable[..., Any], HookStats]


def error_source(exc: BaseException, default: str) -> str:
    """Who raised ``exc``: a middleware's name, or ``default`` (the model, a tool)."""
    source = getattr(exc, SOURCE_ATTR, None)
    return source if isinstance(source, str) else default


def _tag(exc: BaseException, source: str, hook: str | None = None) -> bool:
    if hasattr(exc, SOURCE_ATTR):
        return False
    try:
        setattr(exc, SOURCE_ATTR, source)
        if hook:
            setattr(exc, HOOK_ATTR, hook)
    except AttributeError:  # an exception type with __slots__: it stays untagged
        return False
    return True


class Slot:
    """One middleware in the stack: its switch and its statistics."""

    __slots__ = ("dynamic", "enabled", "index", "middleware", "name", "stats")

    def __init__(self, middleware: Middleware, index: int, enabled: bool) -> None:
        self.middleware = middleware
        self.name = middleware.name or type(middleware).__name__
        self.index = index
        self.enabled = enabled
        self.stats = MiddlewareStats()
        self.dynamic = type(middleware).is_active is not Middleware.is_active

    def live(self, hook: str) -> bool:
        """Enabled, and (for middleware that decide per call) active for ``hook``."""
        return self.enabled and (not self.dynamic or self.middleware.is_active(hook))


class MiddlewareStack:
    """The ordered middleware of an agent; the first is the outermost."""

    def __init__(self, middleware: Iterable[Middleware] = ()) -> None:
        self._slots: list[Slot] = []
        self._counter = 0
        self._hooks: dict[str, tuple[Entry, ...]] = {h: () for h in Middleware.HOOKS}
        for mw in middleware:
            self.add(mw)

    # -- membership and toggles -------------------------------------------------
    def add(self, middleware: Middleware, *, index: int | None = None, enabled: bool = True) -> None:
        name = middleware.name or type(middleware).__name__
        if any(s.name == name for s in self._slots):
            raise ValueError(
                f"a middleware named {name!r} is already in the stack; give one of them another name"
            )
        slot = Slot(middleware, self._counter, enabled)
        self._counter += 1
        self._slots.insert(len(self._slots) if index is None else index, slot)
        self._rewire()

    def remove(self, name: str) -> Middleware:
        slot = self._slot(name)
        self._slots.remove(slot)
        self._rewire()
        return slot.middleware

    def _rewire(self) -> None:
        hooks: dict[str, list[Entry]] = {h: [] for h in Middleware.HOOKS}
        for slot in self._slots:
            for hook in overridden_hooks(slot.middleware):
                stats = slot.stats.hooks.setdefault(hook, HookStats())
                hooks[hook].append((slot, getattr(slot.middleware, hook), stats))
        self._hooks = {h: tuple(entries) for h, entries in hooks.items()}

    def _slot(self, name: str) -> Slot:
        for slot in self._slots:
            if slot.name == name:
                return slot
        known = ", ".join(s.name for s in self._slots) or "none"
        raise KeyError(f"no middleware named {name!r} (in the stack: {known})")

    def set_enabled(self, name: str, on: bool) -> None:
        self._slot(name).enabled = on

    def is_enabled(self, name: str) -> bool:
        return self._slot(name).enabled

    def stats(self, name: str) -> MiddlewareStats:
        return self._slot(name).stats

    def get(self, name: str) -> Middleware:
        return self._slot(name).middleware

    def has_hook(self, hook: str) -> bool:
        """Whether any enabled middleware implements ``hook`` (to skip work for none)."""
        return any(slot.live(hook) for slot, _, _ in self._hooks[hook])

    def hooks_of(self, name: str) -> list[str]:
        return overridden_hooks(self._slot(name).middleware)

    def __iter__(self) -> Iterator[Middleware]:
        return iter([s.middleware for s in self._slots])

    def __len__(self) -> int:
        return len(self._slots)

    def __contains__(self, name: object) -> bool:
        return any(s.name == name for s in self._slots)

    def names(self) -> list[str]:
        return [s.name for s in self._slots]

    def _failed(self, slot: Slot, hook: str, exc: BaseException) -> None:
        if isinstance(exc, Exception) and _tag(exc, slot.name, hook):
            slot.stats.hooks[hook].errors += 1
            slot.stats.last_error = f"{type(exc).__name__}: {exc}"
            slot.stats.last_error_hook = hook

    # -- transformers and chains ------------------------------------------------
    async def _chain(self, hook: str, run: ReplyRun, value: T) -> T:
        for slot, fn, st in self._hooks[hook]:
            if not slot.live(hook):
                continue
            st.calls += 1
            t0 = perf_counter()
            try:
                value = await fn(run.context(slot), value)
            except Exception as exc:
                self._failed(slot, hook, exc)
                raise
            finally:
                st.time_s += perf_counter() - t0
        return value

    async def transform_system_prompt(self, run: ReplyRun, prompt: str) -> str:
        return await self._chain("transform_system_prompt", run, prompt)

    async def transform_context(self, run: ReplyRun, messages: list[Message]) -> list[Message]:
        return list(await self._chain("transform_context", run, messages))

    async def convert_to_llm(self, run: ReplyRun, messages: list[Message]) -> list[Message]:
        """Single owner: only the last enabled implementation runs."""
        for slot, fn, st in reversed(self._hooks["convert_to_llm"]):
            if slot.live("convert_to_llm"):
                return list(await self._timed(slot, "convert_to_llm", st, fn, run.context(slot), messages))
        return messages

    async def _timed(
        self, slot: Slot, hook: str, st: HookStats, fn: Callable[..., Awaitable[R]], *args: Any
    ) -> R:
        st.calls += 1
        t0 = perf_counter()
        try:
            return await fn(*args)
        except Exception as exc:
            self._failed(slot, hook, exc)
            raise
        finally:
            st.time_s += perf_counter() - t0

    async def list_tools(self) -> list[Tool]:
        """The tools of every enabled middleware (``list_tools`` may be sync or async)."""
        tools: list[Tool] = []
        for slot, fn, st in self._hooks["list_tools"]:
            if not slot.live("list_tools"):
                continue
            st.calls += 1
            try:
                found = fn()
                if inspect.isawaitable(found):
                    found = await found
            except Exception as exc:
                self._failed(slot, "list_tools", exc)
                raise
            tools.extend(found)
        return tools

    async def after_model_response(self, run: ReplyRun, response: AssistantMessage) -> TurnAction:
        """Reverse order; the response is replaced by the last non-None, injected
        messages concatenate, the last non-None decision wins."""
        inject: list[Message] = []
        decision: Decision | None = None
        for slot, fn, st in reversed(self._hooks["after_model_response"]):
            if not slot.live("after_model_response"):
                continue
            action = await self._timed(slot, "after_model_response", st, fn, run.context(slot), response)
            if action is None:
                continue
            if action.response is not None:
                response = action.response
            inject.extend(action.inject_messages)
            if action.decision is not None:
                decision = action.decision
        return TurnAction(response, tuple(inject), decision or "natural")

    async def before_tool_call(self, call: CallState) -> BeforeToolCallResult | None:
        """Gates in list order. Edited args carry forward (re-validated); the first
        block or result short-circuits."""
        for slot, fn, st in self._hooks["before_tool_call"]:
            if not slot.live("before_tool_call"):
                continue
            outcome: BeforeToolCallResult | None = await self._timed(
                slot, "before_tool_call", st, fn, call.context(slot)
            )
            if outcome is None:
                continue
            if outcome.block or outcome.result is not None:
                return outcome
            if outcome.args is not None:
                try:
                    call.args = call.tool.validate(outcome.args)
                except ToolArgumentError as exc:
                    return BeforeToolCallResult(
                        block=True, reason=f"The edited arguments were invalid. {exc}"
                    )
                call.edited = True
        return None

    async def after_tool_call(self, call: CallState, result: ToolResult) -> ToolResult:
        """Reverse order; each non-None field of a returned value overrides."""
        for slot, fn, st in reversed(self._hooks["after_tool_call"]):
            if not slot.live("after_tool_call"):
                continue
            change: AfterToolCallResult | None = await self._timed(
                slot, "after_tool_call", st, fn, call.context(slot), result
            )
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

    async def should_stop_after_turn(self, run: ReplyRun) -> bool:
        """Every enabled predicate runs (counters stay right); any True stops."""
        stop = False
        for slot, fn, st in self._hooks["should_stop_after_turn"]:
            if slot.live("should_stop_after_turn") and await self._timed(
                slot, "should_stop_after_turn", st, fn, run.context(slot)
            ):
                stop = True
        return stop

    async def on_error(self, run: ReplyRun, error: BaseException, source: str) -> None:
        """Reverse order, all run; an observer's own failure is logged, never raised."""
        for slot, fn, st in reversed(self._hooks["on_error"]):
            if not slot.live("on_error"):
                continue
            try:
                await self._timed(slot, "on_error", st, fn, run.context(slot), error, source)
            except Exception:
                log.exception("middleware %s failed in on_error", slot.name)

    # -- onions -----------------------------------------------------------------
    def stream(
        self,
        hook: str,
        run: ReplyRun,
        request: Any,
        core: Callable[[Any], AsyncIterator[T]],
        core_source: str,
        context: Callable[[Slot], HookContext] | None = None,
    ) -> AsyncIterator[T]:
        """A streaming onion (``on_reply``, ``on_reasoning``, ``on_model_call``)."""
        return self._stream_from(hook, run, request, core, core_source, context or run.context, 0, None)

    def _stream_from(
        self,
        hook: str,
        run: ReplyRun,
        request: Any,
        core: Callable[[Any], AsyncIterator[T]],
        core_source: str,
        context: Callable[[Slot], HookContext],
        i: int,
        parent: list[float] | None,
    ) -> AsyncIterator[T]:
        entries = self._hooks[hook]
        while i < len(entries) and not entries[i][0].live(hook):
            i += 1
        if i == len(entries):
            if parent is None:  # no layer at all: the core runs bare
                return core(request)
            return self._stream_core(core(request), core_source, parent)
        slot, fn, st = entries[i]
        st.calls += 1
        inner = [0.0]

        def next_layer(req: Any) -> AsyncIterator[T]:
            return self._stream_from(hook, run, req, core, core_source, context, i + 1, inner)

        def failed(exc: Exception) -> None:
            self._failed(slot, hook, exc)

        def done(total: float) -> None:
            st.time_s += total - inner[0]  # its own time: the inner layers' is theirs

        try:
            source = fn(context(slot), request, next_layer)  # a generator: nothing runs yet
        except Exception as exc:  # a plain function that failed at once
            failed(exc)
            raise
        return self._relay(source, parent, failed, done)

    def _stream_core(
        self, source: AsyncIterator[T], core_source: str, parent: list[float]
    ) -> AsyncIterator[T]:
        def failed(exc: Exception) -> None:
            _tag(exc, core_source)  # the model (or a tool) raised it, not a middleware

        return self._relay(source, parent, failed, None)

    @staticmethod
    async def _relay(
        source: AsyncIterator[T],
        parent: list[float] | None,
        failed: Callable[[Exception], None],
        done: Callable[[float], None] | None,
    ) -> AsyncIterator[T]:
        """Pass ``source``'s items on, timing each step: the one loop every streamed
        chunk or event crosses per layer, so it stays this small."""
        step = source.__anext__
        clock = perf_counter
        total = 0.0
        try:
            while True:
                t0 = clock()
                try:
                    item = await step()
                except StopAsyncIteration:
                    break
                finally:
                    total += clock() - t0
                yield item
        except Exception as exc:
            failed(exc)
            raise
        finally:
            if done is not None:
                done(total)
            if parent is not None:
                parent[0] += total
            close = getattr(source, "aclose", None)
            if close is not None:
                await close()

    async def call(
        self,
        hook: str,
        request: Any,
        core: Callable[[Any], Awaitable[R]],
        core_source: str,
        context: Callable[[Slot], HookContext],
        i: int = 0,
        parent: list[float] | None = None,
    ) -> R:
        """An awaitable onion (``on_compress_context``, ``on_acting``)."""
        entries = self._hooks[hook]
        while i < len(entries) and not entries[i][0].live(hook):
            i += 1
        if i == len(entries):
            if parent is None:
                return await core(request)
            t0 = perf_counter()
            try:
                return await core(request)
            except Exception as exc:
                _tag(exc, core_source)
                raise
            finally:
                parent[0] += perf_counter() - t0
        slot, fn, st = entries[i]
        st.calls += 1
        inner = [0.0]

        def next_layer(req: Any) -> Awaitable[R]:
            return self.call(hook, req, core, core_source, context, i + 1, inner)

        t0 = perf_counter()
        try:
            result: R = await fn(context(slot), request, next_layer)
            return result
        except Exception as exc:
            self._failed(slot, hook, exc)
            raise
        finally:
            elapsed = perf_counter() - t0
            st.time_s += elapsed - inner[0]
            if parent is not None:
                parent[0] += elapsed
