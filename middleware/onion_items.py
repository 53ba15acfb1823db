"""The wrappers a streaming onion puts around one layer's output (or the core's) only
where one is needed: to time each step once someone reads the stats, to let a
coroutine layer ``await next(request)``, and, for ``on_reply``, to check the layer's
ends in that same step (:class:`ReplyItems`). Untimed generator layers get none: their
items pass on as the generators yield them.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Generator
from time import perf_counter
from typing import TYPE_CHECKING, Any

from shell.core.events import ReplyEnd, ReplyStart

from .coroutine_driver import Bridge, Forward, driving
from .onion_answers import COLLECTORS
from .stats import HookStats

if TYPE_CHECKING:
    from .stack_slots import Slot
    from .streaming_onion import StreamOnion

NO_STATS = HookStats()


class Items:
    """One layer's output wrapped, where a wrapper is needed: to time each step (once
    someone reads the stats) and to let a coroutine layer ``await next(request)``.

    Awaiting it runs it to the end and gives the hook's result; from a coroutine
    layer, the items also stream out on the way.
    """

    __slots__ = ("_onion", "_owner", "_parent", "_slot", "_source", "_stats", "_step", "_timed")

    def __init__(
        self,
        onion: StreamOnion,
        source: AsyncIterator[Any],
        slot: Slot | None,
        stats: HookStats,
        parent: HookStats | None,
        owner: Bridge | None,
    ) -> None:
        self._onion = onion
        self._source = source
        self._step = source.__anext__
        self._slot = slot
        self._stats = stats
        self._parent = parent
        self._owner = owner
        self._timed = onion.timing

    def __aiter__(self) -> Items:
        return self

    async def __anext__(self) -> Any:
        if not self._timed:
            try:
                return await self._step()
            except StopAsyncIteration:
                raise
            except Exception as exc:
                self._onion.failed(self._slot, exc)
                raise
        t0 = perf_counter()
        try:
            return await self._step()
        except StopAsyncIteration:
            raise
        except Exception as exc:
            self._onion.failed(self._slot, exc)
            raise
        finally:
            dt = perf_counter() - t0
            self._stats.time_s += dt
            if self._parent is not None:
                self._parent.time_s -= dt

    def __await__(self) -> Generator[Any, Any, Any]:
        owner = self._owner
        live = owner is not None and driving.coro is owner.coro
        collect = COLLECTORS[self._onion.hook]()
        while True:
            try:
                item = yield from self.__anext__().__await__()
            except StopAsyncIteration:
                break
            collect.add(item)
            if live:
                assert owner is not None
                owner.forwarded = True
                yield Forward(item)
        result = collect.result()
        if live:
            assert owner is not None
            owner.results.append(result)
        return result

    async def aclose(self) -> None:
        close = getattr(self._source, "aclose", None)
        if close is not None:
            await close()


_HELD_NOTHING: Any = object()


class ReplyItems(Items):
    """An ``on_reply`` layer's own output in a wrapper (timed, or awaited by a
    coroutine layer), checked in the wrapper's one step per item as
    :meth:`StreamOnion._reply_items` checks it: ``ReplyStart`` first, ``ReplyEnd``
    last (a layer that ends without one ends the reply there)."""

    __slots__ = ("_depth", "_held", "_last", "_over", "_started")

    def __init__(
        self,
        onion: StreamOnion,
        source: AsyncIterator[Any],
        slot: Slot | None,
        stats: HookStats,
        parent: HookStats | None,
        owner: Bridge | None,
        depth: int,
    ) -> None:
        super().__init__(onion, source, slot, stats, parent, owner)
        self._depth = depth
        self._held: Any = _HELD_NOTHING
        self._last: Any = None
        self._started = False
        self._over = False

    async def __anext__(self) -> Any:
        held = self._held
        if held is not _HELD_NOTHING:  # the layer's first item, after the ReplyStart put before it
            self._held = _HELD_NOTHING
            return held
        if self._over:
            raise StopAsyncIteration
        timed = self._timed
        t0 = perf_counter() if timed else 0.0
        try:
            try:
                item = await self._step()
            except StopAsyncIteration:
                if type(self._last) is ReplyEnd:
                    raise
                self._over = True
                return await self._onion.ended_early(self._depth)
        except StopAsyncIteration:
            raise
        except Exception as exc:
            self._onion.failed(self._slot, exc)
            raise
        finally:
            if timed:
                dt = perf_counter() - t0
                self._stats.time_s += dt
                if self._parent is not None:
                    self._parent.time_s -= dt
        self._last = item
        if not self._started:
            self._started = True
            if type(item) is not ReplyStart:
                self._held = item
                return self._onion.start_event()
        return item
