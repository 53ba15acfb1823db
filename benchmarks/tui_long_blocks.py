"""Benchmark: a reply that is one endless block, sent as ONE delta (findings F13).

Shapes: ``nl`` N lines with no blank line (one Markdown paragraph), ``code`` the same
lines in one fence, ``long`` one line with no newline, ``para`` N one-line paragraphs.
Each is appended to an ``AssistantMessage`` in the app's ``Conversation`` (headless,
120x40) in one piece, then finished; prints wall and CPU time per shape and size and
the growth exponent of CPU time against size (linear is 1). ``--esc`` also measures
Esc in a 1.2 MB one-delta paragraph under the real app (``ScriptedModel``): Esc to
idle. ``--root DIR`` measures another checkout (e.g. ``git archive`` of main before a
change, unpacked in DIR) in the same way, to compare in one run.

``--i6 CHARS,ITEMS`` measures the two replies of findings I6 under the real app
(``ScriptedModel``, 64 KB deltas, 120x40): one paragraph of CHARS x's (3,000,000) and a
list of ITEMS items (20,000), each against headless (``run_headless`` with the same
model, in this process, its output kept in memory) in the same run: the time (and CPU) from
sending to the reply shown whole (idle), its ratio to headless, and the longest loop step
the app took meanwhile (each callback and task step timed, wall and CPU: ``StepTimer``).

    python benchmarks/tui_long_blocks.py [--shapes nl,code,long,para] [--lines 500,1000,2000] [--esc]
    python benchmarks/tui_long_blocks.py --i6 [3000000,20000] [--root DIR]
"""

from __future__ import annotations

import argparse
import asyncio
import math
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
LINE = "line of text with some words\n"


def text(shape: str, n: int) -> str:
    if shape == "nl":
        return LINE * n
    if shape == "para":
        return (LINE + "\n") * n
    if shape == "code":
        return "```\n" + LINE * n + "```\n"
    return "word " * (n * 6)


async def one(shape: str, n: int) -> tuple[float, float]:
    from textual.app import App, ComposeResult

    from shell.tui.widgets.assistant_message import AssistantMessage
    from shell.tui.widgets.conversation import Conversation

    class Bench(App[None]):
        def compose(self) -> ComposeResult:
            yield Conversation(id="scroll")

    app = Bench()
    async with app.run_test(size=(120, 40)) as pilot:
        scroll = app.query_one(Conversation)
        scroll.anchor()
        widget = AssistantMessage(streaming=True)
        await scroll.mount(widget)
        reply = text(shape, n)
        t0, c0 = time.perf_counter(), time.process_time()
        widget.append(reply)
        await widget.finish()
        await pilot.pause()
        wall, cpu = time.perf_counter() - t0, time.process_time() - c0
        assert widget.text == reply
        return wall, cpu


async def esc() -> float:
    from shell.agent import Agent
    from shell.providers.scripted import ScriptedModel
    from shell.tui.app import AgentShellApp
    from shell.tui.widgets.assistant_message import AssistantMessage

    reply = LINE * 40_000
    app = AgentShellApp(Agent(ScriptedModel([reply], delay=0, chunk_size=len(reply))), model_label="scripted")
    async with app.run_test(size=(120, 40)) as pilot:
        app.start_reply("go")
        def streaming() -> bool:
            widgets = app.query(AssistantMessage)
            return bool(widgets) and 0 < widgets.last().backlog < len(reply)

        while not streaming():  # noqa: ASYNC110 (polled, as the pilot tests do)
            await asyncio.sleep(0.02)
        await asyncio.sleep(1.0)
        t0 = time.perf_counter()
        await pilot.press("escape")
        while app.busy and time.perf_counter() - t0 < 120:  # noqa: ASYNC110
            await asyncio.sleep(0.01)
        return time.perf_counter() - t0


def i6_replies(chars: int, items: int) -> dict[str, str]:
    return {
        f"{chars:,}-character paragraph": "x" * chars,
        f"{items:,}-item list": "".join(f"- item {n}\n" for n in range(items)),
    }


def _runtime(reply: str, home: Path) -> object:
    from shell.config import Settings
    from shell.providers.scripted import ScriptedModel
    from shell.runtime import RuntimeOptions, ShellRuntime

    return ShellRuntime.create(
        RuntimeOptions(cwd=str(home), record=False),
        settings=Settings(path=home / "none.toml"),
        model=ScriptedModel([reply], delay=0, chunk_size=65_536),
    )


async def i6_headless(reply: str, home: Path) -> tuple[float, float]:
    import io

    from shell.headless import run_headless

    runtime = _runtime(reply, home)
    out, err = io.StringIO(), io.StringIO()
    t0, c0 = time.perf_counter(), time.process_time()
    await run_headless(runtime, "go", approve="never", out=out, err=err)  # type: ignore[arg-type]
    wall, cpu = time.perf_counter() - t0, time.process_time() - c0
    assert reply in out.getvalue(), err.getvalue()[-500:]
    return wall, cpu


class StepTimer:
    """Times every step of the event loop (each callback or task step ``asyncio`` runs):
    its wall time and the main thread's CPU time in it. On 2 cores shared by a dozen
    processes, a step's wall time is mostly waiting for a core (a 25 ms step shows as
    100-300 ms); its CPU time is what the step itself costs."""

    def __init__(self) -> None:
        self.wall = self.cpu = 0.0
        self.on = False
        self._run = asyncio.events.Handle._run

    def __enter__(self) -> StepTimer:
        timer, run = self, self._run

        def timed(handle: asyncio.events.Handle) -> None:
            w0, c0 = time.perf_counter(), time.thread_time()
            try:
                run(handle)
            finally:
                if timer.on:
                    timer.wall = max(timer.wall, time.perf_counter() - w0)
                    timer.cpu = max(timer.cpu, time.thread_time() - c0)

        asyncio.events.Handle._run = timed  # type: ignore[method-assign]
        return self

    def __exit__(self, *_: object) -> None:
        asyncio.events.Handle._run = self._run  # type: ignore[method-assign]


async def i6_tui(reply: str, home: Path) -> tuple[float, float, float, float]:
    from shell.tui.app import AgentShellApp

    app = AgentShellApp(runtime=_runtime(reply, home))  # type: ignore[arg-type]
    with StepTimer() as steps:
        async with app.run_test(size=(120, 40)):
            while not app.is_attached or getattr(app, "main", None) is None:  # noqa: ASYNC110
                await asyncio.sleep(0.02)
            await asyncio.sleep(3.0)  # start-up done (lazy imports and attach: 0.3-0.9 s steps under load)
            t0, c0 = time.perf_counter(), time.process_time()
            steps.on = True  # not before: the wait for start-up is no step of the reply's
            app.start_reply("go")
            await asyncio.sleep(0.05)
            while app.busy and time.perf_counter() - t0 < 900:  # noqa: ASYNC110
                await asyncio.sleep(0.02)
            wall, cpu = time.perf_counter() - t0, time.process_time() - c0
            steps.on = False
    return wall, cpu, steps.wall, steps.cpu


def i6(spec: str) -> None:
    import tempfile

    chars, items = (int(n) for n in spec.split(","))
    for name, reply in i6_replies(chars, items).items():
        with tempfile.TemporaryDirectory() as home:
            headless, headless_cpu = asyncio.run(i6_headless(reply, Path(home)))
        with tempfile.TemporaryDirectory() as home:
            wall, cpu, worst, worst_cpu = asyncio.run(i6_tui(reply, Path(home)))
        print(f"{name:>28}: headless {headless:6.2f} s ({headless_cpu:5.2f} CPU)  "
              f"TUI {wall:7.2f} s ({cpu:6.2f} CPU)  "
              f"ratio {wall / headless:5.1f} ({cpu / headless_cpu:5.1f} CPU)  "
              f"longest loop step {worst * 1000:5.0f} ms ({worst_cpu * 1000:4.0f} ms CPU)", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--shapes", default="nl,code,long,para")
    parser.add_argument("--lines", default="500,1000,2000")
    parser.add_argument("--esc", action="store_true")
    parser.add_argument("--i6", nargs="?", const="3000000,20000", help="the two replies of findings I6")
    parser.add_argument("--root", type=Path, default=ROOT)
    args = parser.parse_args()
    sys.path.insert(0, str(args.root.resolve()))
    import os

    import shell
    print(f"{shell.__file__}, load average {os.getloadavg()[0]:.1f}")
    if args.i6:
        i6(args.i6)
        return
    sizes = [int(s) for s in args.lines.split(",")]
    for shape in args.shapes.split(","):
        cpus = []
        for n in sizes:
            wall, cpu = asyncio.run(one(shape, n))
            cpus.append(cpu)
            kb = len(text(shape, n)) // 1000
            print(f"{shape:>5} {n:>6} lines ({kb} KB): wall {wall:6.2f} s  cpu {cpu:6.2f} s", flush=True)
        if len(sizes) > 1:
            slope = math.log(cpus[-1] / cpus[0]) / math.log(sizes[-1] / sizes[0])
            print(f"{shape:>5} exponent (cpu) {slope:.2f}")
    if args.esc:
        print(f"Esc in a 1.2 MB one-delta paragraph -> idle: {asyncio.run(esc()):.2f} s (capped at 120)")


if __name__ == "__main__":
    main()
