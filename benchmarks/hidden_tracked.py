"""What showing git's staged copies in a read-denied folder costs each sandboxed command.

With ``deny read_file(config/secrets/**)`` the sandbox shows, in place of the folder, a
folder of ours built from the index (:meth:`shell.permissions.gitstaged.StagedCopies.tree`),
so that git in the sandbox does not take the tracked files for deleted (finding M8).
Measured for 0, 10 and 1,000 tracked files in that folder (``--counts``):

- ``cold``: the first command (every blob read in one ``cat-file --batch``, the folder
  of links built) - once per new set of staged files;
- ``index changed``: a command after git rewrote the index (``git status`` does, so most
  commands after a git command): ``ls-files`` again, the same folder reused;
- ``unchanged``: a command with the index as it was (no git at all);
- ``no rule``: the same workspace and command without the deny rule (the folder shown
  as is): the baseline.

Each is ``bash -c true`` through run_shell's own ``run_command`` (bubblewrap, the
secret-file search, the checks after), median wall milliseconds over ``--runs``, the
kinds interleaved so load hits all alike; and the staged-tree step alone (median wall
milliseconds of 5, git included), which is what the feature adds.

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

import anyio

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from shell.permissions.gitstaged import StagedCopies
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


def touch_index(root: Path) -> None:
    index = root / ".git" / "index"
    st = index.stat()
    os.utime(index, ns=(st.st_atime_ns, st.st_mtime_ns + 1_000_000))


def tree_ms(secrets: Path, root: Path, repeats: int) -> tuple[float, float, float]:
    """The staged-tree step alone, wall time (git runs in child processes): cold (a
    fresh store), index changed, unchanged."""
    cold, changed, same = [], [], []
    for _ in range(repeats):
        staged = StagedCopies()
        start = time.perf_counter()
        made = staged.tree(secrets)
        cold.append(time.perf_counter() - start)
        assert not made.problem, made.problem
        touch_index(root)
        start = time.perf_counter()
        staged.tree(secrets)
        changed.append(time.perf_counter() - start)
        start = time.perf_counter()
        staged.tree(secrets)
        same.append(time.perf_counter() - start)
    return tuple(statistics.median(x) * 1000 for x in (cold, changed, same))  # type: ignore[return-value]


async def main(runs: int, counts: list[int]) -> int:
    status = sandbox_status()
    if not status.available:
        print(f"bubblewrap is not available: {status.notice()}")
        return 1
    base = Path(tempfile.mkdtemp(prefix=".agent-shell-bench-tracked-", dir=Path.home() / ".cache"))
    try:
        print(f"{'tracked':>8} {'cold':>8} {'idx chg':>8} {'unchgd':>8} {'no rule':>8}   "
              f"tree step alone, ms: cold / idx chg / unchgd   (command: median wall ms, {runs} runs)")
        for count in counts:
            root = base / f"ws{count}"
            root.mkdir()
            secrets = make_repo(root, count)
            cold = [await command_ms(box_for(root, secrets)) for _ in range(3)]  # a new store each time
            ruled, plain = box_for(root, secrets), box_for(root, None)
            await command_ms(ruled)
            await command_ms(plain)
            changed, same, none = [], [], []
            for _ in range(runs):
                touch_index(root)
                changed.append(await command_ms(ruled))
                same.append(await command_ms(ruled))
                none.append(await command_ms(plain))
            step = tree_ms(secrets, root, 5)
            print(f"{count:>8,} {statistics.median(cold):>8.1f} {statistics.median(changed):>8.1f} "
                  f"{statistics.median(same):>8.1f} {statistics.median(none):>8.1f}   "
                  f"{step[0]:.1f} / {step[1]:.2f} / {step[2]:.3f}")
    finally:
        shutil.rmtree(base, ignore_errors=True)
    return 0


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--runs", type=int, default=15)
    parser.add_argument("--counts", default="0,10,1000")
    args = parser.parse_args()
    sys.exit(anyio.run(main, args.runs, [int(c) for c in args.counts.split(",")]))
