"""A flood of stray MCP answers (answers to ids never sent): what each costs the
message watcher, against the same watcher reading messages as before (``getattr`` of
``root``, which on mcp 2.x goes through pydantic's ``__getattr__`` and the
``AttributeError`` it builds for every message). Turns taken in one run; medians.

Why: a broken or hostile server may send answers nobody waits for as fast as it
writes; each is counted and dropped (:mod:`shell.tools.mcp_watch`), and what that
costs is what the flood costs the event loop beyond the SDK's own parse.

    python benchmarks/mcp_strays.py [--n 100000] [--runs 5]
"""

from __future__ import annotations

import argparse
import logging
import statistics
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def old_unwrap(message: Any) -> Any:
    wrapped = getattr(message, "message", None)
    return getattr(wrapped, "root", wrapped)


def run(messages: list[Any], unwrap: Any) -> float:
    from shell.tools import mcp_watch
    from shell.tools.mcp_listing import LenientListing

    saved, mcp_watch.unwrap = mcp_watch.unwrap, unwrap  # type: ignore[attr-defined]
    try:
        watcher = mcp_watch.Watcher("evil", LenientListing("evil"), lambda what: None)
        start = time.perf_counter()
        for message in messages:
            watcher._passes(message)
        return time.perf_counter() - start
    finally:
        mcp_watch.unwrap = saved  # type: ignore[attr-defined]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--n", type=int, default=100_000)
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    logging.getLogger("mcp").addHandler(logging.NullHandler())
    logging.getLogger("mcp").propagate = False
    from shell.tools.mcp_watch import unwrap
    from shell.tools.mcp_wire import error_answer

    messages = [error_answer(10_000_000 + n, "stray") for n in range(args.n)]
    times: dict[str, list[float]] = {"before": [], "now": []}
    for _ in range(args.runs):
        times["before"].append(run(messages, old_unwrap))
        times["now"].append(run(messages, unwrap))
    before, now = statistics.median(times["before"]), statistics.median(times["now"])
    print(f"{args.n:,} stray answers through the watcher, median of {args.runs}:")
    print(f"  before  {before * 1e3:8.0f} ms  {before / args.n * 1e6:6.2f} us each")
    each = now / args.n * 1e6
    print(f"  now     {now * 1e3:8.0f} ms  {each:6.2f} us each   before/now {before / now:.1f}x")


if __name__ == "__main__":
    main()
