"""What the forged-stat check of git's index (``shell/permissions/gitindexstat.py``,
finding A2) adds after a command that changed the index, in a repository of many
tracked files (default 10,000).

Rows, each the median of ``--runs`` (wall and CPU ms), interleaved:
- read: parsing every entry of the index (paid once before a session's first command,
  and after each command that changed the index, for the next one);
- one entry: a command that staged one edited file (``git add``): parse, compare with
  before, hash that one file;
- rewritten, same stat: ``rm .git/index && git reset`` (every entry written again as it
  was: compared, none hashed);
- all entries: an index with no entries known before (one the command made where there
  was none), or every file touched and staged: each file hashed (bounded by
  ``HASH_SECONDS``);
- tree-cache drop (``gitindextree.drop_tree_cache``) on the same index, for scale.

    python benchmarks/git_index_stat.py [--files 10000] [--runs 7]
"""

from __future__ import annotations

import argparse
import functools
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from shell.permissions import gitindexstat, gitindextree


def git(repo: Path, *args: str) -> None:
    subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True)


def make_repo(base: Path, count: int) -> Path:
    repo = base / "repo"
    git(base, "init", "-q", str(repo))
    for i in range(count):
        folder = repo / f"d{i % 100}"
        folder.mkdir(exist_ok=True)
        (folder / f"f{i}.py").write_text(f"value = {i}\n" * 20)
    git(repo, "add", "-A")
    git(repo, "-c", "user.name=b", "-c", "user.email=b@b", "commit", "-qm", "all")
    return repo


def check(index: Path, before: gitindexstat.Entries | None) -> None:
    """The check after a command that changed ``index``, as gitobjects runs it."""
    gitindexstat.repair(index, before, index.parent, time.monotonic() + gitindexstat.HASH_SECONDS)


def timed(fn) -> tuple[float, float]:  # type: ignore[no-untyped-def]
    wall, cpu = time.perf_counter(), time.process_time()
    fn()
    return (time.perf_counter() - wall) * 1000, (time.process_time() - cpu) * 1000


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--files", type=int, default=10_000)
    parser.add_argument("--runs", type=int, default=7)
    args = parser.parse_args()
    base = Path(tempfile.mkdtemp(prefix="bench-indexstat-"))
    try:
        repo = make_repo(base, args.files)
        index = repo / ".git" / "index"
        rows: dict[str, list[tuple[float, float]]] = {"read": [], "one entry": [], "rewritten, same stat": [],
                                                      "all entries": [],
                                                      "tree-cache drop": []}
        for run in range(args.runs):
            rows["read"].append(timed(lambda: gitindexstat.read(index)))
            before = gitindexstat.read(index)
            edited = repo / "d1" / "f1.py"
            edited.write_text(f"edit {run}\n")
            git(repo, "add", str(edited))
            rows["one entry"].append(timed(functools.partial(check, index, before)))
            before = gitindexstat.read(index)
            os.unlink(index)
            git(repo, "reset", "-q")
            rows["rewritten, same stat"].append(timed(functools.partial(check, index, before)))
            rows["all entries"].append(timed(functools.partial(check, index, None)))
            git(repo, "write-tree")  # the tree cache filled again
            rows["tree-cache drop"].append(timed(lambda: gitindextree.drop_tree_cache(index)))
        size = index.stat().st_size
        load = os.getloadavg()[0]
        print(f"{args.files:,} files, index {size / 1024:.0f} KB, {args.runs} runs, load {load:.1f}")
        print("| row | wall ms | CPU ms |\n|---|---:|---:|")
        for name, samples in rows.items():
            wall = statistics.median(s[0] for s in samples)
            cpu = statistics.median(s[1] for s in samples)
            print(f"| {name} | {wall:.1f} | {cpu:.1f} |")
    finally:
        shutil.rmtree(base, ignore_errors=True)


if __name__ == "__main__":
    main()
