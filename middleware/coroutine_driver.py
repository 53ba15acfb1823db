"""Driving a coroutine layer of a streaming onion by hand, in the caller's task.

A coroutine layer (``return await next(request)``) still streams: while it awaits
``next(request)``, each item the inner layers produce is passed straight out. The
coroutine is sent values by hand (:func:`bridged`), so its ``await`` suspends it item
by item with no task and no queue: an item on its way out is yielded to us as a
:class:`Forward`; anything else it yields (a future, a trio trap) is handed to the
event loop through :class:`Pass`, and the answer sent back in.
"""

from __future__ import annotations

import threading
from collections.abc import AsyncIterator, Generator
from typing import TYPE_CHECKING, Any

from .onion_answers import answer_items

if TYPE_CHECKING:
    from .context import ReplyRun


class Forward:
    """An item on its way out of a coroutine layer's ``await next(...)``."""

    __slots__ = ("item",)

    def __init__(self, item: Any) -> None:
        self.item = item


class Pass:
    """Hands what a driven coroutine yielded (a future, a trio trap) to the event
    loop, and the loop's answer back."""

    __slots__ = ("value",)

    def __init__(self, value: Any) -> None:
        self.value = value

    def __await__(self) -> Generator[Any, Any, Any]:
        return (yield self.value)


class _Driving(threading.local):
    """``coro``: the coroutine layer being stepped right now in this thread; an awaited
    :class:`~middleware.onion_items.Items` forwards its items only to that one (an
    ``await next()`` from anywhere else just collects the result).

    The default is a class attribute so that every thread reads None until it steps a
    layer: the TUI and the line mode import this module in the worker thread that
    builds the runtime and reply on the event loop's thread, where an attribute set
    once at import did not exist (finding R5)."""

    coro: Any = None


driving = _Driving()


class Bridge:
    """A coroutine layer while it runs: what its ``await next()`` calls returned."""

    __slots__ = ("coro", "forwarded", "results")

    def __init__(self) -> None:
        self.coro: Any = None
        self.forwarded = False
        self.results: list[Any] = []


async def bridged(hook: str, run: ReplyRun, bridge: Bridge) -> AsyncIterator[Any]:
    """Drive a coroutine layer by hand: what its ``await next()`` forwards streams out
    item by item, anything else it awaits goes to the event loop (and a cancellation
    back in where it waits); its own answer, if it gave one, streams at the end."""
    coro = bridge.coro
    local = driving
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
            if type(y) is Forward:
                yield y.item
            else:
                try:
                    send = await Pass(y)
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
            f"{hook} returned a different answer after next() had already streamed one; "
            "change the answer in after_model_response, or write the hook as an async generator"
        )
    for item in answer_items(hook, run, value):
        yield item
