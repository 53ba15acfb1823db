"""``agent.cancel()`` at random points never leaves a broken history or a hung reply.

Each trial runs a reply with tool calls (async tools that sleep, a sync tool in a
thread, parallel or sequential execution, sometimes an approval that takes its
time) and cancels it after a random delay or at a random event. Every reply must
end within 500 ms of the cancel, the history must stay valid, and the next reply
must work. The seed makes a failure reproducible: it is in the assertion message.
"""

from __future__ import annotations

import random
import time
from typing import Any

import anyio
import pytest

from middleware.human_in_the_loop import HumanInTheLoop
from shell.agent import Agent, AssistantMessage, TextBlock, ToolCallBlock
from shell.core.approvals import ApprovalDecision
from shell.core.events import ReplyEnd
from shell.core.tools import tool
from shell.providers.scripted import ScriptedModel
from tests.helpers import history_is_valid

TRIALS_PER_MODE = 110
LATENCY_LIMIT = 0.5
worst: dict[str, float] = {}


@tool(read_only=True)
async def nap(ms: int) -> str:
    """Sleep ``ms`` milliseconds (async)."""
    await anyio.sleep(ms / 1000)
    return f"napped {ms}"


@tool(read_only=True)
def block(ms: int) -> str:
    """Sleep ``ms`` milliseconds in a thread (a sync tool)."""
    time.sleep(ms / 1000)
    return f"blocked {ms}"


@tool
async def write(text: str) -> str:
    """A tool that asks for approval (not read-only)."""
    await anyio.sleep(0.002)
    return "written"


def script(rng: random.Random) -> list[Any]:
    turns: list[Any] = []
    for round_ in range(rng.randint(1, 3)):
        calls = []
        for n in range(rng.randint(1, 3)):
            name = rng.choice(["nap", "nap", "block", "write"])
            args = {"text": "x" * rng.randint(1, 30)} if name == "write" else {"ms": rng.randint(0, 25)}
            calls.append(ToolCallBlock(f"c{round_}_{n}", name, args))
        text = TextBlock("thinking about it " * rng.randint(0, 3))
        turns.append(AssistantMessage((text, *calls) if text.text else tuple(calls)))
    turns.append("final answer " * rng.randint(1, 5))
    return turns


async def slow_approver(request: Any) -> ApprovalDecision:
    await anyio.sleep(random.random() * 0.02)
    return ApprovalDecision("approve")


async def one_trial(seed: int, mode: str) -> float:
    rng = random.Random(seed)
    delay = rng.choice([0.0, 0.0005, 0.001, 0.002])
    model = ScriptedModel(script(rng), delay=delay, chunk_size=rng.randint(1, 8))
    middleware = [HumanInTheLoop()] if rng.random() < 0.3 else []
    agent = Agent(
        model, tools=[nap, block, write], middleware=middleware, tool_execution=mode,  # type: ignore[arg-type]
        ask=slow_approver,
    )
    by_event = rng.random() < 0.5
    cancel_at_event = rng.randint(0, 60)
    cancel_after = rng.random() * 0.06
    cancelled_at: float | None = None
    end: ReplyEnd | None = None
    ended_at = 0.0

    async def consume() -> None:
        nonlocal cancelled_at, end, ended_at
        count = 0
        async for event in agent.reply("go"):
            count += 1
            if isinstance(event, ReplyEnd):
                end, ended_at = event, time.perf_counter()
            if by_event and count == cancel_at_event and cancelled_at is None:
                cancelled_at = time.perf_counter()
                agent.cancel()

    with anyio.fail_after(5):
        async with anyio.create_task_group() as tg:
            tg.start_soon(consume)
            if not by_event:
                await anyio.sleep(cancel_after)
                if end is None:
                    cancelled_at = time.perf_counter()
                    agent.cancel()
    context = f"seed={seed} mode={mode}"
    assert end is not None, context
    assert history_is_valid(agent.messages), f"{context}: {agent.messages}"
    latency = 0.0
    if cancelled_at is not None and ended_at >= cancelled_at:
        latency = ended_at - cancelled_at
        assert latency < LATENCY_LIMIT, f"{context}: the reply ended {latency * 1000:.0f} ms after cancel"
        assert end.stop_reason in ("cancelled", "end_turn"), context
    # the next reply works on the same agent
    agent.model = ScriptedModel(["next one works"])
    with anyio.fail_after(5):
        events = [e async for e in agent.reply("again")]
    last = events[-1]
    assert isinstance(last, ReplyEnd) and last.stop_reason == "end_turn", f"{context}: {last}"
    assert last.message is not None and last.message.text == "next one works"
    assert history_is_valid(agent.messages), context
    return latency


@pytest.mark.anyio
@pytest.mark.parametrize("mode", ["parallel", "sequential"])
async def test_cancel_at_random_points(mode: str) -> None:
    base = 1000 * (mode == "parallel")
    latencies = [await one_trial(base + seed, mode) for seed in range(TRIALS_PER_MODE)]
    worst[mode] = max(latencies)
    print(f"\n{mode}: {TRIALS_PER_MODE} trials, worst cancel latency {worst[mode] * 1000:.1f} ms")
