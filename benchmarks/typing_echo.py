"""Benchmark: how late a typed key shows while a reply floods, in a real terminal.

``cancel_latency --parts tty`` types one key per run; a late echo that comes now and
then (a frame's changes lost, a key waiting for the prompt's next repaint) needs many
keys to be seen. Here the console script runs in a pty (``benchmarks/terminal_app.py``:
Textual's real driver, its input and writer threads) against the flood server
(``tests/flood.py``); after a second of streaming, ``--keys`` distinct characters are
typed ``--gap`` seconds apart, each timed from its byte written to the pty to the app
writing it back (the prompt's echo). Builds (``--roots``: checkouts, this one by
default) take turns, ``--rounds`` runs each; the medians, tails and the count of echoes
over a second are printed per build over all their keys.

    python benchmarks/typing_echo.py --roots /tmp/main,. [--rounds 5] [--keys 20]
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks.common import clean_env  # noqa: E402
from benchmarks.terminal_app import TtyApp  # noqa: E402
from tests.flood import flood_server  # noqa: E402

KEYS = "¤¥¦§©ª«®°±²³µ¶·¹º»¼½¾¿ÀÁÂÃÄÅÆÇÈÉÊËÌÍÎÏ"
"""Characters neither the flood nor the screen around the prompt holds, one per key."""


def one_run(root: Path, url: str, keys: int, gap: float) -> list[float]:
    """Echo latencies (seconds) of ``keys`` keys typed during one flood."""
    home = Path(tempfile.mkdtemp(prefix="typing-echo-"))
    env = clean_env(home, OPENAI_BASE_URL=url, OPENAI_API_KEY="sk-bench-000000000000000000",
                    OLLAMA_HOST="http://127.0.0.1:9", HOME=str(home), PYTHONPATH=str(root))
    app = TtyApp(["--model", "openai:flood"], env, cwd=str(home))
    try:
        if app.wait_for(b"ready") is None:
            raise SystemExit(f"{root}: the TUI did not get ready in 60 s")
        mark = app.written
        app.type(b"write forever\r")
        if app.wait_for(b"flood flood", mark) is None:
            raise SystemExit(f"{root}: the reply did not start in 60 s")
        time.sleep(1.0)
        late: list[float] = []
        for char in KEYS[:keys]:
            mark = app.written
            typed = app.type(char.encode())
            echoed = app.wait_for(char.encode(), mark, timeout=20)
            late.append(echoed - typed if echoed is not None else float("inf"))
            time.sleep(max(0.0, gap - (time.perf_counter() - typed)))
        return late
    finally:
        app.close()


def summary(late: list[float]) -> str:
    ms = sorted(x * 1000 for x in late)
    n = len(ms)
    over = sum(x > 1000 for x in ms)
    return (f"{n} keys: median {statistics.median(ms):.0f} ms, p90 {ms[int(n * 0.9)]:.0f}, "
            f"p99 {ms[min(n - 1, int(n * 0.99))]:.0f}, max {ms[-1]:.0f}; over 1 s: {over}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--roots", default=str(ROOT), help="checkouts, comma-separated, taking turns")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--keys", type=int, default=20)
    parser.add_argument("--gap", type=float, default=0.2, help="seconds from one key to the next")
    args = parser.parse_args()
    roots = [Path(r).resolve() for r in args.roots.split(",")]
    keys = min(args.keys, len(KEYS))
    got: dict[Path, list[float]] = {root: [] for root in roots}
    with flood_server(0.0, "paragraphs") as url:
        for _ in range(args.rounds):
            for root in roots:
                late = one_run(root, url, keys, args.gap)
                got[root].extend(late)
                print(f"{root!s:>30}  load {os.getloadavg()[0]:4.1f}  {summary(late)}", flush=True)
    print("all rounds:")
    for root, late in got.items():
        print(f"{root!s:>30}  {summary(late)}")


if __name__ == "__main__":
    main()
