"""Benchmark: opening the approval dialog, in this thread's CPU time.

A reply's tool call asks (``AskEverything``); the clock starts when the TUI's
approval broker opens the dialog and stops 0.2 s after the dialog is the screen
(its first frames drawn). Every event-loop step in between is timed in thread CPU
(a shared machine's load stretches the wall clock, much less this): printed are the
longest step (what the keyboard waits behind) and the sum of all of them. Each
sample is the whole app under the pilot; ``--against DIR`` runs another checkout
(e.g. ``git archive`` of main before a change, unpacked in DIR), each run in a
fresh process, taking turns with this one.

    python benchmarks/approval_open.py [--runs 4] [--against DIR [--rounds 2]]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import subprocess
import sys
from asyncio import events as asyncio_events
from pathlib import Path
from time import thread_time
from typing import Any

HERE = Path(__file__).resolve().parent.parent
if str(HERE) not in sys.path:
    sys.path.append(str(HERE))  # after a checkout put first (--against's runs)


async def measure(runs: int) -> list[tuple[float, float]]:
    """``runs`` openings: (longest step ms, sum of steps ms), CPU of this thread."""
    from shell.agent import AssistantMessage, ToolCallBlock
    from shell.tui.app import AgentShellApp
    from shell.tui.screens import approval
    from tests.tui.helpers import SIZE, AskEverything, make_agent, send, wait_for

    steps: list[float] = []
    recording = [False]
    run = asyncio_events.Handle._run

    def timed(handle: asyncio_events.Handle) -> None:
        start = thread_time()
        try:
            run(handle)
        finally:
            if recording[0]:
                steps.append((thread_time() - start) * 1000)

    opened = approval.ApprovalBroker._open

    def open_and_start(broker: Any, *args: Any, **kwargs: Any) -> None:
        recording[0] = True
        opened(broker, *args, **kwargs)

    asyncio_events.Handle._run = timed  # type: ignore[method-assign]
    approval.ApprovalBroker._open = open_and_start  # type: ignore[method-assign]
    got: list[tuple[float, float]] = []
    for _ in range(runs):
        call = AssistantMessage((ToolCallBlock("c1", "write_note", {"path": "a.txt", "text": "hello"}),))
        agent, _ = make_agent([call, "done"], middleware=[AskEverything()])
        app = AgentShellApp(agent, model_label="scripted")
        async with app.run_test(size=SIZE) as pilot:
            await pilot.pause(0.5)
            steps.clear()
            await send(pilot, "go")
            await wait_for(pilot, lambda app=app: isinstance(app.screen, approval.ApprovalScreen))
            await pilot.pause(0.2)
            recording[0] = False
            got.append((max(steps), sum(steps)))
            await pilot.press("escape")  # cancels the reply
            await wait_for(pilot, lambda app=app: not app.busy)
    return got


ONE_RUN = """
import asyncio, json, runpy, sys
sys.path.insert(0, {root!r})
import shell
assert shell.__file__.startswith({root!r}), shell.__file__
measure = runpy.run_path({script!r})["measure"]
print(json.dumps(asyncio.run(measure({runs}))))
"""


def _line(name: str, got: list[tuple[float, float]]) -> str:
    longest, total = [g[0] for g in got], [g[1] for g in got]
    return (f"{name:>5}: longest step median {statistics.median(longest):.1f} ms cpu "
            f"({min(longest):.1f}-{max(longest):.1f}), "
            f"all steps median {statistics.median(total):.0f} ms cpu "
            f"({min(total):.0f}-{max(total):.0f}), {len(got)} openings")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=4, help="openings per process")
    parser.add_argument("--against", type=Path, help="another checkout, measured interleaved with this one")
    parser.add_argument("--rounds", type=int, default=2, help="with --against: processes of each")
    args = parser.parse_args()
    if not args.against:
        print(_line("ours", asyncio.run(measure(args.runs))))
        return
    results: dict[str, list[tuple[float, float]]] = {"base": [], "ours": []}
    for _ in range(args.rounds):
        for name, root in (("base", args.against.resolve()), ("ours", HERE)):
            code = ONE_RUN.format(root=str(root), script=__file__, runs=args.runs)
            done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=str(root),
                                  check=True)
            results[name] += [tuple(x) for x in json.loads(done.stdout.strip().splitlines()[-1])]
    for name, got in results.items():
        print(_line(name, got))


if __name__ == "__main__":
    main()
