"""What the workspace virtualenvs' module names cost each search (finding D8,
:mod:`shell.permissions.workspacevenvs`, :func:`shell.permissions.shadowmodules.shadowed_names`).

Before and after every sandboxed command the walk asks for the names a new module must not
take; they now include the top-level names of the workspace's virtualenvs. Measured in a
workspace whose ``.venv`` holds ``--packages`` packages (a folder, its ``dist-info``, one in
ten a namespace folder with no ``__init__``), beside ``--folders`` folders of 20 subfolders
each (what finding the virtualenvs near the top lists):

- the names with the workspace's venvs, the first read (every ``site-packages`` listed);
- the same again (cached: the venvs found anew, each ``site-packages`` stat'ed);
- the host's names alone (as before D8), cached;
- a walk of ``--files`` files after ``pip install`` of one more package into the venv (every
  folder listed before judged again against the new names), beside a walk with no change.

Medians of ``--runs``; ratios printed (no bound asserted: a shared machine's figures).

    python benchmarks/venv_module_names.py [--packages 300] [--folders 200] [--files 50000] [--runs 5]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from shell.permissions import shadowmodules
from shell.permissions.secretfiles import SecretFileIndex


def make_workspace(root: Path, packages: int, folders: int, files: int) -> Path:
    site = root / ".venv" / "lib" / "python3.11" / "site-packages"
    site.mkdir(parents=True)
    (root / ".venv" / "pyvenv.cfg").write_text("home = /usr/bin\n")
    for n in range(packages):
        (site / f"pkg{n}-1.0.dist-info").mkdir()
        (site / f"pkg{n}").mkdir()
        if n % 10:
            (site / f"pkg{n}" / "__init__.py").write_text("")
        else:
            (site / f"pkg{n}" / "mod.py").write_text("")
    for n in range(folders):
        for m in range(20):
            (root / f"area{n}" / f"part{m}").mkdir(parents=True)
    for n in range(max(files // 20, 1)):
        folder = root / "src" / f"mod{n}"
        folder.mkdir(parents=True)
        for m in range(20):
            (folder / f"f{m}.py").write_text("x = 1\n")
    return site


def timed(step: Callable[[], object]) -> float:
    start = time.perf_counter()
    step()
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--packages", type=int, default=300)
    parser.add_argument("--folders", type=int, default=200)
    parser.add_argument("--files", type=int, default=50_000)
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    figures: dict[str, list[float]] = {k: [] for k in ("first", "again", "host", "plain", "installed")}
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp).resolve()
        site = make_workspace(root, args.packages, args.folders, args.files)
        walk = SecretFileIndex([root], max_entries=10**7, max_seconds=600,
                               modules=lambda: shadowmodules.shadowed_names([root]))
        walk.find()
        for run in range(args.runs):
            shadowmodules._installed.cache_clear()
            figures["first"].append(timed(lambda: shadowmodules.shadowed_names([root])))
            figures["again"].append(timed(lambda: shadowmodules.shadowed_names([root])))
            shadowmodules.shadowed_names()
            figures["host"].append(timed(shadowmodules.shadowed_names))
            time.sleep(0.15)  # past the racy window
            figures["plain"].append(timed(walk.find))
            (site / f"added{run}.py").write_text("")  # pip install added{run}
            figures["installed"].append(timed(walk.find))
    ms = {k: statistics.median(v) * 1000 for k, v in figures.items()}
    print(f"{args.packages} venv packages, {args.folders * 21:,} folders near the top, {args.files:,} files; "
          f"medians of {args.runs} runs")
    print(f"  names, venvs' first read   {ms['first']:8.2f} ms")
    print(f"  names again (cached)       {ms['again']:8.2f} ms   host's alone {ms['host']:6.2f} ms   "
          f"ratio {ms['again'] / ms['host']:5.2f}")
    print(f"  walk after a pip install   {ms['installed']:8.1f} ms   no change {ms['plain']:8.1f} ms   "
          f"ratio {ms['installed'] / ms['plain']:5.2f}")


if __name__ == "__main__":
    main()
