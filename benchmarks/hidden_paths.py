"""What looking up the home directory's key files costs each sandboxed command.

``Sandbox.hidden_paths`` runs before every ``run_shell`` command: each entry of
``homesecrets.SECRET_PATHS`` (177 after r10-test's J1, 96 before) is looked up in
the home directory, and what exists is hidden. Most entries do not exist on a given
machine, so the lookup checks that first (one ``lstat``) and resolves symlinks only
for what exists. Shown, interleaved in one run so load hits all alike: the list as it
was with every entry resolved first (the order before J1), the longer list the same
way, and the longer list checked first (the order now), median milliseconds per pass.

    python benchmarks/hidden_paths.py [--rounds 5]
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from shell.permissions import paths
from shell.permissions.homesecrets import SECRET_PATHS


def resolve_first(home: Path, entries: Sequence[str]) -> list[Path]:
    out = []
    for rel in entries:
        path = home / rel
        try:
            real = paths.resolve(path, home)
        except (OSError, paths.BadPath):
            continue
        if os.path.lexists(path) and real.exists():
            out.append(real)
    return out


def exists_first(home: Path, entries: Sequence[str]) -> list[Path]:
    out = []
    for rel in entries:
        path = home / rel
        if not os.path.lexists(path):
            continue
        try:
            real = paths.resolve(path, home)
        except (OSError, paths.BadPath):
            continue
        if real.exists():
            out.append(real)
    return out


def median_ms(look: Callable[[Path, Sequence[str]], list[Path]], home: Path, entries: Sequence[str]) -> float:
    times = []
    for _ in range(300):
        start = time.perf_counter()
        look(home, entries)
        times.append(time.perf_counter() - start)
    return statistics.median(times) * 1e3


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=5)
    rounds = parser.parse_args().rounds
    home = Path(os.path.expanduser("~"))
    old = SECRET_PATHS[: SECRET_PATHS.index(".local/share/fish")]
    print(f"entries: {len(old)} before J1, {len(SECRET_PATHS)} now; load {os.getloadavg()[0]:.1f}")
    print("  old list, resolve first   new list, resolve first   new list, exists first")
    for _ in range(rounds):
        a = median_ms(resolve_first, home, old)
        b = median_ms(resolve_first, home, SECRET_PATHS)
        c = median_ms(exists_first, home, SECRET_PATHS)
        print(f"  {a:20.2f} ms   {b:20.2f} ms   {c:20.2f} ms")


if __name__ == "__main__":
    main()
