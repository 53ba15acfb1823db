"""Awaited onions (``on_compress_context``, ``on_acting``): each layer gets ``next`` and
returns the hook's one result.

The common case, every live layer an ``async def`` and nobody reading the stats,
runs as an :class:`AwaitedOnion`: each layer's ``next`` hands back the inner layer's
own coroutine, with no wrapper per layer; a failure is named after the deepest layer
frame it passed. Otherwise (a generator or plain layer, or timing on) the layers run
one by one in :func:`call_layers`, each timed and named as it returns.
"""

from __future__ import annotations

import inspect
from collections.abc import AsyncIterator, Awaitable, Callable, Generator
from functools import partial
from time import perf_counter
from typing import TYPE_CHECKING, Any, TypeVar

from .blame import ACTIVE, SOURCE_ATTR, owner_of, tag
from .hook_shapes import GEN, Entry
from .stats import HookStats

if TYPE_CHECKING:
    from .context import HookContext
    from .stack import MiddlewareStack
    from .stack_slots import Slot

R = TypeVar("R")


class AwaitedOnion:
    """One invocation of an awaited onion whose live layers are all coroutines, untimed."""

    __slots__ = ("context", "core", "core_source", "entries", "hook", "members", "stack")

    def __init__(
        self,
        stack: MiddlewareStack,
        hook: str,
        entries: list[Entry] | tuple[Entry, ...],
        core: Callable[[Any], Awaitable[Any]],
        core_source: str,
        context: Callable[[Slot], HookContext],
    ) -> None:
        self.stack = stack
        self.hook = hook
        self.entries = entries
        self.core = core
        self.core_source = core_source
        self.context = context
        self.members: list[tuple[Any, Slot | None]] = []

    def enter(self, i: int, default: Any, request: Any = None, /, **changes: Any) -> Awaitable[Any]:
        """Layer ``i`` (or the core) called with ``request`` (``default``, the request
        the caller got, when it passed none): its coroutine. A layer's ``next`` is
        this, bound with ``functools.partial``."""
        if request is None:
            request = default
        if changes:
            request = request.override(**changes)
        entries = self.entries
        if i == len(entries):
            return self._core(request)
        entry = entries[i]
        entry.stats.calls += 1
        slot = entry.slot
        coro = entry.fn(self.context(slot), request, partial(_enter, self, i + 1, request))
        self.members.append((coro, slot))
        return coro  # type: ignore[no-any-return]

    async def _core(self, request: Any) -> Any:
        try:
            return await self.core(request)
        except Exception as exc:
            tag(exc, self.core_source)
            raise

    def failed(self, slot: Slot | None, exc: Exception) -> None:
        if slot is None:
            tag(exc, self.core_source)
        else:
            self.stack._failed(slot, self.hook, exc)

    async def run(self, request: Any) -> Any:
        ACTIVE.add(self)
        try:
            return await self.enter(0, request)
        except Exception as exc:
            if not hasattr(exc, SOURCE_ATTR):
                hit = owner_of(exc)
                if hit is not None:
                    hit[0].failed(hit[1], exc)
            raise
        finally:
            ACTIVE.discard(self)


_enter = AwaitedOnion.enter


async def call_layers(
    stack: MiddlewareStack,
    hook: str,
    entries: tuple[Entry, ...],
    request: Any,
    core: Callable[[Any], Awaitable[R]],
    core_source: str,
    context: Callable[[Slot], HookContext],
    i: int = 0,
    parent: HookStats | None = None,
) -> R:
    """The layers from ``i`` one by one, each timed (its own time: inner layers'
    subtracted from ``parent``) and its failure named as it returns."""
    n = len(entries)
    while i < n and not entries[i].slot.live(hook):
        i += 1
    t0 = perf_counter()
    if i == n:
        try:
            return await core(request)
        except Exception as exc:
            tag(exc, core_source)
            raise
        finally:
            if parent is not None:
                parent.time_s -= perf_counter() - t0
    entry = entries[i]
    st = entry.stats
    st.calls += 1

    def next_layer(req: Any = None, /, **changes: Any) -> Any:
        if req is None:
            req = request
        if changes:
            req = req.override(**changes)
        aw = call_layers(stack, hook, entries, req, core, core_source, context, i + 1, st)
        return CallResult(aw) if entry.shape is GEN else aw

    try:
        value: Any = entry.fn(context(entry.slot), request, next_layer)
        if entry.shape is GEN:
            value = await last_item(value, f"{entry.slot.name}.{hook}")
        elif inspect.isawaitable(value):
            value = await value
        elif hasattr(value, "__anext__"):
            value = await last_item(value, f"{entry.slot.name}.{hook}")
        return value  # type: ignore[no-any-return]
    except Exception as exc:
        stack._failed(entry.slot, hook, exc)
        raise
    finally:
        elapsed = perf_counter() - t0
        st.time_s += elapsed
        if parent is not None:
            parent.time_s -= elapsed


class CallResult:
    """``next(request)`` for a generator layer of an awaited onion: await it for the
    result, or iterate it (one item: the result)."""

    __slots__ = ("_aw",)

    def __init__(self, aw: Awaitable[Any]) -> None:
        self._aw = aw

    def __await__(self) -> Generator[Any, Any, Any]:
        return self._aw.__await__()

    def __aiter__(self) -> AsyncIterator[Any]:
        return self._one()

    async def _one(self) -> AsyncIterator[Any]:
        yield await self._aw


async def last_item(items: AsyncIterator[Any], what: str) -> Any:
    """A generator layer of an awaited onion: its last item is its result."""
    found, result = False, None
    async for item in items:
        found, result = True, item
    if not found:
        raise TypeError(f"{what} yielded nothing; yield the result (e.g. 'yield await next(request)')")
    return result
