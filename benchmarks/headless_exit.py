"""Headless exit: how soon ``agent-shell -p`` is gone once the reply has ended.

Why: a script that runs ``agent-shell -p`` waits for the process, not for the
answer; whatever the process does after the answer is pure waiting. Two cases:

* **finished**: a scripted model answers a short text; measured from the
  ``ReplyEnd`` line on stdout (``--output-format jsonl``) to the process's exit.
* **cancelled**: a local OpenAI-compatible server floods text deltas
  (``tests/flood.py``); after ``--warmup`` seconds of streaming, SIGINT. Measured:
  SIGINT to the ``ReplyEnd`` line, ``ReplyEnd`` to the exit, and the event lines
  written after the signal (target: none but the ``ReplyEnd``).

Each is run two ways in one invocation, taking turns: **ours** is the console
script (``shell.cli:run``: atexit handlers, flush, out), the **baseline** is the
same ``main()`` followed by ordinary interpreter exit (``sys.exit(main())``: every
module torn down). Medians of ``--runs`` each.

    python benchmarks/headless_exit.py [--runs 9] [--warmup 0.5]
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks.common import LineTimes, clean_env, wait_exit  # noqa: E402
from tests.flood import flood_server  # noqa: E402

TARGET_MS = 20.0
OURS = [sys.executable, "-c", "from shell.cli import run; run()"]
BASELINE = [sys.executable, "-c", "import sys; from shell.cli import main; sys.exit(main())"]
FLOOR = [sys.executable, "-c", "import os; print('{\"type\": \"ReplyEnd\"}', flush=True); os._exit(0)"]
"""The measurement's own floor: a process that prints the line and ends at once."""


@dataclass
class Sample:
    end_to_exit: float
    signal_to_end: float = 0.0
    after: int = 0


def _env(home: Path, **extra: str) -> dict[str, str]:
    return clean_env(home, OLLAMA_HOST="http://127.0.0.1:9", **extra)


def _run(command: list[str], args: list[str], env: dict[str, str], cwd: Path,
         interrupt_after: float | None = None) -> Sample:
    proc = subprocess.Popen([*command, *args], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                            stdin=subprocess.DEVNULL, env=env, cwd=cwd)
    assert proc.stdout is not None
    lines = LineTimes(proc.stdout)
    sent = 0.0
    if interrupt_after is not None:
        lines.wait_for(b"TextBlockDelta", poll=0.005)
        time.sleep(interrupt_after)
        sent = time.perf_counter()
        proc.send_signal(signal.SIGINT)
    exited = wait_exit(proc)
    lines.join()
    end = lines.first(b'"ReplyEnd"')
    if end is None:
        raise RuntimeError(f"no ReplyEnd line from {' '.join(args)}")
    after = lines.after(sent, but=b'"ReplyEnd"') if sent else 0
    return Sample(exited - end, end - sent if sent else 0.0, after)


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--runs", type=int, default=9)
    parser.add_argument("--warmup", type=float, default=0.5)
    args = parser.parse_args()
    home = Path(tempfile.mkdtemp(prefix="exit-bench-"))
    script = home / "turns.json"
    script.write_text(json.dumps(["Hello: a short answer."]))
    finished = ["-p", "hi", "--model", f"scripted:{script}", "--output-format", "jsonl", "--no-session"]
    flood = ["-p", "write forever", "--model", "openai:flood", "--output-format", "jsonl", "--no-session"]
    env = _env(home)
    for command in (OURS, BASELINE):  # warm-up: bytecode caches
        _run(command, finished, env, home)
    results: dict[str, dict[str, list[Sample]]] = {"finished": {"ours": [], "baseline": []},
                                                   "cancelled": {"ours": [], "baseline": []}}
    floor: list[Sample] = []
    for _ in range(args.runs):
        for name, command in (("ours", OURS), ("baseline", BASELINE)):
            results["finished"][name].append(_run(command, finished, env, home))
        floor.append(_run(FLOOR, [], env, home))
    with flood_server() as url:
        flood_env = _env(home, OPENAI_BASE_URL=url, OPENAI_API_KEY="sk-bench-000000000000000000")
        for _ in range(args.runs):
            for name, command in (("ours", OURS), ("baseline", BASELINE)):
                results["cancelled"][name].append(_run(command, flood, flood_env, home, args.warmup))
    load = os.getloadavg()[0]
    print(f"{args.runs} runs each, medians; load average {load:.1f} on {os.cpu_count()} cores")
    floor_ms = statistics.median(s.end_to_exit for s in floor) * 1000
    print(f"    floor: a process that prints the line and exits at once: {floor_ms:.1f} ms")
    for case, by in results.items():
        ours = statistics.median(s.end_to_exit for s in by["ours"]) * 1000
        base = statistics.median(s.end_to_exit for s in by["baseline"]) * 1000
        met = "met" if ours <= TARGET_MS else "NOT met"
        print(f"{case:>9}: ReplyEnd -> exit  ours {ours:6.1f} ms   baseline {base:6.1f} ms "
              f"({base / ours:.1f}x)   target <= {TARGET_MS:.0f} ms: {met}")
        if case == "cancelled":
            to_end = statistics.median(s.signal_to_end for s in by["ours"]) * 1000
            after = sum(s.after for s in by["ours"])
            after_base = sum(s.after for s in by["baseline"])
            print(f"{'':>9}  SIGINT -> ReplyEnd ours {to_end:6.1f} ms; event lines after the SIGINT: "
                  f"ours {after}, baseline {after_base} (target 0)")


if __name__ == "__main__":
    main()
