"""Checkpoints of the text in flight never take over the event loop (F9).

A checkpoint writes the whole text in flight. After ten seconds of a flooding server
that was ~130 ms of CPU, due again as soon as it ended, so the TUI did little else
and Esc waited behind one checkpoint after another. The clocks here are fake ones
that a write moves on, so "took long" needs no slow machine.
"""

from __future__ import annotations

import threading
from typing import Any

import pytest

from shell.core.events import TextBlockDelta, TextBlockEnd, TextBlockStart
from shell.sessions import inflight
from shell.sessions.inflight import SHARE, InFlight
from shell.sessions.redact import NO_REDACTION


class Clock:
    """The wall clock and the CPU clock, moved by hand (a write moves both)."""

    def __init__(self) -> None:
        self.now = 100.0
        self.cpu = 1.0

    def monotonic(self) -> float:
        return self.now

    def thread_time(self) -> float:
        return self.cpu


class File:
    """A session file whose writes take ``cost`` seconds of the fake clock."""

    started = True

    def __init__(self, clock: Clock) -> None:
        self.clock = clock
        self.cost = 0.0
        self.records: list[dict[str, Any]] = []

    def write(self, record: dict[str, Any]) -> None:
        self.records.append(record)
        self.clock.now += self.cost
        self.clock.cpu += self.cost


@pytest.fixture
def clock(monkeypatch: pytest.MonkeyPatch) -> Clock:
    fake = Clock()
    monkeypatch.setattr(inflight.time, "monotonic", fake.monotonic)
    monkeypatch.setattr(inflight.time, "thread_time", fake.thread_time)
    return fake


def streaming(file: File, interval: float) -> InFlight:
    flight = InFlight(file, NO_REDACTION, threading.RLock(), interval)  # type: ignore[arg-type]
    flight.reply_start("r1")
    flight.model_call()
    flight.block(TextBlockStart("b1"))
    return flight


def checkpoints_over(flight: InFlight, file: File, clock: Clock, seconds: float, block: str = "b1") -> int:
    """A delta every 10 ms for ``seconds``: how many checkpoints were written."""
    before = len(file.records)
    end = clock.now + seconds
    step = 0.01
    while clock.now < end:
        flight.block(TextBlockDelta(block, "flood flood "))
        clock.now += step
    flight.cancel_timer()
    return len(file.records) - before


def test_quick_checkpoints_keep_their_interval(clock: Clock) -> None:
    file = File(clock)
    flight = streaming(file, interval=0.5)
    file.cost = 0.001
    assert checkpoints_over(flight, file, clock, 10.0) >= 18  # one every half second


def test_a_slow_checkpoint_spaces_out_the_next_ones(clock: Clock) -> None:
    file = File(clock)
    flight = streaming(file, interval=0.5)
    file.cost = 0.5  # as long as the interval: before this, one ran at every delta
    written = checkpoints_over(flight, file, clock, 20.0)
    spent = written * file.cost
    assert written >= 1 and spent <= 20.0 * SHARE * 1.5  # a twentieth of the time, not all of it
    file.cost = 0.001  # the text is saved all the same: a new model call starts afresh
    flight.model_call()
    flight.block(TextBlockStart("b2"))
    assert checkpoints_over(flight, file, clock, 5.0, block="b2") >= 8


def test_a_finished_block_is_saved_at_once_unless_its_checkpoints_are_costly(clock: Clock) -> None:
    file = File(clock)
    flight = streaming(file, interval=0.5)
    file.cost = 0.001
    checkpoints_over(flight, file, clock, 0.2)
    before = len(file.records)
    flight.block(TextBlockEnd("b1"))
    assert len(file.records) == before + 1  # the finished block, now
    flight.model_call()
    flight.block(TextBlockStart("b2"))
    file.cost = 0.5
    checkpoints_over(flight, file, clock, 1.0, block="b2")  # one costly checkpoint
    before = len(file.records)
    flight.block(TextBlockEnd("b2"))
    flight.cancel_timer()
    assert len(file.records) == before  # it waits for its turn (the message may land first)
