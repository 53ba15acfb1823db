"""Shared helpers of the TUI benchmarks: Markdown generation and loop-stall probes."""

from __future__ import annotations

import asyncio
import math
import random
import statistics
from time import perf_counter, process_time


def markdown_text(size: int, seed: int = 7) -> str:
    """A realistic reply of about ``size`` characters: headings, paragraphs, lists, code."""
    rng = random.Random(seed)
    words = [
        "the",
        "agent",
        "reads",
        "files",
        "runs",
        "tools",
        "and",
        "answers",
        "with",
        "**bold**",
        "words",
        "`code`",
        "links",
    ]
    parts: list[str] = []
    total = 0
    n = 0
    while total < size:
        n += 1
        kind = n % 6
        if kind == 0:
            block = f"## Section {n}\n\n"
        elif kind == 3:
            block = "".join(f"- item {i}: {' '.join(rng.choices(words, k=6))}\n" for i in range(4)) + "\n"
        elif kind == 5:
            block = "```python\n" + "".join(f"x{i} = {i} * 2\n" for i in range(5)) + "```\n\n"
        else:
            block = " ".join(rng.choices(words, k=40)) + ".\n\n"
        parts.append(block)
        total += len(block)
    return "".join(parts)[:size]


def deltas(text: str, size: int = 5) -> list[str]:
    return [text[i : i + size] for i in range(0, len(text), size)]


class StallProbe:
    """Measures event-loop stalls: how late a 5 ms sleep wakes up.

    ``lags`` are wall-clock; ``cpu_lags`` count only this process's CPU time in
    the same windows, so a busy machine (other processes taking the CPU) does
    not show up as a stall of ours.
    """

    def __init__(self, interval: float = 0.005) -> None:
        self.interval = interval
        self.lags: list[float] = []
        self.cpu_lags: list[float] = []
        self._task: asyncio.Task[None] | None = None

    async def _run(self) -> None:
        while True:
            t0 = perf_counter()
            c0 = process_time()
            await asyncio.sleep(self.interval)
            self.lags.append(perf_counter() - t0 - self.interval)
            self.cpu_lags.append(process_time() - c0)

    def start(self) -> None:
        self._task = asyncio.get_running_loop().create_task(self._run())

    async def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            try:
                await self._task
            except asyncio.CancelledError:
                pass

    def p99_ms(self, cpu: bool = False) -> float:
        values = self.cpu_lags if cpu else self.lags
        if not values:
            return 0.0
        ordered = sorted(values)
        return ordered[min(len(ordered) - 1, int(len(ordered) * 0.99))] * 1000

    def max_ms(self) -> float:
        return max(self.lags, default=0.0) * 1000


def exponent(sizes: list[int], times: list[float]) -> float:
    """Slope of log(time) against log(size): 1.0 is linear, 2.0 quadratic."""
    xs = [math.log(s) for s in sizes]
    ys = [math.log(max(t, 1e-9)) for t in times]
    mx, my = statistics.fmean(xs), statistics.fmean(ys)
    return sum((x - mx) * (y - my) for x, y in zip(xs, ys, strict=True)) / sum((x - mx) ** 2 for x in xs)
