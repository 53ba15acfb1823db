"""What the pack, multi-pack-index and commit-graph checks (``shell/permissions/
gitpacks.py``, ``gitmaps.py``; tester findings X8, X9) add after a command, in a packed
repository (default 10,000 blobs in 2,000 commits, ``git gc``, a multi-pack-index and a
commit-graph written).

Times, medians of ``--runs``, wall and CPU (CPU: this process's, not git's): the
compare after a command that changed nothing (paid after every command: one ``lstat``
per file of the pack and commit-graph folders); after a command that only touched the
pack's times, as git's "freshening" does when it writes an object a pack already holds
(one ``git index-pack --verify`` of the pack); after one that rewrote the
multi-pack-index (``git multi-pack-index verify``) and the commit-graph (``git
commit-graph verify``) as git itself does.

    python benchmarks/git_packs.py [--objects 10000] [--runs 10]
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

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from shell.permissions import gitobjects


def make_repo(base: Path, count: int) -> Path:
    repo = base / "repo"
    env = {**os.environ, "GIT_AUTHOR_NAME": "b", "GIT_AUTHOR_EMAIL": "b@example.org",
           "GIT_COMMITTER_NAME": "b", "GIT_COMMITTER_EMAIL": "b@example.org"}
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    script = []
    for i in range(count):
        if i % 5 == 0:
            script.append(f"commit refs/heads/main\ncommitter b <b@example.org> {1700000000 + i} +0000\n"
                          f"data 2\nc\n")
        body = f"object {i}\n"
        script.append(f"M 100644 inline f{i % 2000}.txt\ndata {len(body)}\n{body}")
    subprocess.run(["git", "fast-import", "--quiet"], cwd=repo, input="".join(script), text=True, check=True,
                   env=env)
    for args in (["gc", "-q"], ["multi-pack-index", "write"], ["commit-graph", "write", "--reachable"]):
        subprocess.run(["git", *args], cwd=repo, check=True)
    return repo


def timed(fn) -> tuple[float, float]:  # type: ignore[no-untyped-def]
    wall, cpu = time.perf_counter(), time.process_time()
    fn()
    return (time.perf_counter() - wall) * 1000, (time.process_time() - cpu) * 1000


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--objects", type=int, default=10_000)
    parser.add_argument("--runs", type=int, default=10)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(dir=Path.home(), prefix=".bench-gitpacks-") as tmp:
        os.environ["AGENT_SHELL_DATA_DIR"] = str(Path(tmp) / "data")
        repo = make_repo(Path(tmp), args.objects)
        gitdirs = [repo / ".git"]
        (pack,) = (repo / ".git" / "objects" / "pack").glob("*.pack")
        midx = repo / ".git" / "objects" / "pack" / "multi-pack-index"
        rewrite = (["multi-pack-index", "write"], ["commit-graph", "write", "--reachable"])
        cases = {
            "nothing changed": lambda: None,
            "pack freshened": lambda: os.utime(pack),
            "midx + commit-graph rewritten": lambda: [  # git skips a multi-pack-index that would not change
                (midx.unlink(), *(subprocess.run(["git", *a], cwd=repo, check=True) for a in rewrite))],
        }
        times: dict[str, list[tuple[float, float]]] = {name: [] for name in cases}
        for _ in range(args.runs):
            for name, change in cases.items():
                snap = gitobjects.snapshot(gitdirs)
                change()
                found: list[object] = []
                times[name].append(timed(lambda s=snap, f=found: f.extend(gitobjects.check(s)[0])))
                assert not found, found
        med = statistics.median
        size = pack.stat().st_size // 1024
        load = os.getloadavg()[0]
        print(f"objects: {args.objects}; pack: {size:,} KB; runs: {args.runs}; load: {load:.1f}")
        for name, pairs in times.items():
            print(f"{name}: {med(w for w, _ in pairs):.1f} ms wall, {med(c for _, c in pairs):.1f} ms CPU")


if __name__ == "__main__":
    main()
