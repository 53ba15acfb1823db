"""``watch``: see every streamed item of an onion without adding a layer to the stream.

A streaming onion hook (``on_reply``, ``on_reasoning``, ``on_model_call``) written
as an async generator costs one generator step per item and one generator per call,
even when all it does is look. A hook that only observes can be a plain ``def`` that
returns ``watch(next(request), each, end=...)``: ``each(item)`` is called with every
item on its way out, ``end(error)`` once when the stream is over. Consecutive
watching layers are fused: the items cross one step for all of them, and each
watcher is called in layer order (inner first, as generator layers would see them).

What a watcher cannot do, by design: change, drop or add items, or await. Write the
hook as a generator for that (``ctx.emit`` still adds an event to the reply).
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from typing import TYPE_CHECKING, Any, Generic, TypeVar

if TYPE_CHECKING:
    from .hook_shapes import Entry
    from .streaming_onion import StreamOnion

T = TypeVar("T")

Each = Callable[[Any], object]
End = Callable[[BaseException | None], object]


class _Watcher:
    """One layer's ``each`` and ``end``, and whose they are (to name its errors)."""

    __slots__ = ("done", "each", "end", "entry", "onion")

    def __init__(self, each: Each | None, end: End | None) -> None:
        self.each = each
        self.end = end
        self.done = False
        self.onion: StreamOnion | None = None
        self.entry: Entry | None = None

    def failed(self, exc: Exception) -> None:
        if self.onion is not None and self.entry is not None:
            self.onion.failed(self.entry.slot, exc)


class Watched(Generic[T]):
    """A stream and the watchers of the layers that observe it: one step per item
    whatever their number."""

    __slots__ = ("_calls", "_step", "_watchers", "over", "source")

    def __init__(self, source: AsyncIterator[T]) -> None:
        self.source = source
        self._step = source.__anext__
        self._watchers: list[_Watcher] = []
        self._calls: list[Each] = []
        """The watchers with an ``each``, inner first: what every item meets."""
        self.over = False
        """Every watcher has ended."""

    def add(self, each: Each | None, end: End | None) -> None:
        watcher = _Watcher(each, end)
        self._watchers.append(watcher)
        if each is not None:
            self._calls.append(each)

    def claim(self, onion: StreamOnion, entry: Entry) -> None:
        """The onion names the layer that just returned this stream: its watcher's
        errors are that middleware's."""
        watcher = self._watchers[-1]
        if watcher.onion is None:
            watcher.onion, watcher.entry = onion, entry

    def __aiter__(self) -> Watched[T]:
        return self

    async def __anext__(self) -> T:
        try:
            item = await self._step()
        except BaseException as exc:
            self._end(None if type(exc) is StopAsyncIteration else exc)
            raise
        each = None
        try:
            for each in self._calls:
                each(item)
        except Exception as exc:
            self._failed(each, exc)
            raise
        return item

    def _failed(self, each: Each | None, exc: Exception) -> None:
        """A watcher raised: it and the layers outside it end with its error, as a
        generator layer that raised would end; the ones inside end when closed."""
        at = next(i for i, w in enumerate(self._watchers) if w.each is each)
        self._watchers[at].failed(exc)
        self._end(exc, self._watchers[at:])

    def _end(self, error: BaseException | None, watchers: list[_Watcher] | None = None) -> None:
        """Each watcher's ``end``, once, inner first; one that raises passes its error
        to those outside it, and it is what leaves the stream."""
        raised: Exception | None = None
        for watcher in self._watchers if watchers is None else watchers:
            if watcher.done:
                continue
            watcher.done = True
            if watcher.end is None:
                continue
            try:
                watcher.end(error)
            except Exception as exc:
                watcher.failed(exc)
                error = raised = exc
        if watchers is None:
            self.over = True
        if raised is not None:
            raise raised

    async def aclose(self) -> None:
        """Close the stream; watchers not yet ended end with ``GeneratorExit`` (an
        outer layer stopped pulling), as a generator layer would."""
        if self.over:
            return
        try:
            close = getattr(self.source, "aclose", None)
            if close is not None:
                await close()
        finally:
            self._end(GeneratorExit())


def watch(
    items: AsyncIterator[T],
    each: Callable[[T], object] | None = None,
    *,
    end: Callable[[BaseException | None], object] | None = None,
) -> AsyncIterator[T]:
    """``items`` as they are, with ``each(item)`` called for every item on its way
    out and ``end(error)`` once when the stream is over: ``error`` is None when it
    finished, else what ended it (the model's or an inner layer's exception,
    ``ReplyCancelled`` on a cancel, ``GeneratorExit`` when an outer layer stopped
    pulling). For a streaming onion hook written as a plain ``def``::

        def on_model_call(self, ctx, request, next):
            return watch(next(request), self.count, end=self.report)

    Several watching layers in a row share one step per item. An exception from
    ``each`` or ``end`` is the middleware's error, as if its generator had raised."""
    watched = items if isinstance(items, Watched) and not items.over else Watched(items)
    watcher = _Watcher(each, end)  # (add(), inline: this runs once per layer per call)
    watched._watchers.append(watcher)
    if each is not None:
        watched._calls.append(each)
    return watched
