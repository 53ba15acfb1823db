"""What deciding a call off the event loop costs: ``PermissionPolicy.decide`` inline
against the gate's hop to a worker thread (:func:`middleware.human_in_the_loop.checked`),
for ordinary calls (a ``read_file`` inside the workspace, a ``run_shell`` an allow rule
names, one the mode asks about), in one run; and the hop inside the gate's
``checking_said`` (the timer that says "checking permission…" on a call whose check
runs past half a second: a task group per check), the "said µs" column.

The hop is what keeps a slow check (finding T5) from freezing the screen and Esc; its
price is paid once per tool call. Figures are wall-clock microseconds per call (the hop
is a wait for another thread, which CPU time would not show), each the least disturbed
(lowest) of ``--rounds`` samples of ``--n`` calls, interleaved; the median beside it.

    python benchmarks/policy_hop.py [--n 2000] [--rounds 7]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import anyio

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from types import SimpleNamespace

from middleware.human_in_the_loop import checked, checking_said
from shell.permissions.policy import PermissionPolicy
from shell.permissions.rules import parse_rules
from shell.tools.builtin import builtin_tools
from shell.tools.workspace import Workspace

CALLS = [
    ("read_file", {"path": "src/app.py"}),
    ("run_shell", {"command": "git status --short"}),
    ("run_shell", {"command": "python3 -m pytest -q tests/test_app.py"}),
]


async def per_call(step: Callable[[], Awaitable[Any]], n: int) -> float:
    start = time.perf_counter()
    for _ in range(n):
        await step()
    return (time.perf_counter() - start) / n * 1e6


async def measure(n: int, rounds: int) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "ws"
        (root / "src").mkdir(parents=True)
        (root / "src" / "app.py").write_text("print('hi')\n")
        rules, _ = parse_rules({"allow": ["run_shell(git status:*)", "read_file(src/**)"]}, "user")
        policy = PermissionPolicy(root, user_rules=rules, load_project=False)
        tools = {t.name: t for t in builtin_tools(Workspace(root))}
        print(f"{'call':<52} {'inline µs':>10} {'hopped µs':>10} {'hop µs':>8} {'ratio':>6} {'said µs':>8}")
        ctx: Any = SimpleNamespace(call=SimpleNamespace(id="c1"), emit=lambda event: None)
        for name, args in CALLS:
            tool = tools[name]

            async def inline(tool: Any = tool, args: Any = args) -> Any:
                return policy.decide(tool, args)

            async def hopped(tool: Any = tool, args: Any = args) -> Any:
                return await checked(policy, tool, args)

            async def said(tool: Any = tool, args: Any = args) -> Any:
                async with checking_said(ctx):
                    return await checked(policy, tool, args)

            assert (await inline()) == (await hopped()) == (await said())
            a: list[float] = []
            b: list[float] = []
            c: list[float] = []
            for _ in range(rounds):
                a.append(await per_call(inline, n))
                b.append(await per_call(hopped, n))
                c.append(await per_call(said, n))
            low_a, low_b, low_c = min(a), min(b), min(c)
            label = f"{name} {next(iter(args.values()))}"[:52]
            print(f"{label:<52} {low_a:>10.1f} {low_b:>10.1f} {low_b - low_a:>8.1f} {low_b / low_a:>6.2f}"
                  f" {low_c:>8.1f}   (medians {statistics.median(a):.1f} / {statistics.median(b):.1f}"
                  f" / {statistics.median(c):.1f})")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=2000)
    parser.add_argument("--rounds", type=int, default=7)
    options = parser.parse_args()
    anyio.run(measure, options.n, options.rounds)


if __name__ == "__main__":
    main()
