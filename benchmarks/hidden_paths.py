"""What looking up the home directory's key files costs each sandboxed command.

``Sandbox.hidden_paths`` runs before every ``run_shell`` command: each entry of
``homesecrets.SECRET_PATHS`` (177 after r10-test's J1, 96 before) is looked up in
the home directory, and what exists is hidden. Most entries do not exist on a given
machine, so the lookup checks that first (one ``lstat``) and resolves symlinks only
for what exists. Shown, interleaved in one run so load hits all alike: the list as it
was with every entry resolved first (the order before J1), the longer list the same
way, and the longer list checked first (the order now), median milliseconds per pass.

    python benchmarks/hidden_paths.py [--rounds 5]

``--local`` measures instead what r11-home's K4 added: ``found_in_config`` (the walk
by name, uncached, as after any change to home) in one made-up home with a busy
``~/.config`` and dot folders, without and then with a busy ``~/.local/share`` and
``~/.local/state`` (before K4 the walk skipped ``~/.local``, so "without" is its cost).
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

from shell.permissions import homesecrets, paths
from shell.permissions.homesecrets import SECRET_PATHS, found_in_config


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


def fill(base: Path, tools: int, files: int) -> None:
    for t in range(tools):
        folder = base / f"tool{t}" / "sub"
        folder.mkdir(parents=True, exist_ok=True)
        for f in range(files):
            (folder / f"file{f}.json").write_text("{}")


def walk_ms(home: Path) -> float:
    times = []
    for _ in range(20):
        homesecrets._cache.clear()
        start = time.perf_counter()
        found_in_config(home)
        times.append(time.perf_counter() - start)
    return statistics.median(times) * 1e3


def local(rounds: int) -> None:
    import shutil
    import tempfile

    base = Path(tempfile.mkdtemp(prefix="hidden-paths-bench-"))
    try:
        without, with_local = base / "without", base / "with"
        for home in (without, with_local):
            fill(home / ".config", 60, 20)
            fill(home / ".somedot", 20, 20)
        fill(with_local / ".local" / "share", 80, 30)
        fill(with_local / ".local" / "state", 20, 10)
        print(f"found_in_config, uncached; load {os.getloadavg()[0]:.1f}")
        print("  home without ~/.local   same home with a busy ~/.local")
        for _ in range(rounds):
            print(f"  {walk_ms(without):18.2f} ms   {walk_ms(with_local):26.2f} ms")
    finally:
        shutil.rmtree(base, ignore_errors=True)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--local", action="store_true", help="the walk by name with and without ~/.local")
    options = parser.parse_args()
    rounds = options.rounds
    if options.local:
        local(rounds)
        return
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
