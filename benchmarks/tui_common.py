"""Shared helpers of the TUI benchmarks: Markdown generation and loop-stall probes."""

from __future__ import annotations

import asyncio
import bisect
import gc
import math
import random
import statistics
from asyncio import events as asyncio_events
from collections.abc import Callable
from dataclasses import dataclass, field
from time import perf_counter, process_time, thread_time
from typing import Any


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


@dataclass
class Step:
    """One event-loop step (one ``Handle._run``): what ran, and what it cost."""

    end: float
    wall: float
    cpu: float
    gc_ms: float
    gc_gens: tuple[int, ...]
    label: str


def _label(callback: Callable[..., Any]) -> str:
    """A readable name for a loop callback: a task's coroutine, or the function."""
    owner = getattr(callback, "__self__", None)
    if isinstance(owner, asyncio.Task):
        coro = owner.get_coro()
        frame = getattr(coro, "cr_frame", None)
        where = f" @{frame.f_code.co_filename.rsplit('/', 1)[-1]}:{frame.f_lineno}" if frame else ""
        timer_callback = getattr(frame.f_locals.get("self"), "_callback", None) if frame else None
        if timer_callback is not None:  # a Textual timer: say what it calls
            where += f" -> {getattr(timer_callback, '__qualname__', timer_callback)}"
        return f"task {getattr(coro, '__qualname__', coro)}{where}"
    return getattr(callback, "__qualname__", repr(callback))


@dataclass
class StepProbe:
    """Times every event-loop step on the wall clock *and* in this thread's CPU time.

    A wall-clock stall on a shared machine may be another process holding the
    CPU; a step that burns 300 ms of ``thread_time`` is ours. Wraps
    ``asyncio.events.Handle._run`` (every callback, task step and timer of the
    loop goes through it) and listens to ``gc.callbacks``, so each step also
    says how much of it was cyclic garbage collection, and of which generation.
    """

    steps: list[Step] = field(default_factory=list)
    collections: list[tuple[int, float, int]] = field(default_factory=list)
    """(generation, ms, objects collected) of every collection while installed."""
    _original: Any = None
    _gc_ms: float = 0.0
    _gc_gens: list[int] = field(default_factory=list)
    _gc_t0: float = 0.0

    def _on_gc(self, phase: str, info: dict[str, int]) -> None:
        if phase == "start":
            self._gc_t0 = perf_counter()
        else:
            ms = (perf_counter() - self._gc_t0) * 1000
            self._gc_ms += ms
            self._gc_gens.append(info["generation"])
            self.collections.append((info["generation"], ms, info.get("collected", 0)))

    def install(self) -> None:
        original = asyncio_events.Handle._run
        self._original = original
        probe = self

        def _run(handle: asyncio_events.Handle) -> None:
            gc_before = probe._gc_ms
            probe._gc_gens.clear()
            c0 = thread_time()
            t0 = perf_counter()
            original(handle)
            t1 = perf_counter()
            cpu = thread_time() - c0
            wall = t1 - t0
            gc_ms = probe._gc_ms - gc_before
            label = _label(handle._callback) if wall > 0.010 or cpu > 0.010 else ""
            probe.steps.append(Step(t1, wall, cpu, gc_ms, tuple(probe._gc_gens), label))

        asyncio_events.Handle._run = _run  # type: ignore[method-assign]
        gc.callbacks.append(self._on_gc)

    def uninstall(self) -> None:
        if self._original is not None:
            asyncio_events.Handle._run = self._original  # type: ignore[method-assign]
            self._original = None
        if self._on_gc in gc.callbacks:
            gc.callbacks.remove(self._on_gc)

    def longest(self, n: int = 5) -> list[Step]:
        return sorted(self.steps, key=lambda s: s.cpu, reverse=True)[:n]


class StallProbe:
    """Measures event-loop stalls: how late a 5 ms sleep wakes up.

    ``lags`` are wall-clock; ``cpu_lags`` count only this process's CPU time in
    the same windows, so a busy machine (other processes taking the CPU) does
    not show up as a stall of ours. ``steps`` (a :class:`StepProbe`) times each
    loop step in this thread's CPU time: ``step_cpu_ms`` gives, per 5 ms window
    of the probe, the CPU time of the longest step that ran in it (the CPU part
    of that window's stall), and ``max_step_cpu_ms`` the longest of all.
    """

    def __init__(self, interval: float = 0.005) -> None:
        self.interval = interval
        self.lags: list[float] = []
        self.cpu_lags: list[float] = []
        self.windows: list[tuple[float, float]] = []
        self.steps = StepProbe()
        self._task: asyncio.Task[None] | None = None

    async def _run(self) -> None:
        while True:
            t0 = perf_counter()
            c0 = process_time()
            await asyncio.sleep(self.interval)
            t1 = perf_counter()
            self.lags.append(t1 - t0 - self.interval)
            self.cpu_lags.append(process_time() - c0)
            self.windows.append((t0, t1))

    def start(self) -> None:
        self.steps.install()
        self._task = asyncio.get_running_loop().create_task(self._run())

    async def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            try:
                await self._task
            except asyncio.CancelledError:
                pass
        self.steps.uninstall()

    def step_cpu_ms(self) -> list[float]:
        """Per probe window: the CPU ms of the longest loop step that ended in it."""
        steps = sorted(self.steps.steps, key=lambda s: s.end)
        ends = [s.end for s in steps]
        out: list[float] = []
        for t0, t1 in self.windows:
            lo, hi = bisect.bisect_right(ends, t0), bisect.bisect_right(ends, t1)
            out.append(max((s.cpu for s in steps[lo:hi]), default=0.0) * 1000)
        return out

    def window_cpu_ms(self) -> list[float]:
        """Per probe window, the CPU ms of all loop steps that ended in it: the lateness
        a quiet machine would show plus the window's 5 ms (a window's steps ran back
        to back before the probe's timer got its turn), whatever the load stretched
        the wall clock to."""
        steps = sorted(self.steps.steps, key=lambda s: s.end)
        ends = [s.end for s in steps]
        out: list[float] = []
        for t0, t1 in self.windows:
            lo, hi = bisect.bisect_right(ends, t0), bisect.bisect_right(ends, t1)
            out.append(sum(s.cpu for s in steps[lo:hi]) * 1000)
        return out

    def late_cpu_ms(self) -> list[float]:
        """Per probe window, the CPU ms of the loop steps that ran after the probe's sleep
        fell due (the part of a step that did): the window's lateness in CPU time, what a
        quiet machine shows as the wall stall. Unlike :meth:`window_cpu_ms` it leaves out
        what ran before the due time (the steps a window's 5 ms holds anyway), so work
        moved behind the timers that fell due counts as not late."""
        steps = sorted(self.steps.steps, key=lambda s: s.end)
        ends = [s.end for s in steps]
        out: list[float] = []
        for t0, t1 in self.windows:
            due = t0 + self.interval
            lo, hi = bisect.bisect_right(ends, due), bisect.bisect_right(ends, t1)
            out.append(sum(s.cpu * min(1.0, (s.end - due) / s.wall) if s.wall > 0 else s.cpu
                           for s in steps[lo:hi]) * 1000)
        return out

    def p99_late_cpu_ms(self) -> float:
        values = sorted(self.late_cpu_ms())
        return values[min(len(values) - 1, int(len(values) * 0.99))] if values else 0.0

    def max_window_cpu_ms(self) -> float:
        return max(self.window_cpu_ms(), default=0.0)

    def p99_window_cpu_ms(self) -> float:
        """The p99 of :meth:`window_cpu_ms`: the wall p99 stall of a quiet machine, from a
        loaded one (less the window's own 5 ms)."""
        values = sorted(self.window_cpu_ms())
        return values[min(len(values) - 1, int(len(values) * 0.99))] if values else 0.0

    def p99_step_cpu_ms(self) -> float:
        values = sorted(self.step_cpu_ms())
        return values[min(len(values) - 1, int(len(values) * 0.99))] if values else 0.0

    def max_step_cpu_ms(self) -> float:
        return max((s.cpu for s in self.steps.steps), default=0.0) * 1000

    def summary(self) -> dict[str, Any]:
        """Figures for a benchmark's JSON line: wall and CPU stalls, GC, the longest steps."""
        gcs = self.steps.collections
        full = [ms for gen, ms, _ in gcs if gen == 2]
        return {
            "p99": self.p99_ms(),
            "max": self.max_ms(),
            "p99_step_cpu": self.p99_step_cpu_ms(),
            "max_step_cpu": self.max_step_cpu_ms(),
            "max_window_cpu": self.max_window_cpu_ms(),
            "steps_over_16ms_cpu": sum(1 for s in self.steps.steps if s.cpu > 0.016),
            "steps_over_100ms_cpu": sum(1 for s in self.steps.steps if s.cpu > 0.100),
            "gc_full": len(full),
            "gc_full_max_ms": max(full, default=0.0),
            "gc_full_total_ms": sum(full),
            "gc_young_total_ms": sum(ms for gen, ms, _ in gcs if gen < 2),
            "longest": [
                f"{s.cpu * 1000:.0f} cpu/{s.wall * 1000:.0f} wall ms, gc {s.gc_ms:.0f} ms "
                f"gen {max(s.gc_gens, default='-')}: {s.label}"
                for s in self.steps.longest(5)
            ],
        }

    def p99_ms(self, cpu: bool = False) -> float:
        values = self.cpu_lags if cpu else self.lags
        if not values:
            return 0.0
        ordered = sorted(values)
        return ordered[min(len(ordered) - 1, int(len(ordered) * 0.99))] * 1000

    def max_ms(self) -> float:
        return max(self.lags, default=0.0) * 1000


async def probed_send(app: Any) -> tuple[float, float, StallProbe]:
    """Type "go" + Enter into the TUI's prompt with a :class:`StallProbe` running, to
    the reply's end: the wall seconds, the process's CPU seconds, the stopped probe.
    (The measurement every whole-app benchmark makes; one place so they agree.)"""
    from benchmarks.common import send_prompt

    probe = StallProbe()
    probe.start()
    c0 = process_time()
    wall = await send_prompt(app)
    cpu = process_time() - c0
    await probe.stop()
    return wall, cpu, probe


def exponent(sizes: list[int], times: list[float]) -> float:
    """Slope of log(time) against log(size): 1.0 is linear, 2.0 quadratic (nan for one size)."""
    if len(set(sizes)) < 2:
        return math.nan
    xs = [math.log(s) for s in sizes]
    ys = [math.log(max(t, 1e-9)) for t in times]
    mx, my = statistics.fmean(xs), statistics.fmean(ys)
    return sum((x - mx) * (y - my) for x, y in zip(xs, ys, strict=True)) / sum((x - mx) ** 2 for x in xs)
