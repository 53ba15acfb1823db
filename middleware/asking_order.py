"""The order in which a batch's parallel calls ask (:class:`~.human_in_the_loop.HumanInTheLoop`):
the model's, whatever order their permission checks end in."""

from __future__ import annotations

import heapq

import anyio

from shell.core.approvals import BatchPlace

from .context import ToolCallContext

ORDER_KEY = "asking_order"
"""``ctx.reply_state``: the current batch's :class:`AskingOrder`."""
ORDER_WAIT = 0.5
"""Seconds a question waits, at most, for the calls before it in its batch to ask theirs."""


class AskingOrder:
    """The questions of a batch's parallel calls reach the dialog in the model's order.
    Each call's check runs in a thread of its own (:func:`.human_in_the_loop.checked`), so
    the one that ended first asked first: "call 2 of 3" came before call 1, and its "reject
    all 1 after this" left call 1 waiting behind it. A call asks once every call before it
    has asked or needs no question: ``ORDER_WAIT`` at most for one not at the gate yet (one
    never reached must not hold the rest), and for one at the gate as long as its check runs
    (bounded by ``CHECK_SECONDS``): a slow check, the one the call's span says it is
    checking, keeps its place in the dialog's order."""

    __slots__ = ("frontier", "key", "moved", "reached", "reached_heap", "taken")

    def __init__(self, key: str) -> None:
        self.key = key
        self.taken: set[int] = set()
        self.frontier = 0
        """Every call before this index has asked or needs no question."""
        self.moved = anyio.Event()
        self.reached: set[int] = set()
        """Calls at the gate that have not asked yet (their checks run)."""
        self.reached_heap: list[int] = []
        """The same, lowest first (an entry no longer in ``reached`` is dropped when met)."""

    def reach(self, index: int) -> None:
        self.reached.add(index)
        heapq.heappush(self.reached_heap, index)

    def take(self, index: int) -> None:
        was_reached = index in self.reached
        self.reached.discard(index)
        self.taken.add(index)
        if index == self.frontier:
            while self.frontier in self.taken:
                self.taken.discard(self.frontier)
                self.frontier += 1
        elif not was_reached:
            return
        self.moved.set()
        self.moved = anyio.Event()

    def _reached_before(self, index: int) -> bool:
        heap = self.reached_heap
        while heap and heap[0] not in self.reached:
            heapq.heappop(heap)
        return bool(heap) and heap[0] < index

    async def wait_for(self, index: int) -> None:
        with anyio.move_on_after(ORDER_WAIT):
            while self.frontier < index:
                await self.moved.wait()
        while self.frontier < index and self._reached_before(index):
            await self.moved.wait()


def asking_order(ctx: ToolCallContext, place: BatchPlace) -> AskingOrder:
    order = ctx.reply_state.get(ORDER_KEY)
    if not isinstance(order, AskingOrder) or order.key != place.key:
        order = ctx.reply_state[ORDER_KEY] = AskingOrder(place.key)
    return order
