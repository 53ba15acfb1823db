"""What the run_shell sandbox adds to a command: ``bash -c true`` bare vs in bubblewrap.

Both go through ``shell.tools.shell_cmd.run_command`` (the same spawn, pipe reading
and exit polling run_shell uses), alternating bare and sandboxed runs so that load
on the machine hits both alike. The sandboxed run includes everything a real call
pays: building the bwrap command line (which looks up the paths to hide), the
scrubbed environment, the namespaces, the mounts. The promise (README): under 30 ms
per command. Also shown: the raw ``bwrap ... true`` spawn with no Python around it.

    python benchmarks/sandbox_overhead.py [--runs 40]
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import anyio
import anyio.to_thread

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from shell.permissions.sandbox import Sandbox, sandbox_status
from shell.tools.shell_cmd import run_command

BUDGET_MS = 30.0


async def timed(workspace: Path, sandbox: Sandbox | None) -> float:
    started = time.perf_counter()
    result = await run_command("true", workspace, 30, lambda _: None, sandbox=sandbox)
    elapsed = time.perf_counter() - started
    assert result.details["exit_code"] == 0, result.text
    assert result.details["sandboxed"] is (sandbox is not None), result.details
    return elapsed * 1000


def spawn_times(argv: list[str], box: Sandbox, runs: int) -> list[float]:
    times = []
    for _ in range(runs):
        started = time.perf_counter()
        subprocess.run(argv, check=True, env=box.environment())
        times.append((time.perf_counter() - started) * 1000)
    return times


async def main(runs: int) -> int:
    status = sandbox_status()
    if not status.available:
        print(f"no sandbox here: {status.notice()}")
        return 1
    with tempfile.TemporaryDirectory() as tmp:
        workspace = Path(tmp)
        box = Sandbox(workspace)
        bare: list[float] = []
        boxed: list[float] = []
        for _ in range(3):  # warm up: imports, the first probe, the page cache
            await timed(workspace, None)
            await timed(workspace, box)
        for _ in range(runs):
            bare.append(await timed(workspace, None))
            boxed.append(await timed(workspace, box))
        raw = await anyio.to_thread.run_sync(spawn_times, box.wrap(["bash", "-c", "true"]), box, runs)
    b, s, r = statistics.median(bare), statistics.median(boxed), statistics.median(raw)
    added = s - b
    print(f"bash -c true through run_command, {runs} runs each, medians:")
    print(f"  bare       {b:7.2f} ms")
    print(f"  sandboxed  {s:7.2f} ms   (x{s / b:.2f})")
    verdict = "ok" if added < BUDGET_MS else "OVER"
    print(f"  added      {added:7.2f} ms   (budget {BUDGET_MS:.0f} ms: {verdict})")
    print(f"  raw bwrap spawn, no Python around it: {r:.2f} ms")
    return 0 if added < BUDGET_MS else 1


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--runs", type=int, default=40)
    sys.exit(anyio.run(main, parser.parse_args().runs))
