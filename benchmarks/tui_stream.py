"""Benchmark: streaming a Markdown reply in 5-character deltas, 10 KB → 100 KB.

Ours (``AssistantMessage`` in the app's ``Conversation``: deltas batched per frame
with a per-frame budget, a fresh Markdown widget per top-level paragraph group once
a chunk is big, finished chunks kept as the lines they rendered to, chunks far from
view parked, and the app's GC policy) against plain Textual (one ``Markdown`` fed
through ``Markdown.get_stream`` in a ``VerticalScroll``), in one run, in a headless
app at 120x40. The floor, in the same run: Textual alone, the same screen growing
by the reply's lines at the same pace with nothing to render (each line drawn
beforehand), i.e. what a frame of that screen costs before any Markdown.

Prints, per size, wall and CPU time and the p99 event-loop stall (wall, and
counting only this process's CPU time, which a loaded machine does not
inflate) and the CPU of the longest loop step (p99 over 5 ms windows, and the
longest); then the growth exponent of time against size (target ≤ 1.1) and the
worst p99 stall (target ≤ 16 ms, one frame at 60 fps).

    python benchmarks/tui_stream.py [--sizes 10,25,50,100] [--no-plain]
    python benchmarks/tui_stream.py --against DIR [--sizes 50] [--rounds 3]

``--against DIR`` measures another checkout's ``AssistantMessage`` (e.g. ``git
archive`` of main before a change, unpacked in DIR) against this one and the floor,
each run in a fresh process, taking turns (base, ours, floor) for ``--rounds``
rounds, and prints the medians: a change against its baseline in one run. Both are
measured by this script (its probe and figures), each with its own code. Besides the
p99s it counts the loop steps over 16 ms of CPU and the probe's windows: a reply drawn
faster has fewer windows, and a p99 over ~100-250 of them is its 2nd-4th longest step.
"""

from __future__ import annotations

import argparse
import asyncio
import math
import sys
from dataclasses import dataclass
from pathlib import Path
from time import perf_counter, process_time

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from rich.segment import Segment
from textual.app import App, ComposeResult
from textual.containers import VerticalScroll
from textual.geometry import Size
from textual.screen import Screen
from textual.strip import Strip
from textual.widget import Widget
from textual.widgets import Markdown

from benchmarks.tui_common import StallProbe, deltas, exponent, markdown_text
from shell.tui import full_map, highlight, unlink
from shell.tui.gcpolicy import GcPolicy
from shell.tui.screens.split_frame import SplitFrameScreen
from shell.tui.widgets.assistant_message import FRAME_S, AssistantMessage
from shell.tui.widgets.conversation import Conversation


class Bench(App[None]):
    def __init__(self, ours: bool = True, split: bool = True) -> None:
        super().__init__()
        self.ours = ours
        self.split = split and ours

    def compose(self) -> ComposeResult:
        yield Conversation(id="scroll") if self.ours else VerticalScroll(id="scroll")

    def get_default_screen(self) -> Screen[None]:
        """Ours: the app's screen draws a frame in two loop turns (layout, render); the
        floor and plain Textual: Textual's screen."""
        return SplitFrameScreen() if self.split else Screen()


class Lines(Widget):
    """The floor's reply: lines drawn beforehand, handed out as they are."""

    DEFAULT_CSS = "Lines { height: auto; }"

    def __init__(self) -> None:
        super().__init__()
        self.lines: list[Strip] = []

    def get_content_height(self, container: Size, viewport: Size, width: int) -> int:
        return len(self.lines)

    def render_line(self, y: int) -> Strip:
        return self.lines[y] if y < len(self.lines) else Strip.blank(self.size.width)


@dataclass
class Run:
    wall: float
    cpu: float
    p99: float
    p99_cpu: float
    p99_step: float
    max_step: float
    max_wall: float
    over_16: float = float("nan")
    """Loop steps over 16 ms of CPU (the p99 of a short run is its 2nd-4th longest step)."""
    window_cpu: float = float("nan")
    """p99 of the CPU ms of the loop steps in one probe window: the wall p99 a quiet
    machine would show (plus the window's 5 ms), measured on a loaded one."""
    windows: float = float("nan")
    """Probe windows (5 ms sleeps) in the run: a faster reply has fewer, and its p99 is
    then a longer step of the same set."""
    late_cpu: float = float("nan")
    """p99 of the CPU ms that ran in a probe window after its sleep fell due: the wall
    p99 stall of a quiet machine, measured on a loaded one."""
    idle_collect: float = float("nan")
    """CPU ms of the full collection the app makes once the reply has ended and the user
    has been idle a second (``GcPolicy``): timed apart, not one of the streaming stalls."""


def _run(wall: float, cpu: float, probe: StallProbe, idle_collect: float = math.nan) -> Run:
    return Run(wall, cpu, probe.p99_ms(), probe.p99_ms(cpu=True), probe.p99_step_cpu_ms(),
               probe.max_step_cpu_ms(), probe.max_ms(),
               float(sum(1 for s in probe.steps.steps if s.cpu > 0.016)), probe.p99_window_cpu_ms(),
               float(len(probe.lags)), probe.p99_late_cpu_ms(), idle_collect)


async def _end(policy: GcPolicy, probe: StallProbe, t0: float, c0: float) -> tuple[float, float, float]:
    """The reply has ended: the probe stops (the stalls are the streaming ones), then the
    collection the app makes at the next idle second, timed apart; wall and CPU seconds
    of the whole, and that collection's CPU ms."""
    policy.reply_finished()
    await probe.stop()
    before = process_time()
    policy.collect()  # what the app does once the user has been idle a second
    idle_collect = (process_time() - before) * 1000
    return perf_counter() - t0, process_time() - c0, idle_collect


async def run_ours(text: str) -> Run:
    app = Bench()
    async with app.run_test(size=(120, 40)) as pilot:
        scroll = app.query_one("#scroll", VerticalScroll)
        scroll.anchor()
        widget = AssistantMessage(streaming=True)
        await scroll.mount(widget)
        unlink.install()  # what AgentShellApp does
        full_map.install()  # and this
        warm = getattr(highlight, "warm_lexers", None)  # (a checkout --against may lack it)
        if warm is not None:
            warm()  # and its warm-up, in a thread once ready (the first fence's lexer)
        policy = GcPolicy()  # what AgentShellApp does around every reply
        policy.started_up()
        probe = StallProbe()
        probe.start()
        t0, c0 = perf_counter(), process_time()
        policy.reply_started()
        for delta in deltas(text):
            widget.append(delta)
            await asyncio.sleep(0)
        await widget.finish()
        await pilot.pause()
        wall, cpu, idle_collect = await _end(policy, probe, t0, c0)
        assert widget.text == text
        return _run(wall, cpu, probe, idle_collect)


async def run_floor(text: str) -> Run:
    """The same screen grows by the reply's lines (wrapped at the width, as many per
    frame as the reply's frames bring), each line drawn beforehand."""
    app = Bench(split=False)
    async with app.run_test(size=(120, 40)) as pilot:
        scroll = app.query_one("#scroll", VerticalScroll)
        scroll.anchor()
        widget = Lines()
        await scroll.mount(widget)
        width = 116
        rows = text.split("\n")
        lines = [Strip([Segment(row[i : i + width])]) for row in rows for i in range(0, len(row) or 1, width)]
        policy = GcPolicy()
        policy.started_up()
        probe = StallProbe()
        probe.start()
        t0, c0 = perf_counter(), process_time()
        policy.reply_started()
        per_frame = max(1, len(lines) * 200 // max(1, len(text)))  # FRAME_BUDGET characters a frame
        for start in range(0, len(lines), per_frame):
            widget.lines.extend(lines[start : start + per_frame])
            widget.refresh(layout=True)
            await asyncio.sleep(FRAME_S)
        await pilot.pause()
        wall, cpu, idle_collect = await _end(policy, probe, t0, c0)
        return _run(wall, cpu, probe, idle_collect)


async def run_plain(text: str) -> Run:
    app = Bench(ours=False)
    async with app.run_test(size=(120, 40)) as pilot:
        scroll = app.query_one("#scroll", VerticalScroll)
        scroll.anchor()
        widget = Markdown()
        await scroll.mount(widget)
        stream = Markdown.get_stream(widget)
        probe = StallProbe()
        probe.start()
        t0, c0 = perf_counter(), process_time()
        for delta in deltas(text):
            await stream.write(delta)
        await stream.stop()
        await pilot.pause()
        wall, cpu = perf_counter() - t0, process_time() - c0
        await probe.stop()
        return _run(wall, cpu, probe)


async def main(sizes_kb: list[int], plain_too: bool = True) -> dict[str, float]:
    import os

    sizes = [kb * 1000 for kb in sizes_kb]
    ours: list[Run] = []
    plain: list[Run] = []
    floor: list[Run] = []
    none = Run(0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0)
    print(f"load average {os.getloadavg()[0]:.1f} at the start; p99/max = wall-clock stall, "
          "step = CPU ms of the longest loop step per 5 ms window (p99) and overall (max)")
    plain_head = (f" | {'plain wall':>10} {'cpu':>6} {'p99':>6} {'max':>6} {'step99':>6} {'stepmax':>7} | "
                  f"{'plain/ours cpu':>14}") if plain_too else ""
    print(
        f"{'size':>6} | {'ours wall':>9} {'cpu':>6} {'p99':>6} {'max':>6} {'step99':>6} {'stepmax':>7} | "
        f"{'floor p99':>9} {'step99':>6} {'stepmax':>7}" + plain_head
    )
    for size in sizes:
        text = markdown_text(size)
        o = await run_ours(text)
        f = await run_floor(text)
        p = await run_plain(text) if plain_too else none
        ours.append(o)
        floor.append(f)
        plain.append(p)
        plain_row = (f" | {p.wall:>10.2f} {p.cpu:>6.2f} {p.p99:>6.0f} {p.max_wall:>6.0f} {p.p99_step:>6.0f} "
                     f"{p.max_step:>7.0f} | {p.cpu / o.cpu:>13.1f}x") if plain_too else ""
        print(
            f"{size // 1000:>4}KB | {o.wall:>9.2f} {o.cpu:>6.2f} {o.p99:>6.0f} {o.max_wall:>6.0f} "
            f"{o.p99_step:>6.0f} {o.max_step:>7.0f} | {f.p99:>9.0f} {f.p99_step:>6.0f} {f.max_step:>7.0f}"
            + plain_row
        )
    result = {
        "exponent_ours_cpu": exponent(sizes, [r.cpu for r in ours]),
        "exponent_ours_wall": exponent(sizes, [r.wall for r in ours]),
        "p99_ours_ms": max(r.p99 for r in ours),
        "p99_cpu_ours_ms": max(r.p99_cpu for r in ours),
        "p99_step_ours_ms": max(r.p99_step for r in ours),
        "max_step_ours_ms": max(r.max_step for r in ours),
        "p99_floor_ms": max(r.p99 for r in floor),
        "p99_step_floor_ms": max(r.p99_step for r in floor),
    }
    print(
        f"exponent (cpu): ours {result['exponent_ours_cpu']:.2f} (target <= 1.1); "
        f"(wall): ours {result['exponent_ours_wall']:.2f}"
    )
    print(
        f"worst p99 stall: ours {result['p99_ours_ms']:.0f} ms wall / {result['p99_cpu_ours_ms']:.0f} ms cpu "
        f"/ {result['p99_step_ours_ms']:.0f} ms longest-step cpu (target <= 16); "
        f"floor (Textual alone) {result['p99_floor_ms']:.0f} ms wall / "
        f"{result['p99_step_floor_ms']:.0f} ms step; "
        f"ours longest step {result['max_step_ours_ms']:.0f} ms cpu"
    )
    if plain_too:
        result["exponent_plain_cpu"] = exponent(sizes, [r.cpu for r in plain])
        result["p99_plain_ms"] = max(r.p99 for r in plain)
        print(
            f"plain: exponent (cpu) {result['exponent_plain_cpu']:.2f}, "
            f"worst p99 {result['p99_plain_ms']:.0f} ms; "
            f"largest size: plain/ours cpu time {plain[-1].cpu / ours[-1].cpu:.1f}x, "
            f"wall {plain[-1].wall / ours[-1].wall:.1f}x"
        )
    return result


ONE_RUN = """
import asyncio, importlib.util, json, sys
sys.path.insert(0, {root!r})
import shell
assert shell.__file__.startswith({root!r}), shell.__file__
def load(name):  # this checkout's measurement (the same probe for both), the other's code
    path = {here!r} + "/benchmarks/" + name + ".py"
    spec = importlib.util.spec_from_file_location("benchmarks." + name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module
markdown_text = load("tui_common").markdown_text
tui_stream = load("tui_stream")
r = asyncio.run(getattr(tui_stream, {fn!r})(markdown_text({size})))
print(json.dumps(r.__dict__))
"""


def against(base: Path, sizes_kb: list[int], rounds: int) -> None:
    """Interleaved runs, one process each: the checkout in ``base``, this one, the floor."""
    import json
    import os
    import statistics
    import subprocess

    here = Path(__file__).resolve().parent.parent
    builds = (("base", base, "run_ours"), ("ours", here, "run_ours"), ("floor", here, "run_floor"))
    for kb in sizes_kb:
        runs: dict[str, list[dict[str, float]]] = {name: [] for name, _, _ in builds}
        print(f"{kb} KB, load average {os.getloadavg()[0]:.1f} at the start")
        for _ in range(rounds):
            for name, root, fn in builds:
                code = ONE_RUN.format(root=str(root), here=str(here), fn=fn, size=kb * 1000)
                done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                                      cwd=str(root), check=True)
                runs[name].append(json.loads(done.stdout.strip().splitlines()[-1]))
                print(f"  {name:>5}: {_summary(runs[name][-1])}", flush=True)
        print(f"  medians of {rounds}:")
        for name, got in runs.items():
            medians = {k: statistics.median(r.get(k, math.nan) for r in got) for k in got[0]}
            print(f"  {name:>5}: {_summary(medians)}")


def _summary(r: dict[str, float]) -> str:
    return (f"cpu {r['cpu']:.2f} s, wall {r['wall']:.2f} s, p99 step {r['p99_step']:.1f} ms cpu, "
            f"p99 stall {r['p99']:.0f} ms wall, p99 window {r.get('window_cpu', math.nan):.0f} ms cpu, "
            f"p99 late {r.get('late_cpu', math.nan):.1f} ms cpu, "
            f"longest step {r['max_step']:.0f} ms cpu, "
            f"steps > 16 ms cpu {r.get('over_16', math.nan):.0f}, windows {r.get('windows', math.nan):.0f}, "
            f"idle collection {r.get('idle_collect', math.nan):.0f} ms cpu")

if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--sizes", default="10,25,50,100")
    parser.add_argument("--no-plain", action="store_true", help="skip plain Textual (slow past 50 KB)")
    parser.add_argument("--against", type=Path, help="another checkout, measured interleaved with this one")
    parser.add_argument("--rounds", type=int, default=3, help="with --against: runs of each")
    args = parser.parse_args()
    if args.against:
        against(args.against.resolve(), [int(s) for s in args.sizes.split(",")], args.rounds)
        sys.exit(0)
    asyncio.run(main([int(s) for s in args.sizes.split(",")], plain_too=not args.no_plain))
