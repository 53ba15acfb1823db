"""Streaming onions (``on_reply``, ``on_reasoning``, ``on_model_call``): how the layers
of one invocation wrap each other, pulled by the caller, in the caller's task.

A layer is an async generator (``async for x in next(request): yield x``: it sees,
and may change, every item on its way out), a coroutine (``return await
next(request)``: AgentScope's and HPD's simple style) or a plain function that
returns what streams: ``next(request)`` itself (the layer only changes the
request), :func:`middleware.watch` over it (the layer only looks), or items of its
own. The core advances only as the outermost layer asks for the next item, so a
layer that stops asking stops everything inside it.

A coroutine layer still streams: while it awaits ``next(request)``, each item the
inner layers produce is passed straight out (the coroutine is driven by hand, so
its ``await`` suspends it item by item without a task). What the ``await`` returns
is the hook's *result* (the model's message for ``on_model_call``); a coroutine
layer that answers without calling ``next`` returns its answer (a message or plain
text) and the onion streams it as if the inner layers had.

What it costs: a generator layer's items pass on as the generator yields them (no
wrapper), so an untimed layer costs its own generator step per item and its
generator per invocation; a plain layer that returns ``next(request)`` costs
nothing per item, and watching layers in a row share one step per item. A wrapper
(:class:`Items`) is added only to time each step once someone reads the stats, or
to let a coroutine layer ``await next(request)``.

Here: how one invocation enters its layers (:class:`StreamOnion`); beside it, the
wrappers (:mod:`.onion_items`), driving a coroutine layer (:mod:`.coroutine_driver`)
and what ``await next()`` returns (:mod:`.onion_answers`).
"""

from __future__ import annotations

import inspect
from collections.abc import AsyncIterator, Awaitable, Callable
from functools import partial
from operator import attrgetter
from types import AsyncGeneratorType
from typing import TYPE_CHECKING, Any

from shell.core.events import Event, ReplyEnd, ReplyStart, is_event

from .blame import ACTIVE, SOURCE_ATTR, owner_of, tag
from .coroutine_driver import Bridge, bridged
from .hook_shapes import CORO, GEN, Entry
from .onion_answers import COLLECTORS, answer_items
from .onion_items import NO_STATS, Items, ReplyItems
from .stats import HookStats
from .watching import Watched

if TYPE_CHECKING:
    from .context import HookContext, ReplyRun
    from .stack import MiddlewareStack
    from .stack_slots import Slot

__all__ = ["COLLECTORS", "Items", "ReplyItems", "StreamOnion", "answer_items"]

_FRAME = attrgetter("ag_frame")
"""An async generator's frame: None once it finished."""


class StreamOnion:
    """One invocation of a streaming onion: the layers it opened, so that all of them
    can be closed, and what each produced, so that an error can be named."""

    __slots__ = (
        "checked_at",
        "context",
        "contexts",
        "core",
        "core_source",
        "entries",
        "finish",
        "generators",
        "hook",
        "items",
        "members",
        "opened",
        "request",
        "run",
        "stack",
        "timing",
    )

    def __init__(
        self,
        stack: MiddlewareStack,
        hook: str,
        entries: tuple[Entry, ...],
        run: ReplyRun,
        request: Any,
        core: Callable[[Any], AsyncIterator[Any]],
        core_source: str,
        context: Callable[[Slot], HookContext],
        finish: Callable[[], Awaitable[Event]] | None = None,
    ) -> None:
        self.stack = stack
        self.hook = hook
        self.entries = entries
        self.run = run
        self.request = request
        self.core = core
        self.core_source = core_source
        self.context = context
        self.contexts = run.contexts if context == run.context else None
        """The run's contexts by slot, read directly when they are the ones used."""
        self.finish = finish
        self.opened: list[tuple[int, Any]] = []
        """What to close, each with the depth of the layer it belongs to (the core's is
        the number of layers): a layer that ends early closes what is deeper."""
        self.generators: list[Any] = []
        """The async generators among :attr:`opened`, in the same order: when they are all
        of it and all finished (the usual end), closing has nothing to do, found in one
        pass of C (:meth:`close_inside`)."""
        self.members: list[tuple[Any, Slot | None]] = []
        """What each layer (and the core) produced, with its slot: who raised what."""
        self.timing = stack.timing  # decided once per invocation, so own times add up
        self.checked_at = -1
        """``on_reply``: the depth of the outermost layer whose own output the consumer
        pulls as it is, with no guard on the way (-1: none): the consumer checks that
        it starts with ``ReplyStart`` and ends with ``ReplyEnd``, as
        :meth:`_reply_items` would (``start_event``, ``ended_early``)."""
        ACTIVE.add(self)
        self.items: AsyncIterator[Any] = self.enter(0, request, None, None)

    def enter(
        self,
        i: int,
        default: Any,
        caller: Entry | None,
        bridge: Bridge | None,
        request: Any = None,
        /,
        **changes: Any,
    ) -> AsyncIterator[Any]:
        """Layer ``i`` (the next live one from there, or the core) called by the layer
        of ``caller`` (None: the consumer) with ``request`` (``default``, the request
        the caller got, when it passed none): what the caller iterates. A generator
        layer's ``next`` is this, bound with ``functools.partial``."""
        if request is None:
            request = default
        if changes:
            request = request.override(**changes)
        entries, hook = self.entries, self.hook
        n = len(entries)
        while i < n:
            entry = entries[i]
            slot = entry.slot
            if slot.enabled and (not slot.dynamic or slot.middleware.is_active(hook)):
                break
            i += 1
        else:
            return self._core(request, caller, bridge)
        entry.stats.calls += 1
        contexts = self.contexts
        ctx = contexts.get(slot) if contexts is not None else None
        if ctx is None:
            ctx = self.context(slot)
        source: AsyncIterator[Any]
        if entry.shape is GEN:  # calling it runs nothing yet: it cannot fail here
            source = entry.fn(ctx, request, partial(_enter, self, i + 1, request, entry, None))
            self.members.append((source, slot))
            self.opened.append((i, source))
            if type(source) is AsyncGeneratorType:
                self.generators.append(source)
            own = True
        else:
            source, own = self._not_generator(i, entry, ctx, request)
        if own and hook == "on_reply":  # its ends are checked (the loop's own are right)
            if bridge is None and not self.timing:
                if caller is None:  # the consumer checks them as it pulls: nothing on the way
                    self.checked_at = i
                    return source
                guarded = self._reply_items(source, i)
                self.opened.append((i, guarded))
                self.generators.append(guarded)
                return guarded
            return self._wrapped(i, source, slot, entry.stats, caller, bridge, ReplyItems)
        if bridge is None and not self.timing:
            return source  # passed on as it is: no wrapper on the way of each item
        return self._wrapped(i, source, slot, entry.stats, caller, bridge)

    def _not_generator(
        self, i: int, entry: Entry, ctx: HookContext, request: Any
    ) -> tuple[AsyncIterator[Any], bool]:
        """Call a coroutine or plain layer: what it streams, and whether that is its own.
        One that hands on what its ``next`` gave, or only watches it, adds nothing of its
        own to the stream (what its ``next`` gave is checked already)."""
        nxt = _Next(self, i + 1, request, entry)
        slot = entry.slot
        source: AsyncIterator[Any]
        try:
            if entry.shape is CORO:
                source = self._coroutine(entry, ctx, request, nxt)
            else:  # a plain function: it says which by what it returns
                source = entry.fn(ctx, request, nxt)
                if not hasattr(source, "__anext__"):
                    source = self._plain(entry, source, nxt)
        except Exception as exc:
            self.failed(slot, exc)
            raise
        gave = nxt.gave
        if type(source) is Watched and (source is gave or source.source is gave):
            source.claim(self, entry)  # it only watches what its next gave
            if source is not gave:  # (else it joined the watchers inside it)
                self.opened.append((i, source))
            return source, False
        if source is gave:  # it handed it on: nothing of its own on the way
            return source, False
        self.members.append((source, slot))
        self.opened.append((i, source))
        return source, True

    def _core(self, request: Any, caller: Entry | None, bridge: Bridge | None) -> AsyncIterator[Any]:
        source = self.core(request)
        depth = len(self.entries)
        self.members.append((source, None))
        self.opened.append((depth, source))
        if type(source) is AsyncGeneratorType:
            self.generators.append(source)
        if caller is None or (bridge is None and not self.timing):  # passed on as it is
            return source  # (with no layer at all, the consumer pulls the core itself)
        return self._wrapped(depth, source, None, NO_STATS, caller, bridge)

    def _wrapped(
        self,
        depth: int,
        source: AsyncIterator[Any],
        slot: Slot | None,
        stats: HookStats,
        caller: Entry | None,
        bridge: Bridge | None,
        kind: type[Items] | None = None,
    ) -> AsyncIterator[Any]:
        """``source`` in an :class:`Items`: timed, or awaitable by a coroutine layer
        (a :class:`ReplyItems`, which also checks its ends, for an ``on_reply`` layer)."""
        parent = caller.stats if caller is not None else None
        if kind is ReplyItems:
            items: Items = ReplyItems(self, source, slot, stats, parent, bridge, depth)
        else:
            items = Items(self, source, slot, stats, parent, bridge)
        self.opened.append((depth, items))
        return items

    async def _reply_items(self, source: AsyncIterator[Any], depth: int) -> AsyncIterator[Any]:
        """``on_reply``'s items, layer by layer: each layer sees ``ReplyStart`` first and
        ``ReplyEnd`` last. A layer that ends without a ``ReplyEnd`` (it returned early,
        or answered without calling ``next``) ends the reply there: everything inside
        it is closed (the loop repairs the history) and the layers outside get the
        ``ReplyEnd``.

        This guard is a step of its own per item, so it is put only where no step of
        the engine's is on the way already: between a layer's output and a generator
        layer outside it. The consumer checks the outermost layer's output itself (see
        :attr:`checked_at`), a wrapper (:class:`ReplyItems`) checks in its own step,
        and layers that hand on or only watch what their ``next`` gave need no check.
        (A step of Python code must be on the way: when an async generator ends, the
        one iterating it gets ``StopAsyncIteration`` with no code of ours in between,
        and the layer outside must get the ``ReplyEnd`` in its place.)"""
        last: Any = None
        async for last in source:
            if type(last) is not ReplyStart:
                yield self.start_event()
            yield last
            break
        async for last in source:
            yield last
        if type(last) is not ReplyEnd:
            yield await self.ended_early(depth)

    async def ended_early(self, depth: int | None = None) -> Event:
        """The layer at ``depth`` (by default the outermost, whose ends the consumer
        checks) ended without a ``ReplyEnd``: close everything inside it (the loop
        repairs the history) and say how the reply ended."""
        await self.close_inside(self.checked_at if depth is None else depth)
        assert self.finish is not None
        return await self.finish()

    def _coroutine(self, entry: Entry, ctx: HookContext, request: Any, nxt: _Next) -> AsyncIterator[Any]:
        bridge = nxt.bridge = Bridge()
        bridge.coro = entry.fn(ctx, request, nxt)
        self.members.append((bridge.coro, entry.slot))
        return bridged(self.hook, self.run, bridge)

    def _plain(self, entry: Entry, result: Any, nxt: _Next) -> AsyncIterator[Any]:
        """What a plain function returned that is not an async iterator: an awaitable
        is driven as a coroutine layer would be."""
        if inspect.isawaitable(result):
            bridge = nxt.bridge = Bridge()
            bridge.coro = result.__await__() if not inspect.iscoroutine(result) else result
            return bridged(self.hook, self.run, bridge)
        raise TypeError(
            f"{self.hook} returned {type(result).__name__}, not an async iterator or an awaitable"
        )

    # -- errors, endings ---------------------------------------------------------------
    def failed(self, slot: Slot | None, exc: Exception) -> None:
        if slot is None:
            tag(exc, self.core_source)  # the core (the model, the loop) raised it
        else:
            self.stack._failed(slot, self.hook, exc)

    def outermost_failed(self, exc: Exception) -> Exception:
        """``exc`` is about what came out of the onion (an item of the wrong kind): the
        outermost layer gave it, so it is that layer's failure. Returns ``exc``."""
        for _, slot in self.members:  # entered outermost first
            if slot is not None:
                self.stack._failed(slot, self.hook, exc)
                return exc
        tag(exc, self.core_source)
        return exc

    def check_event(self, item: Any) -> None:
        """An ``on_reply`` / ``on_reasoning`` item that is not an event is the outermost
        layer's failure (a ``TypeError`` saying what to yield)."""
        if not is_event(item):
            raise self.outermost_failed(
                TypeError(
                    f"{self.hook} yielded {type(item).__name__}; it must yield the events it gets "
                    "from next() (or events of its own, e.g. CustomEvent)"
                )
            )

    def blame(self, exc: Exception) -> None:
        """Name who raised ``exc`` (for an error that left the onion untagged: it
        passed no wrapper), from the frames it went through."""
        if hasattr(exc, SOURCE_ATTR):
            return
        hit = owner_of(exc)
        if hit is not None:
            onion, slot = hit
            onion.failed(slot, exc)

    def start_event(self) -> ReplyStart:
        return ReplyStart(self.request.input, reply_id=self.run.reply_id)

    async def close_inside(self, depth: int) -> None:
        """Close what the layers deeper than ``depth`` (and the core) opened, innermost
        first; what already finished needs nothing."""
        opened = self.opened
        if depth < 0 and len(self.generators) == len(opened) and not any(map(_FRAME, self.generators)):
            self.opened, self.generators = [], []  # all of it async generators, all finished
            return
        pending = [
            (-d, -k, it)  # deepest first, then the latest (k is unique: no tie reaches it)
            for k, (d, it) in enumerate(opened)
            if d > depth
            and not (type(it) is AsyncGeneratorType and it.ag_frame is None)
            and not (type(it) is Watched and it.over)
        ]
        self.opened = [o for o in opened if o[0] <= depth] if depth >= 0 else []
        self.generators = [it for _, it in self.opened if type(it) is AsyncGeneratorType]
        if len(pending) > 1:
            pending.sort()
        for _, _, it in pending:
            close = getattr(it, "aclose", None)
            if close is None:
                continue
            try:
                await close()
            except Exception as exc:
                slot = it._slot if isinstance(it, Items) else None
                if slot is not None:
                    self.stack._failed(slot, self.hook, exc)
                self.stack.log.warning("closing %s failed: %s", self.hook, exc)

    async def aclose(self) -> None:
        try:
            await self.close_inside(-1)
        finally:
            ACTIVE.discard(self)


class _Next:
    """The ``next`` a coroutine or plain layer gets: ``next(request)``, ``next()`` (the
    request it got) or ``next(**changes)`` (AgentScope's keyword overrides). It keeps
    what it gave: a plain layer that returns that as it is adds nothing."""

    __slots__ = ("bridge", "entry", "gave", "index", "onion", "request")

    def __init__(self, onion: StreamOnion, index: int, request: Any, entry: Entry) -> None:
        self.onion = onion
        self.index = index
        self.request = request
        self.entry = entry
        self.bridge: Bridge | None = None
        self.gave: Any = None

    def __call__(self, request: Any = None, /, **changes: Any) -> AsyncIterator[Any]:
        onion = self.onion
        gave = self.gave = onion.enter(self.index, self.request, self.entry, self.bridge, request, **changes)
        return gave


_enter = StreamOnion.enter
