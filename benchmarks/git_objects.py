"""What the loose-object check (``shell/permissions/gitobjects.py``) adds to a command
in a repository with many loose objects (default 10,000: a repository that has not
been packed in a while).

Times, interleaved in one run: the check alone (its stamp of every loose object,
paid before a session's first command, and its compare after a command that changed
nothing, paid after every command: the next one starts from what it saw), in wall
and CPU time; and ``bash -c true`` through run_shell's ``run_command`` in that
repository, sandboxed with the check and without it (the sandbox as it was), each a
sandbox kept across the runs as a session keeps it, so the check's share of a real
call shows as a ratio measured under the same load.

    python benchmarks/git_objects.py [--objects 10000] [--runs 20]
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

import anyio

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from shell.permissions import gitobjects
from shell.permissions.sandbox import Sandbox
from shell.tools.shell_cmd import run_command


class NoObjects(Sandbox):
    """The sandbox without the loose-object check (as it was before it)."""

    def prepare(self):  # type: ignore[no-untyped-def]
        found, walls = super().prepare()
        self._objects = {}
        return found, walls


def make_repo(base: Path, count: int) -> Path:
    repo = base / "repo"
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    files = base / "blobs"
    files.mkdir()
    names = []
    for i in range(count):
        path = files / f"{i}.txt"
        path.write_text(f"object {i}\n")
        names.append(str(path))
    subprocess.run(["git", "-C", str(repo), "hash-object", "-w", "--stdin-paths"], input="\n".join(names),
                   text=True, check=True, capture_output=True)
    return repo


def timed(fn) -> tuple[float, float]:  # type: ignore[no-untyped-def]
    wall, cpu = time.perf_counter(), time.process_time()
    fn()
    return (time.perf_counter() - wall) * 1000, (time.process_time() - cpu) * 1000


async def command(box: Sandbox, repo: Path) -> float:
    start = time.perf_counter()
    await run_command("true", repo, 30, lambda _: None, sandbox=box)
    return (time.perf_counter() - start) * 1000


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--objects", type=int, default=10_000)
    parser.add_argument("--runs", type=int, default=20)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(dir=Path.home(), prefix=".bench-gitobjects-") as tmp:
        os.environ["AGENT_SHELL_DATA_DIR"] = str(Path(tmp) / "data")
        repo = make_repo(Path(tmp), args.objects)
        gitdirs = [repo / ".git"]
        loose = len(gitobjects.read(repo / ".git" / "objects").loose)
        full, bare = Sandbox(repo), NoObjects(repo)
        snap_w, snap_c, check_w, check_c, with_c, without_c = [], [], [], [], [], []
        holder: list[gitobjects.Snapshot] = []
        for _ in range(args.runs):
            holder.clear()
            w, c = timed(lambda: holder.append(gitobjects.snapshot(gitdirs)))
            snap_w.append(w)
            snap_c.append(c)
            w, c = timed(lambda: gitobjects.check(holder[0])[0])
            check_w.append(w)
            check_c.append(c)
            with_c.append(anyio.run(command, full, repo))
            without_c.append(anyio.run(command, bare, repo))
        med = statistics.median
        print(f"loose objects: {loose}; runs: {args.runs}; load: {os.getloadavg()[0]:.1f}")
        print(f"stamp (first command only): {med(snap_w):.1f} ms wall, {med(snap_c):.1f} ms CPU")
        print(f"compare after (every command): {med(check_w):.1f} ms wall, {med(check_c):.1f} ms CPU")
        print(f"sandboxed true with the check: {med(with_c):.1f} ms; without: {med(without_c):.1f} ms; "
              f"ratio {med(with_c) / med(without_c):.2f}")


if __name__ == "__main__":
    main()
