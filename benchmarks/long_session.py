"""Benchmark: the next reply in a 10,000-message session against the same reply in
a 10-message one, through everything a front end uses (``ShellRuntime.reply``:
the agent loop, the default middleware, the context meter, the session recorder
writing to disk, secrets redaction), each size in its own process.

Why: a session that has run all day must answer as fast as a new one. What may
grow with the history is the work done per reply: copies of the history, token
estimates, redaction, the context meter, the recorder, building the request. The
reply is a scripted model (no network) streaming ~3 KB in 5-character deltas, then
calling a read-only tool, then answering; the history is 60% replies of ~600
characters, 30% tool call + result pairs, 10% user messages. The history is
loaded as a resumed session would be (written to the session file first).

Reported: for each size, the median over 3 processes (taken in turns) of the median
of 7 replies (after one warm-up), wall and CPU time (CPU time does not count other
work on a shared machine; wall time includes the recorder's fsyncs), the ratio
(target <= 1.2), and resident memory after the replies (target <= 150 MB at 10,000).

    python benchmarks/long_session.py [--messages 10000] [--replies 7] [--rounds 3]
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import tempfile
from pathlib import Path
from time import perf_counter, process_time
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.common import in_fresh_process
from benchmarks.tui_common import markdown_text

REPLY = markdown_text(3000, seed=5)


def _rss_mb() -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


def history(n: int) -> list[Any]:
    from shell.core.messages import AssistantMessage, TextBlock, ToolCallBlock, ToolResultMessage, UserMessage

    out: list[Any] = []
    i = 0
    while len(out) < n:
        r = i % 10
        if r == 0 or not out:
            out.append(UserMessage(f"question {i}: what does module {i} do?"))
        elif r in (3, 6, 9):
            call = ToolCallBlock(f"call{i}", "read_file", {"path": f"src/mod{i}.py"})
            out.append(AssistantMessage((TextBlock("Let me look."), call)))
            out.append(ToolResultMessage(f"call{i}", "read_file", "x = 1\n" * 20))
        else:
            out.append(AssistantMessage((TextBlock(markdown_text(600, seed=i)),)))
        i += 1
    return out[:n]


async def run(messages: int, replies: int) -> dict[str, float]:
    from shell.core.messages import AssistantMessage, ToolCallBlock
    from shell.providers.scripted import ScriptedModel
    from shell.runtime import RuntimeOptions, ShellRuntime

    workspace = Path(tempfile.mkdtemp())
    (workspace / "notes.txt").write_text("hello\n")
    turns: list[Any] = []
    for _ in range(replies + 1):
        turns.append(AssistantMessage((ToolCallBlock("c", "read_file", {"path": "notes.txt"}),)))
        turns.append(REPLY)
    model = ScriptedModel(turns, chunk_size=5)
    runtime = ShellRuntime.create(RuntimeOptions(cwd=str(workspace), record=True), model=model)
    runtime.agent.messages.extend(history(messages))
    times, cpu = [], []
    async with runtime.running():
        for k in range(replies + 1):
            t0, c0 = perf_counter(), process_time()
            async for _event in runtime.reply(f"next {k}"):
                pass
            if k:
                times.append(perf_counter() - t0)
                cpu.append(process_time() - c0)
            else:  # a warm-up: the session file is created, the history written and then
                # indexed for search, as a resumed session's already is (in the background
                # that would overlap the replies measured)
                await asyncio.sleep(0.5)
                recorder = runtime.session_recorder
                assert recorder is not None
                await asyncio.to_thread(runtime.search_index.refresh, recorder.session_id)
    return {"reply_s": statistics.median(times), "cpu_s": statistics.median(cpu), "rss_mb": _rss_mb()}


def measure(messages: int, replies: int) -> dict[str, float]:
    return in_fresh_process(run, messages, replies)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--messages", type=int, default=10_000)
    parser.add_argument("--replies", type=int, default=7)
    parser.add_argument("--rounds", type=int, default=3, help="processes per size, taken in turns")
    args = parser.parse_args()
    runs: dict[int, list[dict[str, float]]] = {10: [], args.messages: []}
    for _ in range(args.rounds):  # in turns, so a busy moment of a shared machine hits both
        for n in runs:
            runs[n].append(measure(n, args.replies))
    rows = {n: {k: statistics.median(r[k] for r in rs) for k in rs[0]} for n, rs in runs.items()}
    for n, r in rows.items():
        print(f"{n:>6} messages: next reply {r['reply_s'] * 1000:.1f} ms wall, "
              f"{r['cpu_s'] * 1000:.1f} ms cpu, rss {r['rss_mb']:.0f} MB")
    small, big = rows[10], rows[args.messages]
    print(f"next reply, {args.messages} vs 10 messages: {big['reply_s'] / small['reply_s']:.2f}x wall, "
          f"{big['cpu_s'] / small['cpu_s']:.2f}x cpu (target <= 1.2); "
          f"memory at {args.messages}: {big['rss_mb']:.0f} MB (target <= 150)")


if __name__ == "__main__":
    main()
