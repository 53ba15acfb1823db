"""The GC policy: no automatic collection while a reply streams; the reply's
garbage is collected at the first idle moment after it, never while typing."""

from __future__ import annotations

import gc
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


def test_no_automatic_collection_while_streaming_nor_before_idle(policy: tuple[GcPolicy, Clock]) -> None:
    p, clock = policy
    p.reply_started()
    assert not gc.isenabled()
    clock.now += 5
    assert not p.tick()  # streaming: never
    p.reply_finished()
    assert p.pending and not gc.isenabled()
    clock.now += gcpolicy.IDLE_S / 2
    assert not p.tick()
    p.activity()  # the user types
    clock.now += gcpolicy.IDLE_S * 0.9
    assert not p.tick()
    clock.now += gcpolicy.IDLE_S * 0.2
    assert p.tick()  # idle long enough: collected, automatic GC back on
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


def test_a_new_reply_before_the_idle_moment_keeps_collection_off(policy: tuple[GcPolicy, Clock]) -> None:
    p, clock = policy
    p.reply_started()
    p.reply_finished()
    p.reply_started()  # a queued message starts at once
    clock.now += gcpolicy.MAX_DEFER_S * 2
    assert not p.tick() and not gc.isenabled()
    p.reply_finished()
    clock.now += gcpolicy.IDLE_S * 2
    assert p.tick() and gc.isenabled()
