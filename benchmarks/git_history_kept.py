"""What keeping the repository's history before each command (``shell/sessions/gitkeep.py``,
finding U14) adds to a sandboxed command, in a repository with many loose objects
(default 10,000) and one big pack (default 100 MB).

Times, interleaved in one run: the first keep of a session (every object and pack
hard-linked into the checkpoints), the keep before a command and the compare after
it when nothing changed (what every later command pays), the same after a commit
(new objects and a moved ref: a new ``git`` record); and ``bash -c true`` watched
as run_shell watches it (scan before and after, checkpoint record), with the
history kept and without (a checkpoint log that does not keep it), so the keep's
share of a real call shows as a ratio under the same load. Last, the choice between
copying (the sandbox cannot change a copy) and linking with a check at ``/rewind``:
a copy of every object, against the rewind after ``rm -rf .git/objects`` that hashes
each one and indexes the pack anew (``shell/sessions/gitverified.py``).

    python benchmarks/git_history_kept.py [--objects 10000] [--pack-mb 100] [--runs 20]
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

from shell.permissions.sandbox import Sandbox
from shell.sessions import gitkeep
from shell.sessions.checkpoints import Checkpoints
from shell.tools.capture import WorkspaceCapture, watched
from shell.tools.shell_cmd import run_command


class NoHistory:
    """The checkpoints as they were before: files and commands, not the history."""

    def __init__(self, cp: Checkpoints) -> None:
        self.before_write, self.after_write, self.shell_ran = cp.before_write, cp.after_write, cp.shell_ran


def make_repo(base: Path, count: int, pack_mb: int) -> Path:
    repo = base / "repo"
    git = ["git", "-C", str(repo)]
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    subprocess.run([*git, "config", "user.email", "b@b"], check=True)
    subprocess.run([*git, "config", "user.name", "b"], check=True)
    (repo / "big.bin").write_bytes(os.urandom(pack_mb * 1024 * 1024))
    subprocess.run([*git, "add", "big.bin"], check=True)
    subprocess.run([*git, "commit", "-qm", "big"], check=True)
    subprocess.run([*git, "repack", "-qad"], check=True)
    (repo / "big.bin").unlink()
    subprocess.run([*git, "commit", "-qam", "gone"], check=True)
    files = base / "blobs"
    files.mkdir()
    names = []
    for i in range(count):
        path = files / f"{i}.txt"
        path.write_text(f"object {i}\n")
        names.append(str(path))
    subprocess.run([*git, "hash-object", "-w", "--stdin-paths"], input="\n".join(names),
                   text=True, check=True, capture_output=True)
    return repo


def ms(fn: Any) -> float:
    start = time.perf_counter()
    fn()
    return (time.perf_counter() - start) * 1000


async def command(box: Sandbox, repo: Path, changes: Any, capture: WorkspaceCapture) -> float:
    async def run() -> Any:
        return await run_command("true", repo, 30, lambda _: None, sandbox=box)

    start = time.perf_counter()
    await watched(run, "true", changes, capture)
    return (time.perf_counter() - start) * 1000


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--objects", type=int, default=10_000)
    parser.add_argument("--pack-mb", type=int, default=100)
    parser.add_argument("--runs", type=int, default=20)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(dir=Path.home(), prefix=".bench-githistory-") as tmp:
        os.environ["AGENT_SHELL_DATA_DIR"] = str(Path(tmp) / "data")
        repo = make_repo(Path(tmp), args.objects, args.pack_mb)
        cp, plain = Checkpoints(Path(tmp) / "cp"), Checkpoints(Path(tmp) / "cp-plain")
        first = ms(lambda: cp.git_before(repo))
        box, capture = Sandbox(repo), WorkspaceCapture(repo)
        same, moved, with_c, without_c = [], [], [], []
        for i in range(args.runs):
            same.append(ms(lambda: cp.git_after(repo, cp.git_before(repo) or {})))
            (repo / "n.txt").write_text(f"{i}\n")
            subprocess.run(["git", "-C", str(repo), "add", "n.txt"], check=True)
            subprocess.run(["git", "-C", str(repo), "commit", "-qm", f"n{i}"], check=True)
            moved.append(ms(lambda: cp.git_after(repo, cp.git_before(repo) or {})))
            with_c.append(anyio.run(command, box, repo, cp, capture))
            without_c.append(anyio.run(command, box, repo, NoHistory(plain), capture))
        med = statistics.median
        print(f"loose objects: {args.objects}; pack: {args.pack_mb} MB; runs: {args.runs}; "
              f"load: {os.getloadavg()[0]:.1f}")
        print(f"first keep of a session (links every object): {first:.1f} ms")
        print(f"keep + compare, nothing changed: {med(same):.2f} ms; after a commit: {med(moved):.2f} ms")
        print(f"watched sandboxed true with the history kept: {med(with_c):.1f} ms; without: "
              f"{med(without_c):.1f} ms; ratio {med(with_c) / med(without_c):.2f}")
        copied = ms(lambda: shutil.copytree(repo / ".git" / "objects", Path(tmp) / "copied"))
        state = gitkeep.last_state(cp, str(repo / ".git"), len(cp.raw))
        assert state is not None
        shutil.rmtree(repo / ".git" / "objects")
        restored = ms(lambda: gitkeep.restore(cp, state, apply=True))
        fsck = subprocess.run(["git", "-C", str(repo), "fsck", "--connectivity-only"], capture_output=True)
        print(f"the choice: a copy of every object instead of a link (first keep) {copied:.0f} ms; "
              f"a rewind after rm -rf .git/objects (every object hashed, the pack hashed and indexed "
              f"anew) {restored:.0f} ms; fsck after it: exit {fsck.returncode}")


if __name__ == "__main__":
    main()
