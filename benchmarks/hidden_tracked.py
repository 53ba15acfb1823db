"""What marking a read-denied folder's tracked files skip-worktree costs each sandboxed command.

With ``deny read_file(config/secrets/**)`` the sandbox hides the folder as an empty one
and marks what git tracks there skip-worktree in the index for the command's length
(:mod:`shell.permissions.gitmarks`), so that no git in the sandbox takes those files for
deleted (findings M8, P10). Measured for 0, 10 and 1,000 tracked files there (``--counts``):

- ``rule``: ``bash -c true`` through run_shell's own ``run_command`` (bubblewrap, the
  secret-file search, the marks set and cleared, the checks after) with the rule;
- ``no rule``: the same workspace and command without the rule: the baseline;

median wall milliseconds over ``--runs``, interleaved so load hits both alike; and the
mark-and-clear step alone (``gitmarks.mark`` then ``unmark``, median of 5, git included),
which is what the feature adds, and how many gits that step starts once warm.

    python benchmarks/hidden_tracked.py [--runs 15] [--counts 0,10,1000]
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import anyio

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from shell.permissions import githardened, gitmarks
from shell.permissions.sandbox import Sandbox
from shell.permissions.sandboxprobe import sandbox_status
from shell.tools.shell_cmd import run_command

GIT_ENV = {"GIT_AUTHOR_NAME": "b", "GIT_AUTHOR_EMAIL": "b@b", "GIT_COMMITTER_NAME": "b",
           "GIT_COMMITTER_EMAIL": "b@b", "GIT_CONFIG_NOSYSTEM": "1"}


def git(cwd: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True, env={**os.environ, **GIT_ENV})


def make_repo(root: Path, tracked: int) -> Path:
    """A repository with ``tracked`` files of ~200 bytes in config/secrets (in folders of
    100), one untracked file there, and a README."""
    secrets = root / "config" / "secrets"
    secrets.mkdir(parents=True)
    for i in range(tracked):
        folder = secrets / f"part{i // 100}"
        folder.mkdir(exist_ok=True)
        (folder / f"f{i}.txt").write_text(f"value {i} = " + "x" * 190 + "\n")
    (root / "README.md").write_text("hello\n")
    git(root, "init", "-q")
    git(root, "add", "README.md", *([str(secrets)] if tracked else []))
    git(root, "commit", "-qm", "start")
    (secrets / "untracked.txt").write_text("local\n")
    return secrets


def box_for(root: Path, secrets: Path | None) -> Sandbox:
    box = Sandbox(root)
    if secrets is not None:
        box.denied_reads = lambda: [secrets]
    return box


async def command_ms(box: Sandbox) -> float:
    start = time.perf_counter()
    result = await run_command("true", box.workspace, 60, lambda _: None, sandbox=box)
    took = (time.perf_counter() - start) * 1000
    assert "[exit code 0]" in result.text, result.text
    return took


def mark_ms(secrets: Path, repeats: int) -> tuple[float, float]:
    """The mark-and-clear step alone, wall time (git runs in child processes), and the
    gits it starts each time (the steady state: the first one is not counted)."""
    took, runs = [], [0]
    real = githardened.run

    def counted(*args: Any, **kwargs: Any) -> Any:
        runs[0] += 1
        return real(*args, **kwargs)

    for i in range(repeats + 1):
        githardened.run, runs[0] = counted, 0
        start = time.perf_counter()
        try:
            marks, problem = gitmarks.mark([secrets])
            assert not problem, problem
            assert not gitmarks.unmark(marks)
        finally:
            githardened.run = real
        if i:
            took.append(time.perf_counter() - start)
    return statistics.median(took) * 1000, runs[0]


async def main(runs: int, counts: list[int]) -> int:
    status = sandbox_status()
    if not status.available:
        print(f"bubblewrap is not available: {status.notice()}")
        return 1
    base = Path(tempfile.mkdtemp(prefix=".agent-shell-bench-tracked-", dir=Path.home() / ".cache"))
    try:
        print(f"{'tracked':>8} {'rule':>8} {'no rule':>8}   mark+clear alone   "
              f"(command: median wall ms, {runs} runs)")
        for count in counts:
            root = base / f"ws{count}"
            root.mkdir()
            secrets = make_repo(root, count)
            ruled, plain = box_for(root, secrets), box_for(root, None)
            await command_ms(ruled)
            await command_ms(plain)
            rule, none = [], []
            for _ in range(runs):
                rule.append(await command_ms(ruled))
                none.append(await command_ms(plain))
            step, gits = mark_ms(secrets, 5)
            print(f"{count:>8,} {statistics.median(rule):>8.1f} {statistics.median(none):>8.1f}   "
                  f"{step:.1f} ms, {gits:g} gits")
    finally:
        shutil.rmtree(base, ignore_errors=True)
    return 0


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--runs", type=int, default=15)
    parser.add_argument("--counts", default="0,10,1000")
    args = parser.parse_args()
    sys.exit(anyio.run(main, args.runs, [int(c) for c in args.counts.split(",")]))
