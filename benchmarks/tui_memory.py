"""Benchmark: memory and time of one long streamed reply in the TUI, 100 KB → 1 MB.

The whole app (``AgentShellApp`` over a ``ScriptedModel`` reply of generated
Markdown, in deltas of ``--chunk`` characters) under Textual's pilot, one fresh
process per run so that each peak RSS is its own. Two builds in the same run:

* **ours**: the last Markdown block updated in place (``ChatMarkdown.append``)
  and the GC policy of ``shell.tui.gcpolicy`` (automatic collection stays on
  while a reply streams; what existed before it is frozen, so a collection only
  looks at the reply's own objects);
* **before** (the baseline): Textual's ``Markdown.append`` (a new widget for the
  block being written at every append) and automatic GC off for the whole reply,
  as the app did until issue 21.

Prints, per size: wall time from Enter to idle, peak RSS, the p99 and the longest
event-loop stall (wall clock), the same in CPU time of the loop's steps (see
``tui_common.StallProbe``) and the number of full collections; then the growth
exponent of time against size and the RSS goal (<= 300 MB at 1 MB).

    python benchmarks/tui_memory.py [--sizes 100,300,1000] [--builds ours,before] [-v]
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import json
import os
import resource
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks.common import run_script_child  # noqa: E402

GOAL_MB = 300


def _textual_append() -> None:
    """Textual's ``Markdown.append``: the block being written is built anew each time."""
    from textual.widgets import Markdown

    from shell.tui.widgets.chat_markdown import ChatMarkdown

    ChatMarkdown.append = Markdown.append  # type: ignore[method-assign]


def _gc_off() -> None:
    """Automatic GC off for the whole reply, back on at the collection after it."""
    from shell.tui.gcpolicy import GcPolicy

    collect = GcPolicy.collect

    def reply_started(self: GcPolicy) -> None:
        self._streaming = True
        gc.disable()

    def collect_and_resume(self: GcPolicy) -> None:
        gc.enable()
        collect(self)

    GcPolicy.reply_started = reply_started  # type: ignore[method-assign]
    GcPolicy.collect = collect_and_resume  # type: ignore[method-assign]


async def child(size: int, build: str, chunk: int) -> dict[str, Any]:
    from benchmarks.tui_common import markdown_text, probed_send
    from shell.agent.loop import Agent
    from shell.providers.scripted import ScriptedModel
    from shell.tui.app import AgentShellApp

    if build in ("before", "textual-append"):
        _textual_append()
    if build in ("before", "gc-off"):
        _gc_off()
    text = markdown_text(size)
    agent = Agent(ScriptedModel([text], chunk_size=chunk), system_prompt="be brief")
    app = AgentShellApp(agent, model_label="scripted")
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause(0.5)
        rss0 = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        wall, cpu, probe = await probed_send(app)
        peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        lags = sorted(probe.lags)
        return {
            "wall": wall,
            "cpu_s": cpu,
            "rss0": rss0,
            "peak": peak,
            "p50": lags[len(lags) // 2] * 1000 if lags else 0.0,
            **probe.summary(),
        }


def run(size: int, build: str, chunk: int) -> dict[str, Any]:
    return run_script_child(__file__, [str(size), build, str(chunk)], f"{build} {size}")


def main(sizes_kb: list[int], builds: list[str], chunk: int, verbose: bool) -> None:
    from benchmarks.tui_common import exponent

    print(f"load average {os.getloadavg()[0]:.1f} at the start")
    print(f"{'size':>7} {'build':>7} | {'wall s':>7} {'cpu s':>6} {'peak MB':>8} {'idle MB':>8} | "
          f"{'p50 ms':>6} {'p99 ms':>6} {'max ms':>7} | {'p99 step cpu':>12} {'longest step cpu':>16} "
          f"{'full GCs':>8}")
    results: dict[str, list[dict[str, Any]]] = {b: [] for b in builds}
    for kb in sizes_kb:
        for build in builds:
            r = run(kb * 1000, build, chunk)
            results[build].append(r)
            print(f"{kb:>5}KB {build:>7} | {r['wall']:>7.1f} {r['cpu_s']:>6.1f} {r['peak']:>8.0f} "
                  f"{r['rss0']:>8.0f} | "
                  f"{r['p50']:>6.1f} {r['p99']:>6.1f} {r['max']:>7.0f} | {r['p99_step_cpu']:>12.1f} "
                  f"{r['max_step_cpu']:>16.0f} {r['gc_full']:>8}", flush=True)
            if verbose:
                print("        longest steps: " + "\n                       ".join(r["longest"]))
    sizes = [kb * 1000 for kb in sizes_kb]
    for build, rs in results.items():
        if len(rs) > 1:
            print(f"{build}: time exponent {exponent(sizes, [r['wall'] for r in rs]):.2f} (1.0 = linear); "
                  f"peak RSS per KB of reply past the first size "
                  f"{(rs[-1]['peak'] - rs[0]['peak']) / (sizes_kb[-1] - sizes_kb[0]) * 1000:.0f} KB/KB")
    if "ours" in results and "before" in results:
        for kb, o, b in zip(sizes_kb, results["ours"], results["before"], strict=True):
            print(f"{kb} KB: before/ours peak RSS {b['peak'] / o['peak']:.1f}x, "
                  f"wall {b['wall'] / o['wall']:.2f}x")
    if "ours" in results:
        last = results["ours"][-1]
        print(f"ours at {sizes_kb[-1]} KB: {last['peak']:.0f} MB peak (goal <= {GOAL_MB} MB at 1 MB)")


if __name__ == "__main__":
    if sys.argv[1:2] == ["--child"]:
        size, build, chunk = int(sys.argv[2]), sys.argv[3], int(sys.argv[4])
        print(json.dumps(asyncio.run(child(size, build, chunk))))
        sys.exit(0)
    parser = argparse.ArgumentParser()
    parser.add_argument("--sizes", default="100,300,1000")
    parser.add_argument("--builds", default="ours,before",
                        help="ours, before, or one change alone: textual-append, gc-off")
    parser.add_argument("--chunk", type=int, default=16, help="characters per streamed delta")
    parser.add_argument("-v", "--verbose", action="store_true", help="name the five longest loop steps")
    args = parser.parse_args()
    main([int(s) for s in args.sizes.split(",")], args.builds.split(","), args.chunk, args.verbose)
