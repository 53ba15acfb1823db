"""MCP progress notifications over streamable HTTP: what agent-shell's client costs a
message over the official SDK's own client.

Why: a server may report progress as fast as it can write (a long indexing run, a
download); each notice passes agent-shell's capped HTTP client, the message watchers
and the progress relay before the SDK's callback. The floor is the SDK's client alone
(``ClientSession`` on ``streamable_http_client``), against the same server process,
in the same run: the SDK server from the tests (``progress`` sends ``n`` notices,
then answers). Runs take turns (raw, ours, raw, ...) after a warm-up; medians.

    python benchmarks/mcp_progress.py [--n 2000] [--runs 5]
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import anyio

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
SERVER = ROOT / "tests" / "tools" / "sdk_mcp_server.py"


async def raw(url: str, n: int) -> float:
    from mcp import ClientSession
    from mcp.client.streamable_http import streamable_http_client

    seen = [0]

    async def progress(done: float, total: float | None, message: str | None = None) -> None:
        seen[0] += 1

    async with streamable_http_client(url) as streams, ClientSession(streams[0], streams[1]) as session:
        await session.initialize()
        started = time.perf_counter()
        await session.call_tool("progress", {"n": n}, progress_callback=progress)
        return time.perf_counter() - started


async def ours(url: str, n: int) -> float:
    from shell.core.messages import ToolCallBlock
    from shell.core.tools import ToolContext
    from shell.tools.mcp import McpManager

    async with McpManager({"sdk": {"type": "http", "url": url}}) as mcp:
        await mcp.wait_settled(60)
        tool = {t.name: t for t in mcp.tools()}["sdk__progress"]
        reports: list[Any] = []

        async def ask(request: Any) -> Any:
            raise AssertionError("nothing asks")

        context = ToolContext(ToolCallBlock("c1", tool.name, {"n": n}), reports.append, ask)
        started = time.perf_counter()
        result = await tool.run({"n": n}, context)
        elapsed = time.perf_counter() - started
        assert not result.is_error, result.text
        return elapsed


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--n", type=int, default=2000)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--profile", action="store_true", help="profile one run of ours")
    args = parser.parse_args()
    sys.path.insert(0, str(ROOT / "tests"))
    from tools.mcp_servers import free_port, wait_listening

    port = free_port()
    proc = subprocess.Popen([sys.executable, str(SERVER), "probe", "--http", str(port)],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    try:
        wait_listening(proc, port, 60, "the SDK server")
        url = f"http://127.0.0.1:{port}/mcp"
        if args.profile:
            import cProfile
            import pstats

            profiler = cProfile.Profile()
            profiler.enable()
            anyio.run(ours, url, args.n)
            profiler.disable()
            pstats.Stats(profiler).sort_stats("tottime").print_stats("shell/|anyio/", 30)
            return
        anyio.run(raw, url, 50)
        anyio.run(ours, url, 50)
        times: dict[str, list[float]] = {"raw": [], "ours": []}
        for _ in range(args.runs):
            times["raw"].append(anyio.run(raw, url, args.n))
            times["ours"].append(anyio.run(ours, url, args.n))
    finally:
        proc.kill()
        proc.wait()
    r, o = statistics.median(times["raw"]), statistics.median(times["ours"])
    print(f"{args.n} progress notices over streamable HTTP, median of {args.runs}:")
    print(f"  SDK client alone: {r * 1000:.0f} ms ({r / args.n * 1e6:.0f} us a notice)")
    print(f"  agent-shell:      {o * 1000:.0f} ms ({o / args.n * 1e6:.0f} us a notice)")
    print(f"  over the SDK:     {(o - r) / args.n * 1e6:+.0f} us a notice, ratio {o / r:.2f}")


if __name__ == "__main__":
    main()
