"""What reading git configs through git (``shell/permissions/gitconfigfile.py``) costs
over the old line-by-line reading.

A new repository's config is judged by the keys ``git config --file X --list --null``
prints (one git per config, remembered until the file changes). Times, interleaved in
one run: one config listed by git (cold), the same from the cache, the pure-Python
line reader; and a sandboxed command that makes ``--repos`` new repositories
(``git init`` each, every config judged after it), with configs read by git and
with the line reader (git looked up as missing), as a ratio under the same load.

    python benchmarks/git_config_read.py [--repos 20] [--runs 5]
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import anyio

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from shell.permissions import gitconfigfile
from shell.permissions.sandbox import Sandbox
from shell.tools.shell_cmd import run_command


def per_config(config: Path, runs: int) -> tuple[float, float, float]:
    cold, warm, line = [], [], []
    for _ in range(runs):
        gitconfigfile._KNOWN.clear()
        t = time.perf_counter()
        gitconfigfile.entries(config)
        cold.append(time.perf_counter() - t)
        t = time.perf_counter()
        gitconfigfile.entries(config)
        warm.append(time.perf_counter() - t)
        t = time.perf_counter()
        gitconfigfile.fallback_entries(config)
        line.append(time.perf_counter() - t)
    return statistics.median(cold), statistics.median(warm), statistics.median(line)


def command(ws: Path, repos: int) -> float:
    shutil.rmtree(ws, ignore_errors=True)
    ws.mkdir()
    box = Sandbox(ws)
    script = f"for i in $(seq {repos}); do git init -q r$i; done"
    t = time.perf_counter()
    anyio.run(lambda: run_command(script, box.workspace, 120, lambda _: None, sandbox=box))
    return time.perf_counter() - t


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repos", type=int, default=20)
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    base = Path(tempfile.mkdtemp(prefix=".bench-gitconfig-", dir=Path.home()))
    try:
        subprocess.run(["git", "init", "-q", str(base / "one")], check=True)
        cold, warm, line = per_config(base / "one" / ".git" / "config", args.runs * 10)
        print(f"one config: git {cold * 1e3:.2f} ms, cached {warm * 1e3:.3f} ms, "
              f"line reader {line * 1e3:.3f} ms")
        real_which = gitconfigfile.which
        by_git, by_line = [], []
        for _ in range(args.runs):
            gitconfigfile.which = real_which
            by_git.append(command(base / "ws", args.repos))
            gitconfigfile.which = lambda _name: None  # type: ignore[assignment]
            by_line.append(command(base / "ws", args.repos))
        gitconfigfile.which = real_which
        g, n = statistics.median(by_git), statistics.median(by_line)
        print(f"command making {args.repos} repositories: configs by git {g * 1e3:.0f} ms, "
              f"by line reader {n * 1e3:.0f} ms, ratio {g / n:.2f}")
    finally:
        shutil.rmtree(base, ignore_errors=True)


if __name__ == "__main__":
    main()
