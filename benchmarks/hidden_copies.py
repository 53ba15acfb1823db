"""What many hidden secret files cost a sandboxed command (after finding N6).

VS Code's Local History keeps every saved version of every file in the workspace's
``.history/``: a ``.env`` saved 300 times is 300 dated copies, each secret-looking now
(``.env_20261129101500``), and each one hidden by a bind of its own. Shown: ``true``
through ``run_command`` in the sandbox of three workspaces alike but for how many dated
copies their ``.history/`` holds (``--copies``, default 0, 100 and 300), taking turns;
median wall milliseconds, and each against the one with none.

    python benchmarks/hidden_copies.py [--copies 0 100 300] [--rounds 7]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from contextlib import ExitStack
from pathlib import Path

import anyio

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from shell.permissions.sandbox import Sandbox
from shell.tools.shell_cmd import run_command


async def command_ms(box: Sandbox) -> float:
    started = time.perf_counter()
    result = await run_command("true", box.workspace, 30, lambda _: None, sandbox=box)
    elapsed = (time.perf_counter() - started) * 1000
    assert result.details["exit_code"] == 0, result.text
    return elapsed


async def main(counts: list[int], rounds: int) -> int:
    with ExitStack() as stack:
        boxes: dict[int, Sandbox] = {}
        for count in counts:
            root = Path(stack.enter_context(tempfile.TemporaryDirectory(dir=Path.home())))
            (root / ".history").mkdir()
            for n in range(count):
                (root / ".history" / f".env_20261129{n:06d}").write_text("K=1\n")
            boxes[count] = Sandbox(root)
        await anyio.sleep(0.2)  # listings of folders changed within 0.1 s are not kept
        for box in boxes.values():  # warm up: the probe, each box's first search
            await command_ms(box)
        times: dict[int, list[float]] = {count: [] for count in counts}
        for _ in range(rounds):
            for count, box in boxes.items():
                times[count].append(await command_ms(box))
    base = statistics.median(times[counts[0]])
    for count in counts:
        median = statistics.median(times[count])
        print(f"  {count:5} dated .env copies: true in sandbox {median:8.2f} ms  (x{median / base:.2f})")
    return 0


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--copies", type=int, nargs="+", default=[0, 100, 300])
    parser.add_argument("--rounds", type=int, default=7)
    args = parser.parse_args()
    sys.exit(anyio.run(main, args.copies, args.rounds))
