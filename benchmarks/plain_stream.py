"""The line mode's Markdown stream against the size of what it streams.

A reply streamed in 5-character deltas into ``MarkdownStream`` (rendered to a string
console), as prose with a newline every ~80 characters and as one long line with
none (a hostile or broken model), against printing the same text once through the
same console: the bare baseline. Each delta must cost the same however long the
reply or its current line already is, so the ratio stays flat as the size grows.
CPU time of this process, best of 3.

    python benchmarks/plain_stream.py [--sizes 100000,400000]
"""

from __future__ import annotations

import argparse
import io
import sys
import time
from functools import partial
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from rich.console import Console

from shell.plain_reply import MarkdownStream


def best(fn: object, runs: int = 3) -> float:
    times = []
    for _ in range(runs):
        start = time.process_time()
        fn()  # type: ignore[operator]
        times.append(time.process_time() - start)
    return min(times)


def streamed(text: str) -> None:
    stream = MarkdownStream(Console(file=io.StringIO(), width=100))
    for i in range(0, len(text), 5):
        stream.feed(text[i : i + 5])
    stream.finish()


def printed(text: str) -> None:
    Console(file=io.StringIO(), width=100).print(text, markup=False, highlight=False)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--sizes", default="100000,400000")
    sizes = [int(s) for s in parser.parse_args().sizes.split(",")]
    print(f"{'text':<10} {'size':>8} {'streamed s':>11} {'printed s':>10} {'ratio':>7}")
    for kind in ("prose", "one line"):
        for size in sizes:
            unit = "word " * 15 + "end.\n" if kind == "prose" else "abcde"
            text = (unit * (size // len(unit) + 1))[:size]
            ours, bare = best(partial(streamed, text)), best(partial(printed, text))
            print(f"{kind:<10} {size:>8} {ours:>11.3f} {bare:>10.3f} {ours / bare:>6.1f}x")


if __name__ == "__main__":
    main()
