"""What a permission decision costs: ``PermissionPolicy.decide`` for typical calls.

The budget is 50 µs per decision (a tool call is decided once, before it runs;
the figure matters for parallel batches and for front ends that show "asks" next
to every tool). Measured against two bare baselines in the same run: a dict
lookup and one ``fnmatch.fnmatchcase`` call. Shell commands are timed both
uncached (a new command line each time: the splitter runs) and repeated (the
split is cached), with 30 user rules of every kind in force.

    python benchmarks/permission_rules.py [--n 20000]
"""

from __future__ import annotations

import argparse
import fnmatch
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from shell.permissions.policy import PermissionPolicy
from shell.permissions.rules import parse_rules
from shell.permissions.shellsplit import split_command
from shell.tools.builtin import builtin_tools
from shell.tools.workspace import Workspace

BUDGET_US = 50.0

RULES = {
    "allow": [
        "run_shell(git status:*)", "run_shell(git diff:*)", "run_shell(git log:*)", "run_shell(pytest:*)",
        "run_shell(ruff check:*)", "run_shell(ls*)", "run_shell(cat *)", "run_shell(make test)",
        "read_file(src/**)", "write_file(docs/**)", "edit_file(src/**/*.py)",
        "fetch_url(domain:docs.python.org)", "fetch_url(domain:*.readthedocs.io)", "github__*", "list_dir",
    ],
    "ask": [
        "run_shell(git push:*)", "run_shell(npm publish*)", "write_file(**/*.lock)", "fetch_url(domain:*.io)"
    ],
    "deny": [
        "run_shell(rm -rf*)", "run_shell(sudo *)", "run_shell(curl *)", "run_shell(wget *)",
        "read_file(**/.env)", "read_file(~/.ssh/**)", "write_file(.git/**)",
        "fetch_url(domain:169.254.169.254)",
        "edit_file(**/secrets/**)", "run_shell(dd *)", "run_shell(mkfs*)",
    ],
}


def per_call_us(fn: Callable[[int], Any], n: int) -> float:
    best = float("inf")
    for _ in range(5):
        start = time.perf_counter()
        for i in range(n):
            fn(i)
        best = min(best, (time.perf_counter() - start) / n * 1e6)
    return best


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--n", type=int, default=20000)
    n = parser.parse_args().n
    root = Path(tempfile.mkdtemp())
    (root / "src").mkdir()
    workspace = Workspace(root)
    tools = {t.name: t for t in builtin_tools(workspace)}
    rules, problems = parse_rules(RULES, "user")
    assert not problems, problems
    policy = PermissionPolicy(root, user_rules=rules, load_project=False)
    policy.fence = workspace  # as the runtime wires it: an ask about a path outside says so
    sh, rf, wf, fu = tools["run_shell"], tools["read_file"], tools["write_file"], tools["fetch_url"]

    table = {"run_shell": 1, "read_file": 2}
    baseline_dict = per_call_us(lambda i: table.get("run_shell"), n)
    baseline_fnmatch = per_call_us(lambda i: fnmatch.fnmatchcase("git status --short", "git status*"), n)

    cases: list[tuple[str, Callable[[int], Any]]] = [
        ("shell, repeated line", lambda i: policy.decide(sh, {"command": "git status --short"})),
        ("shell, new line each time",
         lambda i: policy.decide(sh, {"command": f"git diff HEAD~{i} && ls -la"})),
        ("shell, attack chain (new)", lambda i: policy.decide(sh, {"command": f"git status; rm -rf ~/{i}"})),
        ("shell, writes 2 files (new)",  # the write rules judge each file it writes (resolved)
         lambda i: policy.decide(sh, {"command": f"echo {i} > out{i}.txt && cp a.txt b{i}.txt"})),
        ("read_file path", lambda i: policy.decide(rf, {"path": "src/pkg/mod.py"})),
        ("write_file path", lambda i: policy.decide(wf, {"path": "docs/guide/intro.md", "content": "x"})),
        ("write_file outside (asks)", lambda i: policy.decide(wf, {"path": "/tmp/a/b.md", "content": "x"})),
        ("fetch_url domain", lambda i: policy.decide(fu, {"url": "https://docs.python.org/3/library/"})),
    ]
    print(f"baseline: dict lookup {baseline_dict:.3f} µs, fnmatchcase {baseline_fnmatch:.3f} µs")
    print(f"{'decision':30} {'µs':>8} {'x dict':>9} {'x fnmatch':>10}  budget {BUDGET_US:.0f} µs")
    worst = 0.0
    for name, fn in cases:
        if "new" in name:
            split_command.cache_clear()
        us = per_call_us(fn, n)
        worst = max(worst, us)
        print(f"{name:30} {us:8.2f} {us / baseline_dict:9.0f} {us / baseline_fnmatch:10.1f}")
    print(f"worst {worst:.2f} µs: {'within' if worst < BUDGET_US else 'OVER'} the {BUDGET_US:.0f} µs budget")


if __name__ == "__main__":
    main()
