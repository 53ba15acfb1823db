"""What looking for home links into the workspace costs, one level deeper in ``~/.config``.

``homelinks.home_links`` runs before every file edit and every sandboxed command: it
lists home's dot folders and ``~/.config``'s folders for links into the workspace, and
keeps what it found until one of those folders changes (one ``stat`` each per call).
r13-configs looks one level further under ``~/.config`` (``~/.config/a/b/c``), so the
folders stamped grow with the subfolders of each app's folder. Shown, interleaved in one
run so load hits both alike, in a made-up home of ``--apps`` folders in ``~/.config``
with ``--subs`` subfolders each: the lookup as it was (``CONFIG_DEPTH = 2``, every folder
stamped at every call) and now, median milliseconds of a cached call (nothing changed;
now also at a call that stamps the deepest folders again, once per ``DEEP_RECHECK``
seconds) and of a fresh one (after a change).

    python benchmarks/home_links.py [--apps 100] [--subs 8] [--rounds 5]
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from shell.permissions import homelinks


def timed(home: Path, roots: tuple[Path, ...], depth: int, cached: bool, recheck: float, n: int = 9) -> float:
    homelinks.CONFIG_DEPTH = depth
    homelinks.DEEP_RECHECK = recheck
    homelinks._cache.clear()
    homelinks._links(home, roots)
    out = []
    for _ in range(n):
        if not cached:
            homelinks._cache.clear()
        start = time.perf_counter()
        homelinks._links(home, roots)
        out.append(time.perf_counter() - start)
    return statistics.median(out) * 1e3


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--apps", type=int, default=100)
    parser.add_argument("--subs", type=int, default=8)
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    home = Path(tempfile.mkdtemp(prefix="bench-homelinks-"))
    try:
        (home / "ws").mkdir()
        for i in range(args.apps):
            for j in range(args.subs):
                (home / ".config" / f"app{i}" / f"sub{j}").mkdir(parents=True)
        roots = (home / "ws",)
        print(f"{'cached, before':>16} {'cached, now':>12} {'at a recheck':>13} {'fresh, before':>14} "
              f"{'fresh, now':>11}")
        for _ in range(args.rounds):
            row = [timed(home, roots, 2, True, 0.0), timed(home, roots, 3, True, 5.0),
                   timed(home, roots, 3, True, 0.0), timed(home, roots, 2, False, 0.0),
                   timed(home, roots, 3, False, 5.0)]
            print(f"{row[0]:13.2f} ms {row[1]:9.2f} ms {row[2]:10.2f} ms {row[3]:11.2f} ms {row[4]:8.2f} ms")
    finally:
        shutil.rmtree(home, ignore_errors=True)


if __name__ == "__main__":
    main()
