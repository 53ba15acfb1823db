"""The approval dialog's queue: the requests waiting for an answer, and how answers
given at once (approve all, the rest of a batch) reach the calls waiting on them.

Apart from the dialog (:mod:`.approval`) so that the screen stays about what is
shown and which key does what.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass, field

from shell.core.approvals import ApprovalDecision, ApprovalRequest


@dataclass(eq=False)
class PendingApproval:
    request: ApprovalRequest
    future: asyncio.Future[ApprovalDecision] = field(repr=False)


SETTLE_SLICE = 50
"""Approvals answered at once (approve all) are handed to their calls this many per
turn of the event loop: each answer wakes its call, and 1,000 woken together ran as
one ~45 ms turn (a frame and the keys waited behind it)."""


async def settle(items: list[PendingApproval], decision: ApprovalDecision) -> None:
    """Answer ``items`` in order, a slice per turn of the event loop (a call whose
    reply was cancelled meanwhile is no longer waiting)."""
    for i, item in enumerate(items):
        if not item.future.done():
            item.future.set_result(decision)
        if i % SETTLE_SLICE == SETTLE_SLICE - 1:
            await asyncio.sleep(0)


def take_batch_mates(
    queue: list[PendingApproval],
    answered: PendingApproval,
    covered: Callable[[ApprovalRequest], ApprovalDecision | None],
) -> int:
    """Answer, and take out of ``queue``, the requests after ``answered`` in its batch
    that ``covered`` gives a decision for (parallel calls already waiting when the user
    answered for the rest of the batch); returns how many. Requests of another batch
    (another turn, another reply) are never touched."""
    place = answered.request.batch
    if place is None:
        return 0
    mates: list[tuple[PendingApproval, ApprovalDecision]] = []
    for other in queue:
        other_place = other.request.batch
        if other_place is None or other_place.key != place.key or other_place.index <= place.index:
            continue  # another batch, or not after the answered call: "the rest" is what follows
        decision = covered(other.request)
        if decision is not None:
            mates.append((other, decision))
    for other, decision in mates:
        queue.remove(other)
        if not other.future.done():
            other.future.set_result(decision)
    return len(mates)


def approvable_together(queue: list[PendingApproval], shown: PendingApproval | None) -> list[PendingApproval]:
    """What ``A`` approves: the call on screen and the waiting ones whose question is
    routine (the mode asks for every call of that kind). One that asks for a reason of
    its own (a secret file, outside the workspace, what runs later, the network) was
    never on screen: it stays in the queue and is asked."""
    return [i for i in queue
            if i is shown or (i.request.routine and "approve" in i.request.allowed_decisions)]
