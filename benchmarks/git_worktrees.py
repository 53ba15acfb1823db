"""What the linked worktrees cost each sandboxed command (findings C17, C11): their HEAD,
index, ORIG_HEAD, reflog and pointers read with the history before and after it
(``shell/sessions/gitworktrees.py``), their checkouts looked at, and one more pin (the
``.git/worktrees`` folder) in the sandbox. A repository with 0 and with N linked worktrees
(default 5, each with a few commits of its own), interleaved in one run: the history's keep
before + compare after a command, and a watched sandboxed ``true`` (sandbox set-up with its
pins, scan before and after, the keep), as run_shell runs it.

    python benchmarks/git_worktrees.py [--worktrees 5] [--runs 20]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import anyio

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from shell.permissions.sandbox import Sandbox
from shell.sessions.checkpoints import Checkpoints
from shell.tools.capture import WorkspaceCapture, watched
from shell.tools.shell_cmd import run_command

GIT_ENV = {**os.environ, "GIT_AUTHOR_NAME": "b", "GIT_AUTHOR_EMAIL": "b@b", "GIT_COMMITTER_NAME": "b",
           "GIT_COMMITTER_EMAIL": "b@b", "GIT_CONFIG_NOSYSTEM": "1"}


def git(cwd: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True, env=GIT_ENV)


def make_repo(base: Path, name: str, worktrees: int) -> Path:
    repo = base / name
    repo.mkdir()
    git(repo, "init", "-q", "-b", "main")
    for i in range(20):
        (repo / f"f{i}.txt").write_text(f"{i}\n")
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "c")
    for w in range(worktrees):
        wt = base / f"{name}-wt{w}"
        git(repo, "worktree", "add", "-q", "--detach", str(wt))
        for c in range(3):
            (wt / "w.txt").write_text(f"{c}\n")
            git(wt, "add", "w.txt")
            git(wt, "commit", "-qm", f"w{c}")
    return repo


def ms(fn: Any) -> float:
    start = time.perf_counter()
    fn()
    return (time.perf_counter() - start) * 1000


async def command(repo: Path, cp: Checkpoints) -> float:
    start = time.perf_counter()
    box, capture = Sandbox(repo), WorkspaceCapture(repo)

    async def run() -> Any:
        return await run_command("true", repo, 30, lambda _: None, sandbox=box)

    await watched(run, "true", cp, capture)
    return (time.perf_counter() - start) * 1000


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--worktrees", type=int, default=5)
    parser.add_argument("--runs", type=int, default=20)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(dir=Path.home(), prefix=".bench-worktrees-") as tmp:
        base = Path(tmp)
        os.environ["AGENT_SHELL_DATA_DIR"] = str(base / "data")
        repos = {0: make_repo(base, "none", 0), args.worktrees: make_repo(base, "some", args.worktrees)}
        cps = {n: Checkpoints(base / f"cp{n}") for n in repos}
        keep: dict[int, list[float]] = {n: [] for n in repos}
        cmd: dict[int, list[float]] = {n: [] for n in repos}
        for _ in range(args.runs):
            for n, repo in repos.items():
                cp = cps[n]
                keep[n].append(ms(lambda: cp.git_after(repo, cp.git_before(repo) or {})))  # noqa: B023
                cmd[n].append(anyio.run(command, repo, cp))
        med = statistics.median
        n = args.worktrees
        print(f"runs: {args.runs}; load: {os.getloadavg()[0]:.1f}")
        print(f"keep + compare per command: 0 worktrees {med(keep[0]):.2f} ms, {n} worktrees "
              f"{med(keep[n]):.2f} ms (ratio {med(keep[n]) / med(keep[0]):.2f})")
        print(f"watched sandboxed true: 0 worktrees {med(cmd[0]):.1f} ms, {n} worktrees {med(cmd[n]):.1f} ms "
              f"(ratio {med(cmd[n]) / med(cmd[0]):.2f})")


if __name__ == "__main__":
    main()
