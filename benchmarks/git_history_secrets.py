"""What looking through git's history for secret files costs (finding A7,
``shell/permissions/historysecrets.py``).

A repository of ``--commits`` commits (built with ``git fast-import``: each commit changes
one of 500 files in 50 folders; ``--suffix yaml``: files the content rule reads, finding
C1, every version judged) where a ``.env`` was committed halfway and ``git rm``'d later.
Shown: the first search for a state of the refs (``git log --all --reflog --diff-filter=A
--name-only``, then the ``.env``'s versions and their values:
paid once per refs state, in a thread of its own), a later call for the same state (the
refs' stamp: ``stat`` calls), and the same after a new commit (a new state: searched again).

    python benchmarks/git_history_secrets.py [--commits 10000] [--runs 200]
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from shell.permissions.historysecrets import history_secrets

ENV = {**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@t", "GIT_COMMITTER_NAME": "t",
       "GIT_COMMITTER_EMAIL": "t@t", "GIT_CONFIG_NOSYSTEM": "1"}


def _blob(text: str) -> str:
    return f"data {len(text.encode())}\n{text}\n"


def stream(commits: int, suffix: str = "txt") -> str:
    """A fast-import stream: one line of history, a ``.env`` added halfway, removed 100 later."""
    out: list[str] = []
    for i in range(commits):
        out.append(f"commit refs/heads/main\nmark :{i + 1}\ncommitter T <t@e> {1600000000 + i} +0000\n"
                   + _blob(f"c{i}"))
        if i:
            out.append(f"from :{i}\n")
        out.append(f"M 644 inline src/d{i % 50}/f{i % 500}.{suffix}\n" + _blob(f"line {i}\n"))
        if i == commits // 2:
            out.append("M 644 inline .env\n" + _blob("TOKEN=Yt83hdPq2LmXz7Rtqq\n"))
        if i == commits // 2 + 100:
            out.append("D .env\n")
        out.append("\n")
    return "".join(out)


def _ms(start: float) -> float:
    return (time.perf_counter() - start) * 1e3


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--commits", type=int, default=10_000)
    parser.add_argument("--runs", type=int, default=200)
    parser.add_argument("--suffix", default="txt", help="yaml: the 500 files are read by content (C1)")
    args = parser.parse_args()
    root = Path(tempfile.mkdtemp(prefix="githistsecrets-"))
    try:
        subprocess.run(["git", "init", "-q", "-b", "main"], cwd=root, check=True, env=ENV)
        subprocess.run(["git", "fast-import", "--quiet"], cwd=root, check=True, env=ENV,
                       input=stream(args.commits, args.suffix).encode())
        subprocess.run(["git", "checkout", "-q", "main"], cwd=root, check=True, env=ENV)
        time.sleep(0.2)  # past the racy window: the stamp is then kept
        start = time.perf_counter()
        found = history_secrets(root)
        first = _ms(start)
        assert found is not None and found.sources, found
        start = time.perf_counter()
        for _ in range(args.runs):
            history_secrets(root)
        later = _ms(start) / args.runs
        (root / "x.txt").write_text("x\n")
        subprocess.run(["git", "add", "x.txt"], cwd=root, check=True, env=ENV)
        subprocess.run(["git", "commit", "-qm", "x"], cwd=root, check=True, env=ENV)
        time.sleep(0.2)
        start = time.perf_counter()
        history_secrets(root)
        again = _ms(start)
        print(f"{args.commits} commits: first search {first:.0f} ms; same refs {later:.3f} ms a call; "
              f"after a commit {again:.0f} ms ({found.paths[:3]}, {len(found.sources)} with values, "
              f"complete: {found.complete})")
    finally:
        shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    main()
