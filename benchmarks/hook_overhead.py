"""What a middleware costs: one agent round with 0, 1, 10 and 50 no-op middleware.

The round: a scripted model streams ~50 text deltas and one tool call, the tool runs,
the model answers once more. Each no-op middleware implements all sixteen hooks
(pass-through, the streaming onions as async generators); "watching" middleware are
the same with the three streaming onions written as observers
(``return watch(next(request), self.seen)``: a plain ``def`` called per item, no
generator layer); "10 empty" are middleware that implement none; "10 no-op, timed"
is the same stack once someone has read its stats (the side panel, /middleware,
Tracing), which times every streamed item too. The figure that matters is the extra
cost per middleware per hook invocation (per chunk or event for the streaming
onions), against a bare ``await`` of a coroutine measured in the same run, and
against the floors measured last, with no engine: a chain of bare async generators,
and N bare generator layers nested as the agent nests its three streaming onions, with
and without the one check step ``on_reply`` needs between generator layers (the least
an engine can do, :func:`onion_floor`). Also checks that nothing hops to a thread.

Times are this process's CPU time (``time.process_time``), so other work on a
shared machine does not count. Samples are short (20 replies) and many, interleaved
across configurations; each configuration's figure is its least disturbed (lowest)
sample, since what other processes do to the caches only ever adds; the median is
printed beside it.

``--against DIR`` measures another checkout too (e.g. ``git worktree add /tmp/old
main``), in alternating subprocesses, and prints both side by side: before and after
in one run.

    python benchmarks/hook_overhead.py [--replies 20] [--rounds 25] [--against DIR [--runs 6]]
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import statistics
import subprocess
import sys
import time
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import anyio
import anyio.to_thread

# the checkout whose engine is measured: this one, or the other one of --against
sys.path.insert(0, os.environ.get("HOOK_OVERHEAD_CODE") or str(Path(__file__).resolve().parent.parent))

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

try:
    from middleware import watch
except ImportError:  # an older checkout (--against): no observer form, no "watching" rows
    watch = None

ROOT = Path(__file__).resolve().parent.parent

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


class Watching(NoOp):
    """The same, with the streaming onions as observers: a plain ``def`` per item."""

    def seen(self, item: Any) -> None:
        if self.counting:
            _count("watched item")

    def on_reply(self, ctx: HookContext, request: ReplyRequest, next: Any) -> Any:  # type: ignore[override]
        return watch(next(request), self.seen)

    def on_reasoning(self, ctx: HookContext, request: ReasoningRequest, next: Any) -> Any:  # type: ignore[override]
        return watch(next(request), self.seen)

    def on_model_call(self, ctx: HookContext, request: ModelRequest, next: Any) -> Any:  # type: ignore[override]
        return watch(next(request), self.seen)


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


async def warm_agent(make: Callable[[], list[Middleware]]) -> Agent:
    middleware = make()
    agent = make_agent(middleware)
    if getattr(make, "timed", False):
        agent.middleware.stats(middleware[0].name)  # someone looked: streamed items are timed
    for _ in range(20):
        await one_reply(agent)
    return agent


async def time_replies(agent: Agent, replies: int) -> float:
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


async def generator_chain_cost(depth: int, items: int = 60, reps: int = 300) -> tuple[float, float]:
    """The floor under a generator layer, with no engine at all: a chain of ``depth``
    plain ``async for x in inner: yield x`` generators over ``items`` items. Per layer:
    the cost per call (making and ending the generator) and per item."""

    async def core(n: int) -> AsyncIterator[int]:
        for i in range(n):
            yield i

    async def layer(inner: AsyncIterator[int]) -> AsyncIterator[int]:
        async for x in inner:
            yield x

    async def run(layers: int, n: int) -> float:
        start = CLOCK()
        for _ in range(reps):
            stream: AsyncIterator[int] = core(n)
            for _ in range(layers):
                stream = layer(stream)
            async for _ in stream:
                pass
        return (CLOCK() - start) / reps

    best = {
        (d, n): min([await run(d, n) for _ in range(5)]) for d in (0, depth) for n in (0, items)
    }
    per_call = (best[(depth, 0)] - best[(0, 0)]) / depth
    per_item = ((best[(depth, items)] - best[(0, items)]) - (best[(depth, 0)] - best[(0, 0)])) / depth / items
    return per_call, per_item


class _FloorLayer:
    """A no-op's streaming layer with no engine: a bare async generator, same body."""

    counting = False

    async def on(self, inner: AsyncIterator[int]) -> AsyncIterator[int]:
        async for x in inner:
            if self.counting:
                _count("floor")
            yield x

    async def hook(self, value: int) -> int:
        return value


async def _passing(inner: AsyncIterator[int]) -> AsyncIterator[int]:
    """A frame of the loop's own (or on_reply's check step): items pass as they are."""
    async for x in inner:
        yield x


async def _model(n: int) -> AsyncIterator[int]:
    for i in range(n):
        yield i


def _chain(source: AsyncIterator[int], layers: list[_FloorLayer], checked: bool) -> AsyncIterator[int]:
    for k, layer in enumerate(reversed(layers)):
        source = layer.on(source)
        if checked and k < len(layers) - 1:  # every on_reply layer's output but the outermost's
            source = _passing(source)
    return source


async def _floor_reasoning(chunks: int, layers: list[_FloorLayer]) -> AsyncIterator[int]:
    for layer in layers:  # transform_system_prompt, list_tools, transform_context, convert_to_llm
        for _ in range(4):
            await layer.hook(0)
    async for chunk in _chain(_model(chunks), layers, False):
        yield chunk
    yield 0  # the block's end
    yield 0  # the call's end


async def _floor_loop(layers: list[_FloorLayer]) -> AsyncIterator[int]:
    yield 0  # ReplyStart
    for chunks, hooks in ((55, 7), (4, 3)):  # the tool turn, the answer
        for layer in layers:
            await layer.hook(0)  # on_compress_context
        async for event in _passing(_chain(_floor_reasoning(chunks, layers), layers, False)):
            yield event
        for layer in layers:  # after_model_response, the tool's hooks, after_turn, should_stop
            for _ in range(hooks):
                await layer.hook(0)
        yield 0  # an event of the loop's own (ToolExecutionEnd, ...)
    yield 0  # ReplyEnd


async def _floor_reply(layers: list[_FloorLayer], checked: bool, reps: int, samples: int) -> float:
    best = float("inf")
    for _ in range(samples):
        gc.collect()
        gc.disable()
        try:
            start = CLOCK()
            for _ in range(reps):
                async for _ in _passing(_passing(_chain(_floor_loop(layers), layers, checked))):
                    pass
            best = min(best, (CLOCK() - start) / reps)
        finally:
            gc.enable()
    return best


async def onion_floor(depth: int, reps: int = 20, samples: int = 7) -> tuple[float, float, float]:
    """The floor under ``depth`` generator layers in a round, with no engine: the
    agent's three streaming onions nested as they are (``on_reply`` around the loop,
    which runs ``on_reasoning`` around ``on_model_call`` twice), each layer a bare async
    generator with the no-op's body, the loop's own frames as pass-through generators,
    the items of one round (59 chunks, ~64 reasoning events, ~68 reply events) and the
    one-value hooks a no-op sees as bare awaits. Per layer per round: (bare, with the
    check step ``on_reply`` needs, the round with no layer). The check step, one more
    generator per ``on_reply`` layer but the outermost (whose ends the consumer checks),
    is the least an engine can add: when an async generator ends, the one iterating it
    gets ``StopAsyncIteration`` with no code in between, so a layer outside one that
    returned early can only be given its ``ReplyEnd`` by a step of Python code on the
    way of every item."""
    layers = [_FloorLayer() for _ in range(depth)]
    await _floor_reply(layers, True, 2, 1)  # warm: the first rounds run colder
    none = await _floor_reply([], False, reps, samples)
    bare = await _floor_reply(layers, False, reps, samples)
    checked = await _floor_reply(layers, True, reps, samples)
    return (bare - none) / depth, (checked - none) / depth, none


async def invocations_per_middleware() -> int:
    NoOp.counting = True
    try:
        COUNTS.clear()
        await one_reply(make_agent([NoOp(0)]))
        return sum(COUNTS.values())
    finally:
        NoOp.counting = False


def configurations() -> dict[str, Callable[[], list[Middleware]]]:
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
    if watch is not None:
        configs["1 watching"] = lambda: [Watching(0)]
        configs["10 watching"] = lambda: [Watching(i) for i in range(10)]
        configs["50 watching"] = lambda: [Watching(i) for i in range(50)]
    return configs


PER_INVOCATION = {
    "1 no-op": 1,
    "10 no-op": 10,
    "50 no-op": 50,
    "10 no-op, timed": 10,
    "1 watching": 1,
    "10 watching": 10,
    "50 watching": 50,
}


async def measure(replies: int, rounds: int) -> dict[str, Any]:
    """Every configuration's samples (seconds per reply), the bare await, the hops."""
    hops = 0
    real_run_sync = anyio.to_thread.run_sync

    async def counting_run_sync(*args: Any, **kwargs: Any) -> Any:
        nonlocal hops
        hops += 1
        return await real_run_sync(*args, **kwargs)

    anyio.to_thread.run_sync = counting_run_sync  # type: ignore[assignment]
    per_mw = await invocations_per_middleware()
    agents = {label: await warm_agent(make) for label, make in configurations().items()}
    samples: dict[str, list[float]] = {k: [] for k in agents}
    bare: list[float] = []
    for _ in range(rounds):  # interleaved, so drift hits every configuration alike
        for label, agent in agents.items():
            samples[label].append(await time_replies(agent, replies))
        bare.append(await bare_await_cost(20_000))
    chains = {str(d): await generator_chain_cost(d) for d in (10, 50)}
    floors = {str(d): await onion_floor(d) for d in (1, 10, 50)}
    return {
        "per_mw": per_mw,
        "samples": samples,
        "bare": bare,
        "hops": hops,
        "chains": chains,
        "floors": floors,
    }


def summary(result: dict[str, Any]) -> dict[str, Any]:
    """Per configuration: the lowest sample (the least disturbed) and the median; per
    middleware per hook invocation: the extra over "0 middleware", from the lowest."""
    best = {k: min(v) for k, v in result["samples"].items()}
    median = {k: statistics.median(v) for k, v in result["samples"].items()}
    per_mw = result["per_mw"]
    per_inv = {
        label: (best[label] - best["0 middleware"]) / (n * per_mw)
        for label, n in PER_INVOCATION.items()
        if label in best
    }
    per_inv_median = {
        label: (median[label] - median["0 middleware"]) / (n * per_mw)
        for label, n in PER_INVOCATION.items()
        if label in median
    }
    return {
        "best": best,
        "median": median,
        "per_inv": per_inv,
        "per_inv_median": per_inv_median,
        "bare": min(result["bare"]),
        "empty": best["10 empty"] / best["0 middleware"] - 1,
        "hops": result["hops"],
        "per_mw": per_mw,
        "chains": result.get("chains", {}),
        "floors": result.get("floors", {}),
    }


def print_floors(s: dict[str, Any]) -> None:
    per_mw = s["per_mw"]
    for depth, (bare, guarded, _) in s["floors"].items():
        print(
            f"the floor of {depth:>2} generator layers in the agent's nesting, no engine:"
            f" {bare / per_mw * 1e6:.3f} us per invocation bare,"
            f" {guarded / per_mw * 1e6:.3f} us with on_reply's check step (the least an engine can do)"
        )


def report(s: dict[str, Any]) -> None:
    print(f"one round = {s['per_mw']} hook invocations per middleware (streamed items counted one by one)")
    print(f"bare await: {s['bare'] * 1e6:.3f} us")
    print(f"{'configuration':<16} {'per reply':>12} {'vs 0':>8} {'(median)':>12}")
    for label, value in s["best"].items():
        ratio = value / s["best"]["0 middleware"]
        print(f"{label:<16} {value * 1e6:>9.1f} us {ratio:>7.3f}x {s['median'][label] * 1e6:>9.1f} us")
    print()
    for label, extra in s["per_inv"].items():
        print(
            f"{label:<15}: {extra * 1e6:.3f} us per middleware per hook invocation"
            f" = {extra / s['bare']:.1f}x a bare await (target <= 0.3 us;"
            f" median {s['per_inv_median'][label] * 1e6:.3f})"
        )
    print(f"10 empty : {s['empty'] * 100:+.1f}% per reply (target < 5%)")
    print(f"thread hops during the run: {s['hops']} (target 0)")
    for depth, (per_call, per_item) in s["chains"].items():
        print(
            f"the floor, no engine: a chain of {depth} bare async generators costs"
            f" {per_call * 1e6:.3f} us per layer per call, {per_item * 1e6:.3f} us per layer per item"
        )
    print_floors(s)


def against(other: Path, replies: int, rounds: int, runs: int) -> None:
    """This checkout and ``other``, in alternating subprocesses (so drift hits both
    alike); the samples of each pooled, then summarised."""
    pooled: dict[str, dict[str, Any]] = {}
    for _ in range(runs):
        for name, code in (("this", ROOT), ("other", other)):
            out = subprocess.run(
                [sys.executable, __file__, "--replies", str(replies), "--rounds", str(rounds), "--json"],
                env={**os.environ, "HOOK_OVERHEAD_CODE": str(code)},
                capture_output=True,
                text=True,
                check=True,
            ).stdout
            one = json.loads(out)
            fresh = {"per_mw": one["per_mw"], "samples": {}, "bare": [], "hops": 0, "chains": one["chains"]}
            into = pooled.setdefault(name, {**fresh, "floors": {}})
            for depth, values in one.get("floors", {}).items():  # the least disturbed run's
                if depth not in into["floors"] or values[1] < into["floors"][depth][1]:
                    into["floors"][depth] = values
            for label, values in one["samples"].items():
                into["samples"].setdefault(label, []).extend(values)
            into["bare"].extend(one["bare"])
            into["hops"] += one["hops"]
    this, that = summary(pooled["this"]), summary(pooled["other"])
    print(f"this: {ROOT}   other: {other}")
    print(f"({runs} alternating runs of {rounds} rounds each; lowest sample of {replies} replies)")
    print(f"one round = {this['per_mw']} hook invocations per middleware (other: {that['per_mw']})")
    print(f"{'':<16} {'this':>22} {'other':>22}")
    print(f"{'bare await':<16} {this['bare'] * 1e6:>19.3f} us {that['bare'] * 1e6:>19.3f} us")
    for label, value in this["best"].items():
        theirs = that["best"].get(label)
        mine = f"{value * 1e6:.1f} us {value / this['best']['0 middleware']:.3f}x"
        other_s = f"{theirs * 1e6:.1f} us {theirs / that['best']['0 middleware']:.3f}x" if theirs else "-"
        print(f"{label:<16} {mine:>22} {other_s:>22}")
    print("\nper middleware per hook invocation (target <= 0.3 us)")
    for label, extra in this["per_inv"].items():
        theirs = that["per_inv"].get(label)
        other_s = f"{theirs * 1e6:.3f} us" if theirs is not None else "-"
        print(f"{label:<16} {extra * 1e6:>19.3f} us {other_s:>22}")
    print(f"{'10 empty':<16} {this['empty'] * 100:>+20.1f}% {that['empty'] * 100:>+20.1f}%")
    print(f"thread hops: {this['hops']} / {that['hops']}")
    for depth, (per_call, per_item) in this["chains"].items():
        print(
            f"the floor, no engine: a chain of {depth} bare async generators costs"
            f" {per_call * 1e6:.3f} us per layer per call, {per_item * 1e6:.3f} us per layer per item"
        )
    print_floors(this)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--replies", type=int, default=20, help="replies timed per sample")
    parser.add_argument("--rounds", type=int, default=25, help="interleaved samples per configuration")
    parser.add_argument("--against", type=Path, help="another checkout to measure in the same run")
    parser.add_argument("--runs", type=int, default=6, help="with --against: alternating runs of each")
    parser.add_argument("--json", action="store_true", help="print the raw samples as JSON")
    args = parser.parse_args()
    if args.against:
        against(args.against.resolve(), args.replies, args.rounds, args.runs)
    else:
        result = anyio.run(measure, args.replies, args.rounds)
        if args.json:
            print(json.dumps(result))
        else:
            report(summary(result))
