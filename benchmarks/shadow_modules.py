"""What noting modules named like standard or installed ones costs the workspace walk
(finding A14, :mod:`shell.permissions.shadowmodules`).

The walk before and after every sandboxed command lists each folder that changed; with the
note it also looks each entry's module name up in a set, and the guard stats the noted
folders for an ``__init__.py``. Measured, with and without the note, in a workspace of
``--files`` files (20 a folder, no package folders, so every folder counts) where one folder
in five holds a ``types.py`` (the worst case: each one is noted, then checked again):

- a cold walk (a new index: every folder listed), as at the first command;
- the walk after a command that added a file in ``--touched`` folders (only those relisted);
- the guard built from the walk's finds (the noted modules filtered).

Interleaved runs, medians; ratios printed (no bound asserted: a shared machine's figures).

    python benchmarks/shadow_modules.py [--files 50000] [--touched 200] [--runs 5]
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

from shell.permissions import runslater
from shell.permissions.secretfiles import SecretFileIndex
from shell.permissions.shadowmodules import shadowed_names


def make_tree(root: Path, files: int) -> list[Path]:
    folders = []
    for n in range(max(files // 20, 1)):
        folder = root / "src" / f"pkg{n % 50}" / f"mod{n}"
        folder.mkdir(parents=True)
        for m in range(19):
            (folder / f"f{m}.py").write_text("x = 1\n")
        (folder / ("types.py" if n % 5 == 0 else "f19.py")).write_text("x = 1\n")
        folders.append(folder)
    return folders


def timed(step: Callable[[], object]) -> float:
    start = time.perf_counter()
    step()
    return time.perf_counter() - start


def index(root: Path, noted: bool) -> SecretFileIndex:
    return SecretFileIndex([root], max_entries=10**7, max_seconds=600,
                           modules=shadowed_names if noted else None)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--files", type=int, default=50_000)
    parser.add_argument("--touched", type=int, default=200)
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp).resolve()
        folders = make_tree(root, args.files)
        cold: dict[bool, list[float]] = {True: [], False: []}
        warm: dict[bool, list[float]] = {True: [], False: []}
        guard: dict[bool, list[float]] = {True: [], False: []}
        noted_count = 0
        for run in range(args.runs):
            for noted in (False, True) if run % 2 else (True, False):
                walk = index(root, noted)
                cold[noted].append(timed(walk.find))
                for n, folder in enumerate(folders[: args.touched]):
                    (folder / f"new{run}_{noted}_{n}.py").write_text("y = 2\n")
                time.sleep(0.15)  # past the racy window: only the touched folders are listed again
                warm[noted].append(timed(walk.find))
                found = walk.last
                assert found is not None
                noted_count = max(noted_count, len(found.modules))
                walls = lambda f=found: runslater.guard((root,), f.runs_later, (), (), f.modules)  # noqa: E731
                guard[noted].append(timed(walls))
    print(f"{args.files:,} files, {args.files // 20:,} folders, {noted_count:,} noted modules; "
          f"medians of {args.runs} runs")
    for label, figures in (("cold walk", cold), (f"walk after {args.touched} folders changed", warm),
                           ("guard from the walk", guard)):
        with_note, without = statistics.median(figures[True]), statistics.median(figures[False])
        print(f"  {label:38} with {with_note * 1000:8.1f} ms  without {without * 1000:8.1f} ms  "
              f"ratio {with_note / without:5.2f}")


if __name__ == "__main__":
    main()
