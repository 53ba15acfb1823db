"""Benchmark: opening a resumed 1,000-message session in the TUI, against a resumed
10-message one, each in its own process (``App.run_test``, 120x40).

Why: a session resumed with ``--continue`` must be usable at once, however long it
is. A real session file is written first (60% Markdown replies of ~600 characters,
30% tool call + result pairs, 10% user messages), then loaded the way ``--resume``
loads it (``ShellRuntime.resume``: the loader, the history, the recorder) and shown
by ``AgentShellApp``. Measured from the app's start:

- ready: the runtime is attached (the prompt sends what is typed);
- shown: the newest message is on screen (the conversation has drawn its tail): the
  figure the targets are about;
- reply: a 5 KB reply streamed after that has ended (what "before the next reply" is).

Targets: the 1,000-message session shown within 1 s, and within 1.5x of the short one.

    python benchmarks/tui_resume.py [--messages 1000] [--rounds 3]
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import tempfile
from pathlib import Path
from time import perf_counter
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.common import in_fresh_process
from benchmarks.long_session import history
from benchmarks.tui_common import markdown_text

SIZE = (120, 40)
REPLY = markdown_text(5000, seed=3)


def write_session(workspace: Path, messages: int) -> str:
    """A real session file of ``messages`` messages (the recorder writes it)."""
    from shell.providers.scripted import ScriptedModel
    from shell.runtime import RuntimeOptions, ShellRuntime

    runtime = ShellRuntime.create(RuntimeOptions(cwd=str(workspace), record=True), model=ScriptedModel([]))
    runtime.agent.messages.extend(history(messages))
    recorder = runtime.recorder()
    recorder.open()
    recorder.sync()
    session = recorder.session_id
    runtime._close_session()
    return session


async def run(messages: int) -> dict[str, float]:
    from shell.providers.scripted import ScriptedModel
    from shell.runtime import RuntimeOptions, ShellRuntime
    from shell.tui.app import AgentShellApp

    workspace = Path(tempfile.mkdtemp())
    session = write_session(workspace, messages)

    def build() -> ShellRuntime:
        runtime = ShellRuntime.create(
            RuntimeOptions(cwd=str(workspace), record=True), model=ScriptedModel([REPLY], chunk_size=5)
        )
        runtime.resume(session)
        return runtime

    t0 = perf_counter()
    app = AgentShellApp(build=build)
    shown = ready = 0.0
    async with app.run_test(size=SIZE) as pilot:
        while not (ready and shown):
            await asyncio.sleep(0.002)
            if not ready and app.ready:
                ready = perf_counter() - t0
            if not shown and _tail_drawn(app):
                shown = perf_counter() - t0
            if perf_counter() - t0 > 60:
                raise RuntimeError("the resumed session never showed its newest message")
        t1 = perf_counter()
        app.main.start_reply("next")
        await asyncio.sleep(0.01)
        while app.busy:  # noqa: ASYNC110 - polling is the measurement
            await asyncio.sleep(0.005)
        reply = perf_counter() - t1
        await pilot.pause()
    return {"shown_s": shown, "ready_s": ready, "reply_s": reply}


def _tail_drawn(app: Any) -> bool:
    """The newest entry's widget is mounted, laid out and inside the visible region."""
    try:
        conversation = app.main.conversation
        widget = conversation.entries[-1].widget if conversation.entries else None
    except Exception:
        return False
    if widget is None or not widget.is_mounted or widget.region.height == 0:
        return False
    return bool(widget.region.overlaps(conversation.region))


def measure(messages: int) -> dict[str, float]:
    return in_fresh_process(run, messages)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--messages", type=int, default=1000)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    runs: dict[int, list[dict[str, float]]] = {10: [], args.messages: []}
    for _ in range(args.rounds):
        for n in runs:
            runs[n].append(measure(n))
    rows = {n: {k: statistics.median(r[k] for r in rs) for k in rs[0]} for n, rs in runs.items()}
    for n, r in rows.items():
        print(f"{n:>5} messages resumed: ready {r['ready_s'] * 1000:.0f} ms, newest shown "
              f"{r['shown_s'] * 1000:.0f} ms, then a 5 KB reply {r['reply_s'] * 1000:.0f} ms")
    small, big = rows[10], rows[args.messages]
    print(f"shown, {args.messages} vs 10 messages: {big['shown_s'] / small['shown_s']:.2f}x "
          f"({big['shown_s']:.2f} s; target <= 1 s); next reply {big['reply_s'] / small['reply_s']:.2f}x")


if __name__ == "__main__":
    main()
