"""What a middleware costs: one agent round with 0, 1, 10 and 50 no-op middleware.

The round: a scripted model streams ~50 text deltas and one tool call, the tool runs,
the model answers once more. Each no-op middleware implements all sixteen hooks
(pass-through, the onions as async generators); "10 empty" are middleware that
implement none; "10 no-op, timed" is the same stack once someone has read its stats
(the side panel, /middleware, Tracing), which times every streamed item too. The figure that
matters is the extra cost per middleware per hook invocation (per chunk or event for
the streaming onions), against a bare ``await`` of a coroutine measured in the same
run. Also checks that nothing hops to a thread.

Times are this process's CPU time (``time.process_time``), so other work on a
shared machine does not count.

    python benchmarks/hook_overhead.py [--replies 300]
"""

from __future__ import annotations

import argparse
import gc
import statistics
import sys
import time
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import anyio
import anyio.to_thread

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from middleware import (
    AfterToolCallResult,
    BeforeToolCallResult,
    CompressRequest,
    HookContext,
    Middleware,
    ReasoningRequest,
    ReplyRequest,
    ToolCallContext,
    ToolRequest,
    TurnAction,
)
from shell.agent import (
    Agent,
    AssistantMessage,
    Message,
    ModelRequest,
    TextBlock,
    ToolCallBlock,
    ToolResult,
    tool,
)
from shell.core.events import Event
from shell.core.model import ModelChunk
from shell.providers.scripted import ScriptedModel

COUNTS: dict[str, int] = {}
CLOCK = time.process_time
"""CPU time of this process: on a shared machine, time spent descheduled is not ours."""


def _count(hook: str, n: int = 1) -> None:
    COUNTS[hook] = COUNTS.get(hook, 0) + n


class NoOp(Middleware):
    """Implements every hook and passes everything through."""

    counting = False

    def __init__(self, i: int) -> None:
        self.name = f"noop{i}"

    async def on_reply(self, ctx: HookContext, request: ReplyRequest, next: Any) -> AsyncIterator[Event]:
        async for event in next(request):
            if self.counting:
                _count("on_reply item")
            yield event

    async def transform_system_prompt(self, ctx: HookContext, prompt: str) -> str:
        if self.counting:
            _count("transform_system_prompt")
        return prompt

    def list_tools(self) -> list[Any]:
        if self.counting:
            _count("list_tools")
        return []

    async def on_compress_context(
        self, ctx: HookContext, request: CompressRequest, next: Any
    ) -> list[Message]:
        if self.counting:
            _count("on_compress_context")
        result: list[Message] = await next(request)
        return result

    async def transform_context(self, ctx: HookContext, messages: list[Message]) -> list[Message]:
        if self.counting:
            _count("transform_context")
        return messages

    async def on_reasoning(
        self, ctx: HookContext, request: ReasoningRequest, next: Any
    ) -> AsyncIterator[Event]:
        async for event in next(request):
            if self.counting:
                _count("on_reasoning item")
            yield event

    async def convert_to_llm(self, ctx: HookContext, messages: list[Message]) -> list[Message]:
        if self.counting:
            _count("convert_to_llm")
        return messages

    async def on_model_call(
        self, ctx: HookContext, request: ModelRequest, next: Any
    ) -> AsyncIterator[ModelChunk]:
        async for chunk in next(request):
            if self.counting:
                _count("on_model_call item")
            yield chunk

    async def after_model_response(self, ctx: HookContext, response: AssistantMessage) -> TurnAction | None:
        if self.counting:
            _count("after_model_response")
        return None

    async def before_tool_call(self, ctx: ToolCallContext) -> BeforeToolCallResult | None:
        if self.counting:
            _count("before_tool_call")
        return None

    async def on_acting(self, ctx: ToolCallContext, request: ToolRequest, next: Any) -> ToolResult:
        if self.counting:
            _count("on_acting")
        result: ToolResult = await next(request)
        return result

    async def after_tool_call(self, ctx: ToolCallContext, result: ToolResult) -> AfterToolCallResult | None:
        if self.counting:
            _count("after_tool_call")
        return None

    async def before_tool_batch(self, ctx: HookContext, calls: Any) -> None:
        if self.counting:
            _count("before_tool_batch")
        return None

    async def after_turn(self, ctx: HookContext, results: Any) -> None:
        if self.counting:
            _count("after_turn")
        return None

    async def should_stop_after_turn(self, ctx: HookContext) -> bool:
        if self.counting:
            _count("should_stop_after_turn")
        return False

    async def on_error(self, ctx: HookContext, error: BaseException, source: str) -> None:
        return None


class Empty(Middleware):
    """Implements nothing."""

    def __init__(self, i: int) -> None:
        self.name = f"empty{i}"


@tool(read_only=True)
async def lookup(key: str) -> str:
    """Look a key up."""
    return f"value of {key}"


TEXT = "word " * 50  # ~50 deltas of 5 characters
TURNS = [
    AssistantMessage((TextBlock(TEXT), ToolCallBlock("c1", "lookup", {"key": "k"}))),
    "Done.",
]


def make_agent(middleware: list[Middleware]) -> Agent:
    return Agent(ScriptedModel(TURNS, chunk_size=5, loop=True), tools=[lookup], middleware=middleware)


async def one_reply(agent: Agent) -> None:
    async for _ in agent.reply("go"):
        pass
    agent.messages.clear()


async def time_replies(make: Callable[[], list[Middleware]], replies: int) -> float:
    middleware = make()
    agent = make_agent(middleware)
    if getattr(make, "timed", False):
        agent.middleware.stats(middleware[0].name)  # someone looked: streamed items are timed
    for _ in range(20):
        await one_reply(agent)
    gc.collect()
    gc.disable()
    try:
        start = CLOCK()
        for _ in range(replies):
            await one_reply(agent)
        return (CLOCK() - start) / replies
    finally:
        gc.enable()


async def bare_await_cost(n: int = 200_000) -> float:
    async def noop() -> None:
        return None

    start = CLOCK()
    for _ in range(n):
        await noop()
    return (CLOCK() - start) / n


async def invocations_per_middleware() -> int:
    NoOp.counting = True
    try:
        COUNTS.clear()
        await one_reply(make_agent([NoOp(0)]))
        return sum(COUNTS.values())
    finally:
        NoOp.counting = False


async def main(replies: int, rounds: int) -> None:
    hops = 0
    real_run_sync = anyio.to_thread.run_sync

    async def counting_run_sync(*args: Any, **kwargs: Any) -> Any:
        nonlocal hops
        hops += 1
        return await real_run_sync(*args, **kwargs)

    anyio.to_thread.run_sync = counting_run_sync  # type: ignore[assignment]

    per_mw = await invocations_per_middleware()
    def timed() -> list[Middleware]:
        return [NoOp(i) for i in range(10)]

    timed.timed = True  # type: ignore[attr-defined]
    configs: dict[str, Callable[[], list[Middleware]]] = {
        "0 middleware": list,
        "1 no-op": lambda: [NoOp(0)],
        "10 no-op": lambda: [NoOp(i) for i in range(10)],
        "50 no-op": lambda: [NoOp(i) for i in range(50)],
        "10 empty": lambda: [Empty(i) for i in range(10)],
        "10 no-op, timed": timed,
    }
    samples: dict[str, list[float]] = {k: [] for k in configs}
    for _ in range(rounds):  # interleaved, so drift hits every configuration alike
        for label, make in configs.items():
            samples[label].append(await time_replies(make, replies))
    t = {k: statistics.median(v) for k, v in samples.items()}
    bare = statistics.median([await bare_await_cost() for _ in range(5)])

    print(f"one round = {per_mw} hook invocations per middleware (streamed items counted one by one)")
    print(f"bare await: {bare * 1e6:.3f} us")
    print(f"{'configuration':<16} {'per reply':>12} {'vs 0':>8}")
    for label, value in t.items():
        print(f"{label:<16} {value * 1e6:>9.1f} us {value / t['0 middleware']:>7.3f}x")
    print()
    for n, label in ((1, "1 no-op"), (10, "10 no-op"), (50, "50 no-op"), (10, "10 no-op, timed")):
        extra = (t[label] - t["0 middleware"]) / (n * per_mw)
        print(
            f"{label:<15}: {extra * 1e6:.3f} us per middleware per hook invocation"
            f" = {extra / bare:.1f}x a bare await (target <= 0.3 us)"
        )
    empty = t["10 empty"] / t["0 middleware"] - 1
    print(f"10 empty : {empty * 100:+.1f}% per reply (target < 5%)")
    print(f"thread hops during the run: {hops} (target 0)")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--replies", type=int, default=200, help="replies timed per sample")
    parser.add_argument("--rounds", type=int, default=5, help="interleaved samples per configuration")
    args = parser.parse_args()
    anyio.run(main, args.replies, args.rounds)
