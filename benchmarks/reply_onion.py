"""Where a generator layer's cost goes: the ``on_reply`` onion alone, against its floor.

``hook_overhead.py`` measures whole agent rounds; this takes the engine's part apart.
N no-op ``on_reply`` generator layers (``async for e in next(request): yield e``) over a
core that yields ITEMS events, through ``MiddlewareStack.stream`` as the agent pulls it,
against the floor: the same N bare generator layers with the one check step ``on_reply``
needs between two generator layers (``_passing`` generators), and no engine. Three
figures per layer, ours and the floor's, from one run:

- per item: the extra per event per layer (the generator step and the check step);
- per call: what one invocation costs per layer with (almost) no items: the engine's
  ``enter``, the layer's ``next``, its context, closing (the floor: making the generators);
- per suspension: what one real wait of the core (a checkpoint: the event loop runs
  something else) adds per layer, as it passes up and down every generator frame.

CPU time of this process, lowest of interleaved samples (interference only adds).

    python benchmarks/reply_onion.py [--layers 50] [--rounds 20]
"""

from __future__ import annotations

import argparse
import gc
import sys
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path
from typing import Any

import anyio
import anyio.lowlevel

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from hook_overhead import NoOp, _FloorLayer, _passing

from middleware import Middleware, MiddlewareStack, ReplyRequest
from middleware.context import ReplyRun
from shell.core.events import Event, Notice, ReplyEnd, ReplyStart

CLOCK = time.process_time
START, END = ReplyStart(()), ReplyEnd(None, "end_turn")
MIDDLE = Notice("info", "an event", "bench")


class Layer(Middleware):
    """A no-op ``on_reply`` generator layer: hook_overhead's NoOp, this hook only."""

    counting = False
    on_reply = NoOp.on_reply

    def __init__(self, i: int) -> None:
        self.name = f"layer{i}"


class _Agent:
    messages: list[Any] = []
    session_state: dict[str, Any] = {}


def core(items: int, waits: int) -> Callable[[Any], AsyncIterator[Event]]:
    async def run(request: Any) -> AsyncIterator[Event]:
        yield START
        for _ in range(waits):
            await anyio.lowlevel.checkpoint()
        for _ in range(items - 2):
            yield MIDDLE
        yield END

    return run


async def _ended() -> Event:
    return END


async def _ask(request: Any) -> None:
    return None


async def engine(stack: MiddlewareStack, items: int, waits: int) -> None:
    run = ReplyRun(_Agent(), "reply_bench", lambda event: None, _ask)  # type: ignore[arg-type]
    onion = stack.stream("on_reply", run, ReplyRequest(()), core(items, waits), "agent", finish=_ended)
    try:
        async for _ in onion.items:
            pass
    finally:
        await onion.aclose()


async def floor(layers: list[_FloorLayer], items: int, waits: int) -> None:
    source: AsyncIterator[Any] = core(items, waits)(None)
    for k, layer in enumerate(reversed(layers)):
        source = layer.on(source)
        if k < len(layers) - 1:  # every layer's output but the outermost's is checked
            source = _passing(source)
    async for _ in source:
        pass


async def sample(fn: Callable[..., Awaitable[None]], *args: Any, reps: int = 40) -> float:
    gc.collect()
    gc.disable()
    try:
        start = CLOCK()
        for _ in range(reps):
            await fn(*args)
        return (CLOCK() - start) / reps
    finally:
        gc.enable()


async def measure(n: int, rounds: int, items: int = 68, waits: int = 60) -> dict[str, float]:
    stacks = {0: MiddlewareStack([]), n: MiddlewareStack([Layer(i) for i in range(n)])}
    floors: dict[int, list[_FloorLayer]] = {0: [], n: [_FloorLayer() for _ in range(n)]}
    shapes = {"items": (items, 0), "call": (2, 0), "waits": (items, waits)}
    cases = {
        (who, depth, shape): (engine if who == "ours" else floor,
                              stacks[depth] if who == "ours" else floors[depth], *shapes[shape])
        for who in ("ours", "floor") for depth in (0, n) for shape in shapes
    }
    best: dict[Any, float] = {}
    for _ in range(rounds):  # interleaved: drift hits every case alike
        for key, (fn, layers, k, w) in cases.items():
            best[key] = min(best.get(key, float("inf")), await sample(fn, layers, k, w))
    out: dict[str, float] = {}
    for who in ("ours", "floor"):
        per_layer = {s: (best[(who, n, s)] - best[(who, 0, s)]) / n for s in shapes}
        out[f"{who} per call"] = per_layer["call"]
        out[f"{who} per item"] = (per_layer["items"] - per_layer["call"]) / (items - 2)
        out[f"{who} per suspension"] = (per_layer["waits"] - per_layer["items"]) / waits
    return out


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--layers", type=int, default=50)
    parser.add_argument("--rounds", type=int, default=20)
    args = parser.parse_args()
    result = anyio.run(measure, args.layers, args.rounds)
    print(f"{args.layers} on_reply generator layers; per layer, lowest of {args.rounds} interleaved samples:")
    print(f"{'':<16} {'ours':>10} {'floor':>10}")
    for what in ("per item", "per call", "per suspension"):
        ours, least = result[f"ours {what}"], result[f"floor {what}"]
        print(f"{what:<16} {ours * 1e6:>7.3f} us {least * 1e6:>7.3f} us   ({ours / least:.2f}x)")
