"""Onions: how the layers of one hook wrap each other, and the two styles a layer
may be written in.

A layer is an async generator (``async for x in next(request): yield x``: it sees,
and may change, every item on its way out) or a coroutine (``return await
next(request)``: AgentScope's and HPD's simple style). Both run in the caller's task
and are *pulled*: the core advances only as the outermost layer asks for the next
item, so a layer that stops asking stops everything inside it.

A coroutine layer still streams: while it awaits ``next(request)``, each item the
inner layers produce is passed straight out (the coroutine is driven by hand, so
its ``await`` suspends it item by item without a task). What the ``await`` returns
is the hook's *result* (the model's message for ``on_model_call``); a coroutine
layer that answers without calling ``next`` returns its answer (a message or plain
text) and the onion streams it as if the inner layers had.

Each layer's output passes one small wrapper that keeps its statistics (own time:
inner layers excluded) and names it when an error leaves it (``error_source``).
"""

from __future__ import annotations

import inspect
import threading
from collections.abc import AsyncIterator, Awaitable, Callable, Generator, Iterable
from time import perf_counter
from typing import TYPE_CHECKING, Any

from shell.core.assembly import ChunkAssembler, ChunkCollector, MessageBuilder, message_chunks
from shell.core.events import Event, ModelCallEnd, ReplyEnd, ReplyStart
from shell.core.messages import AssistantMessage, TextBlock
from shell.core.model import StopChunk

from .stats import HookStats

if TYPE_CHECKING:
    from .context import HookContext, ReplyRun
    from .stack import MiddlewareStack, Slot

STREAMING = ("on_reply", "on_reasoning", "on_model_call")
AWAITED = ("on_compress_context", "on_acting")
ONIONS = STREAMING + AWAITED

GEN, CORO, PLAIN = "async generator", "coroutine", "function"

ARITY = {
    "on_reply": 3,
    "transform_system_prompt": 2,
    "list_tools": 0,
    "on_compress_context": 3,
    "transform_context": 2,
    "on_reasoning": 3,
    "convert_to_llm": 2,
    "on_model_call": 3,
    "after_model_response": 2,
    "before_tool_call": 1,
    "before_tool_batch": 2,
    "on_acting": 3,
    "after_tool_call": 2,
    "after_turn": 2,
    "should_stop_after_turn": 1,
    "on_error": 3,
}


def hook_shape(name: str, hook: str, fn: Any) -> str:
    """How ``fn`` is written; a ``TypeError`` naming the middleware and the hook
    when the stack cannot call it (checked once, when the stack is built)."""
    where = f"Middleware {name!r}: {hook}"
    if inspect.isasyncgenfunction(fn):
        shape = GEN
    elif inspect.iscoroutinefunction(fn):
        shape = CORO
    elif inspect.isgeneratorfunction(fn):
        raise TypeError(
            f"{where} is a plain generator (def ... yield); write it as "
            "'async def ... yield' or as 'async def ... return await next(request)'"
        )
    elif callable(fn):
        shape = PLAIN
    else:
        raise TypeError(f"{where} is not callable ({type(fn).__name__})")
    if shape == GEN and hook not in ONIONS:
        raise TypeError(
            f"{where} is an async generator, but {hook} returns one value: use 'async def ... return'"
        )
    try:
        signature = inspect.signature(fn)
    except (TypeError, ValueError):
        return shape  # no signature to check (a C callable): let the call decide
    try:
        signature.bind(*([None] * ARITY[hook]))
    except TypeError:
        wanted = {0: "()", 1: "(ctx)", 2: "(ctx, value)", 3: "(ctx, request, next)"}[ARITY[hook]]
        if hook == "on_error":
            wanted = "(ctx, error, source)"
        raise TypeError(f"{where} must take {wanted}; it takes {signature}") from None
    return shape


class Entry:
    """One middleware's implementation of one hook, as the stack wired it."""

    __slots__ = ("direct", "fn", "hook", "shape", "slot", "stats")

    def __init__(self, slot: Slot, hook: str, fn: Callable[..., Any], shape: str, stats: HookStats) -> None:
        self.slot = slot
        self.hook = hook
        self.fn = fn
        self.shape = shape
        self.stats = stats
        self.direct = shape == CORO
        """An ``async def``: its coroutine can be awaited as it is (untimed)."""


# -- results of ``await next(request)`` and answers of coroutine layers ----------------


class _LastReplyMessage:
    __slots__ = ("message",)

    def __init__(self) -> None:
        self.message: AssistantMessage | None = None

    def add(self, event: Any) -> None:
        if type(event) is ReplyEnd:
            self.message = event.message

    def result(self) -> AssistantMessage | None:
        return self.message


class _EventMessage:
    __slots__ = ("builder",)

    def __init__(self) -> None:
        self.builder = MessageBuilder()

    def add(self, event: Any) -> None:
        self.builder.see(event)

    def result(self) -> AssistantMessage | None:
        return None if self.builder.empty else self.builder.message()


COLLECTORS: dict[str, Callable[[], Any]] = {
    "on_reply": _LastReplyMessage,
    "on_reasoning": _EventMessage,
    "on_model_call": ChunkCollector,
}


def _as_message(value: Any) -> AssistantMessage | None:
    if isinstance(value, AssistantMessage):
        return value
    if isinstance(value, str):
        return AssistantMessage((TextBlock(value),))
    return None


def answer_items(hook: str, run: ReplyRun, value: Any) -> Iterable[Any]:
    """What a coroutine layer's own answer streams as: a message or plain text
    becomes chunks (``on_model_call``) or block events; an iterable is its items."""
    message = _as_message(value)
    if message is None:
        if isinstance(value, Iterable):
            return value
        raise TypeError(
            f"{hook} returned {type(value).__name__}; return what next() returned, "
            "an AssistantMessage, plain text, or the items to stream"
        )
    chunks = list(message_chunks(message))
    if hook == "on_model_call":
        if not any(isinstance(c, StopChunk) for c in chunks):
            chunks.append(StopChunk("end_turn"))
        return chunks
    assembler = ChunkAssembler(run.reply_id, run.block_ids)
    events: list[Event] = []
    for chunk in chunks:
        events.extend(assembler.feed(chunk))
    events.extend(assembler.finish())
    if hook == "on_reply":  # no model was called: only the blocks
        events = [e for e in events if not isinstance(e, ModelCallEnd)]
    return events


# -- driving a coroutine layer by hand -------------------------------------------------


class _Forward:
    """An item on its way out of a coroutine layer's ``await next(...)``."""

    __slots__ = ("item",)

    def __init__(self, item: Any) -> None:
        self.item = item


class _Pass:
    """Hands what a driven coroutine yielded (a future, a trio trap) to the event
    loop, and the loop's answer back."""

    __slots__ = ("value",)

    def __init__(self, value: Any) -> None:
        self.value = value

    def __await__(self) -> Generator[Any, Any, Any]:
        return (yield self.value)


_driving = threading.local()
_driving.coro = None


class _Bridge:
    """A coroutine layer while it runs: what its ``await next()`` calls returned."""

    __slots__ = ("coro", "forwarded", "results")

    def __init__(self) -> None:
        self.coro: Any = None
        self.forwarded = False
        self.results: list[Any] = []


# -- the items one layer (or the core) produces ---------------------------------------

_NO_STATS = HookStats()

ACTIVE: set[StreamOnion | AwaitedOnion] = set()
"""The onions in flight. Each knows the generators (and coroutines) of its layers and
core; an error that leaves a layer is named by the deepest of their frames it passed
through (:func:`owner_of`), read off the traceback only when there is an error: the
happy path registers nothing per layer."""


def _code_of(obj: Any) -> Any:
    return getattr(obj, "ag_code", None) or getattr(obj, "cr_code", None)


def _frame_of(obj: Any) -> Any:
    return getattr(obj, "ag_frame", None) or getattr(obj, "cr_frame", None)


def owner_of(exc: BaseException) -> tuple[StreamOnion | AwaitedOnion, Slot | None] | None:
    """The layer (or core: slot None) an exception came from, read off its traceback:
    the deepest frame that runs the code of a layer (or core) of an onion in flight.
    Two layers running the same code (two instances of one class) are told apart by
    the frame itself while it runs, else by its ``self``."""
    frames = []
    tb = exc.__traceback__
    while tb is not None:
        frames.append(tb.tb_frame)
        tb = tb.tb_next
    if not frames or not ACTIVE:
        return None
    by_code: dict[Any, list[tuple[StreamOnion | AwaitedOnion, Slot | None, Any]]] = {}
    for onion in list(ACTIVE):
        for obj, slot in onion.members:
            code = _code_of(obj)
            if code is not None:
                by_code.setdefault(code, []).append((onion, slot, obj))
    for frame in reversed(frames):
        hits = by_code.get(frame.f_code)
        if not hits:
            continue
        if len(hits) > 1:
            same = [h for h in hits if _frame_of(h[2]) is frame]
            if not same:
                me = frame.f_locals.get("self")
                same = [h for h in hits if h[1] is not None and h[1].middleware is me]
            hits = same or hits
        return hits[0][0], hits[0][1]
    return None


class Items:
    """One layer's output wrapped, where a wrapper is needed: to time each step (once
    someone reads the stats) and to let a coroutine layer ``await next(request)``.
    Elsewhere the layer's own generator is passed on as it is (``on_reply`` adds one
    small generator, :meth:`StreamOnion._reply_items`): an untimed pass-through layer
    costs one generator step per item.

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
        owner: _Bridge | None,
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
        live = owner is not None and _driving.coro is owner.coro
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
                yield _Forward(item)
        result = collect.result()
        if live:
            assert owner is not None
            owner.results.append(result)
        return result

    async def aclose(self) -> None:
        close = getattr(self._source, "aclose", None)
        if close is not None:
            await close()


class StreamOnion:
    """One invocation of a streaming onion (``on_reply``, ``on_reasoning``,
    ``on_model_call``): the layers it opened, so that all of them can be closed."""

    __slots__ = (
        "answer",
        "context",
        "core",
        "core_source",
        "entries",
        "finish",
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
        self.finish = finish
        self.opened: list[Items | AsyncIterator[Any]] = []
        self.members: list[tuple[Any, Slot | None]] = []
        """What each layer (and the core) produced, with its slot: who raised what."""
        self.timing = stack.timing  # decided once per invocation, so own times add up
        self.answer = MessageBuilder()
        ACTIVE.add(self)
        self.items: AsyncIterator[Any] = self.enter(0, request, None)

    def enter(self, i: int, request: Any, caller: _Next | None) -> AsyncIterator[Any]:
        entries, hook = self.entries, self.hook
        n = len(entries)
        while i < n and not entries[i].slot.live(hook):
            i += 1
        if i == n:
            slot, stats = None, _NO_STATS
            source = self.core(request)
            self.members.append((source, None))
            self.opened.append(source)
            if caller is None:  # no layer at all: the consumer pulls the core itself
                return source
        else:
            entry = entries[i]
            slot, stats = entry.slot, entry.stats
            stats.calls += 1
            nxt = _Next(self, i + 1, request, entry)
            if entry.shape is GEN:  # calling it runs nothing yet: it cannot fail here
                source = entry.fn(self.context(slot), request, nxt)
                self.members.append((source, slot))
            else:
                try:
                    source = self._call(entry, request, nxt)
                except Exception as exc:
                    self.failed(slot, exc)
                    raise
                self.members.append((source, slot))
            self.opened.append(source)
            if hook == "on_reply":  # (the loop itself starts and ends right: no guard)
                source = self._reply_items(source, caller is None, len(self.opened) - 1)
                self.opened.append(source)
        owner = caller.bridge if caller is not None else None
        if owner is None and not self.timing:
            return source  # passed on as it is: no wrapper on the way of each item
        parent = caller.entry.stats if caller is not None else None
        items = Items(self, source, slot, stats, parent, owner)
        self.opened.append(items)
        return items

    async def _reply_items(self, source: AsyncIterator[Any], outer: bool, index: int) -> AsyncIterator[Any]:
        """``on_reply``'s items, layer by layer: each layer sees ``ReplyStart`` first and
        ``ReplyEnd`` last. A layer that ends without a ``ReplyEnd`` (it returned early,
        or answered without calling ``next``) ends the reply there: everything inside
        it is closed (the loop repairs the history) and the layers outside get the
        ``ReplyEnd``. Past the first item (and, for the outermost layer, past the
        loop's start) each item only passes through: the check is on the last one,
        so this costs what a pass-through layer costs."""
        last: Any = None
        async for last in source:
            if type(last) is not ReplyStart:
                yield self.start_event()
            if outer and not self.run.core_started:
                self.answer.see(last)
            yield last
            break
        if outer and not self.run.core_started:  # perhaps a layer answering alone: its message
            run, answer = self.run, self.answer
            async for last in source:
                if not run.core_started and type(last) is not ReplyEnd:
                    answer.see(last)
                yield last
                if run.core_started:
                    break
        async for last in source:
            yield last
        if type(last) is not ReplyEnd:
            await self.close_from(index + 1)
            assert self.finish is not None
            yield await self.finish()

    def _call(self, entry: Entry, request: Any, nxt: _Next) -> AsyncIterator[Any]:
        ctx = self.context(entry.slot)
        if entry.shape == GEN:
            result: Any = entry.fn(ctx, request, nxt)
            return result  # type: ignore[no-any-return]
        if entry.shape == CORO:
            bridge = nxt.bridge = _Bridge()
            bridge.coro = entry.fn(ctx, request, nxt)
            self.members.append((bridge.coro, entry.slot))
            return self._bridged(entry, bridge)
        result = entry.fn(ctx, request, nxt)  # a plain function: it says which by what it returns
        if hasattr(result, "__anext__"):
            return result  # type: ignore[no-any-return]
        if inspect.isawaitable(result):
            bridge = nxt.bridge = _Bridge()
            bridge.coro = result.__await__() if not inspect.iscoroutine(result) else result
            return self._bridged(entry, bridge)
        raise TypeError(
            f"{self.hook} returned {type(result).__name__}, not an async iterator or an awaitable"
        )

    async def _bridged(self, entry: Entry, bridge: _Bridge) -> AsyncIterator[Any]:
        coro = bridge.coro
        local = _driving
        send: Any = None
        error: BaseException | None = None
        try:
            while True:
                prev = local.coro
                local.coro = coro
                try:
                    y = coro.send(send) if error is None else coro.throw(error)
                except StopIteration as stop:
                    value = stop.value
                    break
                finally:
                    local.coro = prev
                send = error = None
                if type(y) is _Forward:
                    yield y.item
                else:
                    try:
                        send = await _Pass(y)
                    except BaseException as exc:  # a cancellation: it goes in where the layer waits
                        error = exc
        finally:
            close = getattr(coro, "close", None)
            if close is not None:
                try:
                    close()
                except RuntimeError:
                    pass  # it awaited while closing: nothing more we can do
        if value is None or any(value is r for r in bridge.results):
            return
        if bridge.forwarded:
            raise TypeError(
                f"{self.hook} returned a different answer after next() had already streamed one; "
                "change the answer in after_model_response, or write the hook as an async generator"
            )
        for item in answer_items(self.hook, self.run, value):
            yield item

    # -- errors, endings ---------------------------------------------------------------
    def failed(self, slot: Slot | None, exc: Exception) -> None:
        if slot is None:
            tag(exc, self.core_source)  # the core (the model, the loop) raised it
        else:
            self.stack._failed(slot, self.hook, exc)

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

    async def close_from(self, index: int) -> None:
        """Close the iterators opened at ``index`` and after, innermost first."""
        while len(self.opened) > index:
            it = self.opened.pop()
            close = getattr(it, "aclose", None)
            if close is None or getattr(it, "ag_frame", True) is None:
                continue  # nothing to close, or a generator that already finished
            try:
                await close()
            except Exception as exc:
                slot = it._slot if isinstance(it, Items) else None
                if slot is not None:
                    self.stack._failed(slot, self.hook, exc)
                self.stack.log.warning("closing %s failed: %s", self.hook, exc)

    async def aclose(self) -> None:
        try:
            await self.close_from(0)
        finally:
            ACTIVE.discard(self)


class _Next:
    """The ``next`` a layer gets: ``next(request)``, ``next()`` (the request it got)
    or ``next(**changes)`` (AgentScope's keyword overrides)."""

    __slots__ = ("bridge", "entry", "index", "onion", "request")

    def __init__(self, onion: StreamOnion, index: int, request: Any, entry: Entry) -> None:
        self.onion = onion
        self.index = index
        self.request = request
        self.entry = entry
        self.bridge: _Bridge | None = None

    def __call__(self, request: Any = None, /, **changes: Any) -> AsyncIterator[Any]:
        if request is None:
            request = self.request
        if changes:
            request = request.override(**changes)
        return self.onion.enter(self.index, request, self)


# -- awaited onions ----------------------------------------------------------------------

SOURCE_ATTR = "__agent_shell_source__"
HOOK_ATTR = "__agent_shell_hook__"


def tag(exc: BaseException, source: str, hook: str | None = None) -> bool:
    """Name who raised ``exc`` (once: the first name sticks)."""
    if hasattr(exc, SOURCE_ATTR):
        return False
    try:
        setattr(exc, SOURCE_ATTR, source)
        if hook:
            setattr(exc, HOOK_ATTR, hook)
    except AttributeError:  # an exception type with __slots__: it stays untagged
        return False
    return True


class AwaitedOnion:
    """One invocation of an awaited onion (``on_compress_context``, ``on_acting``)
    whose live layers are all coroutines, untimed: the common case, so it runs with
    no wrapper per layer. Each layer's ``next`` hands back the inner layer's own
    coroutine; a failure is named after the deepest layer frame it passed (as in
    :class:`StreamOnion`), and the core's after the core (``core_source``)."""

    __slots__ = ("context", "core", "core_source", "entries", "hook", "members", "stack")

    def __init__(
        self,
        stack: MiddlewareStack,
        hook: str,
        entries: list[Entry],
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

    def enter(self, i: int, request: Any) -> Awaitable[Any]:
        entries = self.entries
        if i == len(entries):
            return self._core(request)
        entry = entries[i]
        entry.stats.calls += 1
        coro = entry.fn(self.context(entry.slot), request, _AwaitNext(self, i + 1, request))
        self.members.append((coro, entry.slot))
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


class _AwaitNext:
    """``next`` in an :class:`AwaitedOnion`: the inner layer's coroutine (or the core's)."""

    __slots__ = ("index", "onion", "request")

    def __init__(self, onion: AwaitedOnion, index: int, request: Any) -> None:
        self.onion = onion
        self.index = index
        self.request = request

    def __call__(self, request: Any = None, /, **changes: Any) -> Awaitable[Any]:
        if request is None:
            request = self.request
        if changes:
            request = request.override(**changes)
        return self.onion.enter(self.index, request)


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
