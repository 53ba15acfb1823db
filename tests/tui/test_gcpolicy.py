"""The GC policy: the young generations are collected while a reply streams (what
was there before is frozen, so they only look at the reply's objects); no full
collection until the first idle moment after the reply (never while typing),
unless memory grows past a budget meanwhile."""

from __future__ import annotations

import asyncio
import gc
import weakref
from collections.abc import Iterator

import pytest

from shell.tui import gcpolicy
from shell.tui.gcpolicy import GcPolicy


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def policy() -> Iterator[tuple[GcPolicy, Clock]]:
    was_enabled = gc.isenabled()
    clock = Clock()
    p = GcPolicy(clock)
    yield p, clock
    p.shut_down()
    gc.unfreeze()
    if was_enabled:
        gc.enable()


class Node:
    def __init__(self) -> None:
        self.me = self  # a cycle: only the collector can free it


def test_a_streaming_replys_garbage_is_collected_as_it_goes(policy: tuple[GcPolicy, Clock]) -> None:
    """A long reply drops widgets all the time (parked chunks): they must not wait
    for the reply's end (1.6 GB for a 1 MB reply when collection was off)."""
    p, _ = policy
    before = Node()
    p.reply_started()
    assert gc.isenabled()
    assert gc.get_freeze_count() > 0  # what existed is frozen: the reply's collections skip it
    dropped = Node()
    gone = weakref.ref(dropped)
    del dropped
    churn = [[Node() for _ in range(100)] for _ in range(200)]  # allocations trigger collections
    del churn
    assert gone() is None  # collected during the reply, by the automatic collector
    assert before.me is before


def test_the_full_collection_waits_for_the_reply_and_for_idle(policy: tuple[GcPolicy, Clock]) -> None:
    p, clock = policy
    p.reply_started()
    clock.now += 5
    assert not p.tick()  # streaming: never
    p.reply_finished()
    assert p.pending
    clock.now += gcpolicy.IDLE_S / 2
    assert not p.tick()
    p.activity()  # the user types
    clock.now += gcpolicy.IDLE_S * 0.9
    assert not p.tick()
    clock.now += gcpolicy.IDLE_S * 0.2
    assert p.tick()  # idle long enough: collected
    assert not p.pending and gc.isenabled()
    assert not p.tick()  # nothing due


def test_a_collection_is_never_put_off_for_long(policy: tuple[GcPolicy, Clock]) -> None:
    p, clock = policy
    p.reply_started()
    p.reply_finished()
    for _ in range(int(gcpolicy.MAX_DEFER_S / 0.5) + 1):
        clock.now += 0.5
        p.activity()  # typing without a pause
        if p.tick():
            break
    assert not p.pending and gc.isenabled()


def test_a_new_reply_before_the_idle_moment_puts_the_full_collection_off(
    policy: tuple[GcPolicy, Clock],
) -> None:
    p, clock = policy
    p.reply_started()
    p.reply_finished()
    p.reply_started()  # a queued message starts at once
    clock.now += gcpolicy.MAX_DEFER_S * 2
    assert not p.tick() and p.pending
    p.reply_finished()
    clock.now += gcpolicy.IDLE_S * 2
    assert p.tick() and gc.isenabled()


def test_no_automatic_full_collection_from_a_reply_to_the_idle_moment_after_it(
    policy: tuple[GcPolicy, Clock],
) -> None:
    p, clock = policy
    before = gc.get_threshold()
    p.reply_started()
    assert gc.get_threshold() == (before[0], before[1], gcpolicy.REPLY_FULL_EVERY)
    p.reply_finished()  # the first automatic one would come at once, mid-frame
    assert gc.get_threshold() == (before[0], before[1], gcpolicy.REPLY_FULL_EVERY)
    clock.now += gcpolicy.IDLE_S * 2
    assert p.tick()
    assert gc.get_threshold() == before  # as before, once collected at the idle moment
    p.reply_started()
    p.shut_down()  # leaving mid-reply leaves the collector as it found it
    assert gc.get_threshold() == before


def test_memory_growing_past_the_budget_during_a_reply_is_collected_then() -> None:
    """Full collections are off while a reply streams, but memory stays bounded:
    something that piles up cycles gets a full collection once the peak RSS has
    grown by the budget."""
    clock, rss = Clock(), [100.0]
    p = GcPolicy(clock, rss_mb=lambda: rss[0])
    try:
        p.reply_started()
        old = Node()  # a cycle made during the reply, old enough to need a full collection
        for _ in range(3):
            gc.collect(1)  # ... survives young collections (promoted to the oldest generation)
        gone = weakref.ref(old)
        del old
        gc.collect(1)
        assert gone() is not None  # only a full collection can free it
        rss[0] += gcpolicy.REPLY_RSS_BUDGET_MB / 2
        assert not p.tick() and gone() is not None  # within the budget: no pause
        rss[0] += gcpolicy.REPLY_RSS_BUDGET_MB
        assert p.tick() and gone() is None and p.budget_collections == 1
        assert not p.tick()  # measured from there on
    finally:
        p.shut_down()
        gc.unfreeze()


@pytest.mark.anyio
async def test_while_a_reply_streams_the_middle_generation_is_collected_between_frames() -> None:
    """A frame's layout or render allocates enough to cross the middle generation's
    threshold; collected there, it added 1.5-2.7 ms to the longest loop steps of a
    flood (issue 21). While a reply streams in the loop, the garbage that made it out
    of the youngest generation waits for a loop step of the policy's own, a frame
    away at most; once the reply has ended, Python collects it as before."""
    p = GcPolicy(Clock())
    before = gc.get_threshold()
    was_enabled = gc.isenabled()
    gc.enable()  # (as the app runs: a test before may have left it off)
    try:
        p.reply_started()
        old = Node()
        gc.collect(0)  # it outlives a young collection: in the middle generation now
        gone = weakref.ref(old)
        del old
        frame = [Node() for _ in range(3 * before[0] * before[1])]  # one long step's allocations
        assert gone() is not None  # not collected in the middle of that step
        del frame
        for _ in range(20):
            await asyncio.sleep(gcpolicy.MIDDLE_CHECK_S)
            if gone() is None:
                break
        assert gone() is None  # collected in a step of its own, soon after
        p.reply_finished()
        assert gc.get_threshold()[:2] == before[:2]  # the reply over: automatic again
    finally:
        p.shut_down()
        gc.unfreeze()
        if not was_enabled:
            gc.disable()
    assert gc.get_threshold() == before
