"""What the git allow-list and the history check (``shell/permissions/gitquiet.py``,
``githistory.held_denied``) add to a git command while a deny rule on reading is in force.

A repository of ``--commits`` commits whose ``secrets/`` was committed once, then
untracked (finding Q9, P1 #14). Times: deciding whether a command may print history (a
parse, every git command), and whether git holds the denied path, the first time for a
state of the refs (a ``git log --all --reflog`` walk) and then cached (``stat`` calls).

    python benchmarks/git_history_held.py [--commits 1000] [--runs 200]
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from functools import partial
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from shell.permissions.githistory import held_denied, history_reader

ENV = {**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@t", "GIT_COMMITTER_NAME": "t",
       "GIT_COMMITTER_EMAIL": "t@t", "GIT_CONFIG_NOSYSTEM": "1"}


def _per_call_ms(fn: Callable[[], object], runs: int) -> float:
    start = time.perf_counter()
    for _ in range(runs):
        fn()
    return (time.perf_counter() - start) / runs * 1e3


def _next_reader(lines: Iterator[str], root: Path) -> str:
    return history_reader(next(lines), root)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--commits", type=int, default=1000)
    parser.add_argument("--runs", type=int, default=200)
    args = parser.parse_args()
    root = Path(tempfile.mkdtemp(prefix="githeld-"))

    def git(*words: str) -> None:
        subprocess.run(["git", *words], cwd=root, check=True, capture_output=True, env=ENV)

    git("init", "-q")
    (root / "secrets").mkdir()
    (root / "secrets" / "plan.txt").write_text("plan\n")
    git("add", "-A")
    git("commit", "-qm", "secret")
    git("rm", "-rq", "--cached", "secrets")
    for i in range(args.commits):
        (root / "f.txt").write_text(f"{i}\n")
        git("add", "f.txt")
        git("commit", "-qm", str(i))
    denied = [root / "secrets"]
    commands = ("git status -- f{}", "git log -U{}", "git commit -qm m{}", "git checkout -q b{}")
    for command in commands:  # a new line each time: parses are cached
        lines = iter([command.format(i) for i in range(args.runs)])
        cost = _per_call_ms(partial(_next_reader, lines, root), args.runs)
        print(f"history_reader({command!r}): {cost:.3f} ms")
    print(f"held_denied, first for this state: {_per_call_ms(lambda: held_denied(denied), 1):.1f} ms")
    print(f"held_denied, cached: {_per_call_ms(lambda: held_denied(denied), args.runs):.3f} ms "
          f"(held: {held_denied(denied) == denied})")


if __name__ == "__main__":
    main()
