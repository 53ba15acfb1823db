"""RateLimit: the minimum interval between model calls."""

from __future__ import annotations

import time

import pytest

from middleware.rate_limit import RateLimit
from shell.agent import AssistantMessage, ToolCallBlock, tool
from shell.agent.loop import Agent
from shell.providers.scripted import ScriptedModel

pytestmark = pytest.mark.anyio


class FakeTime:
    """A clock whose sleep advances it."""

    def __init__(self) -> None:
        self.now = 0.0
        self.sleeps: list[float] = []

    def clock(self) -> float:
        return self.now

    async def sleep(self, seconds: float) -> None:
        self.sleeps.append(seconds)
        self.now += seconds


@tool(read_only=True)
def ping() -> str:
    """Answer pong."""
    return "pong"


def pings(n: int) -> list[str | AssistantMessage]:
    return [*(AssistantMessage((ToolCallBlock(f"c{i}", "ping", {}),)) for i in range(n)), "done"]


async def test_calls_in_a_burst_are_spaced() -> None:
    t = FakeTime()
    mw = RateLimit(2.0, clock=t.clock, sleep=t.sleep)
    agent = Agent(ScriptedModel(pings(2)), tools=[ping], middleware=[mw])
    [e async for e in agent.reply("go")]
    assert t.sleeps == [2.0, 2.0]  # three calls: the first runs at once
    assert mw.waited_s == 4.0


async def test_no_wait_when_enough_time_passed() -> None:
    t = FakeTime()
    mw = RateLimit(1.0, clock=t.clock, sleep=t.sleep)
    agent = Agent(ScriptedModel(["a", "b"]), middleware=[mw])
    [e async for e in agent.reply("one")]
    t.now += 0.4
    [e async for e in agent.reply("two")]
    t.now += 5.0
    assert t.sleeps == [pytest.approx(0.6)]
    assert mw.reserve() == 0.0


def test_concurrent_callers_queue_in_order() -> None:
    t = FakeTime()
    mw = RateLimit(1.5, clock=t.clock)
    assert [mw.reserve() for _ in range(3)] == [0.0, 1.5, 3.0]


async def test_really_sleeps_by_default() -> None:
    agent = Agent(ScriptedModel(pings(1)), tools=[ping], middleware=[RateLimit(0.05)])
    start = time.monotonic()
    [e async for e in agent.reply("go")]
    assert time.monotonic() - start >= 0.045


def test_negative_interval_rejected() -> None:
    with pytest.raises(ValueError):
        RateLimit(-1)
