"""How a turn's calls are grouped into steps: mutating calls alone and in order,
read-only runs together; and the grouping costs one look per call (a hostile model
can send thousands of calls in one turn)."""

from __future__ import annotations

import anyio
import pytest

from shell.agent import Agent, tool
from shell.agent.batch import steps
from shell.core.events import ReplyEnd, ToolExecutionEnd
from shell.core.messages import ToolCallBlock
from shell.providers.scripted import ScriptedModel
from tests.helpers import calls


def named_calls(names: str) -> list[ToolCallBlock]:
    return [ToolCallBlock(f"c{i}", name, {}) for i, name in enumerate(names.split())]


def grouped(names: str, parallel: bool = True) -> list[list[str]]:
    found = steps(named_calls(names), lambda c: c.name == "read", parallel)
    return [[c.name for c in step] for step in found]


def test_mutating_calls_stand_alone_and_read_only_runs_group() -> None:
    assert grouped("read read write read read write write read") == [
        ["read", "read"], ["write"], ["read", "read"], ["write"], ["write"], ["read"]]
    assert grouped("write read") == [["write"], ["read"]]
    assert grouped("read read", parallel=False) == [["read"], ["read"]]
    assert grouped("") == []


def test_grouping_looks_at_each_call_once() -> None:
    looked = 0

    def read_only(call: ToolCallBlock) -> bool:
        nonlocal looked
        looked += 1
        return True

    many = named_calls("read " * 5000)
    assert [len(step) for step in steps(many, read_only, True)] == [5000]
    assert looked == 5000


@pytest.mark.anyio
async def test_a_call_that_ends_while_the_consumer_is_busy_does_not_hang_the_reply() -> None:
    """A headless run with a dozen mixed calls hung for good, once in 30 runs: the last
    read-only call of a step ended while the consumer held an event, so the loop went
    to wait with that call's end still queued, and the batch waited for the loop to
    take it before the next (mutating) step. Here the second call ends exactly then."""
    release, returned = anyio.Event(), anyio.Event()

    @tool(read_only=True)
    async def first() -> str:
        """Ends at once."""
        return "first"

    @tool(read_only=True)
    async def second() -> str:
        """Ends when the consumer, busy with the first call's end, lets it."""
        await release.wait()
        returned.set()
        return "second"

    @tool
    def change() -> str:
        """A mutating call: its own step, after the read-only ones."""
        return "changed"

    turn = calls(("first", {}), ("second", {}), ("change", {}))
    agent = Agent(ScriptedModel([turn, "done"]), tools=[first, second, change])
    events: list[object] = []
    with anyio.fail_after(10):  # the bug hung here for good
        async for event in agent.reply("go"):
            events.append(event)
            if isinstance(event, ToolExecutionEnd) and event.call_id == "call_0_first":
                release.set()
                await returned.wait()  # the second call ends while this event is held
    ended = [e.call_id for e in events if isinstance(e, ToolExecutionEnd)]
    assert ended == ["call_0_first", "call_1_second", "call_2_change"]
    assert isinstance(events[-1], ReplyEnd) and events[-1].stop_reason == "end_turn"
