"""What the diff of a file edit costs: the bounded diff against plain ``difflib``.

Tester finding I3: a ``write_file`` of a 100 000-line file with every other line
changed never got its approval question (``difflib`` is about quadratic on many
small changes; standalone it had not finished after 300 s), and in accept-edits the
tool hung after writing, computing its result diff. Both now go through
``shell.core.linediff``. This measures, in one run, the CPU time of both on that
shape at growing sizes (old: ``difflib.unified_diff`` as ``preview.py`` and
``files.py`` called it; it runs in a child process with a time limit, since it does
not finish at the largest size), plus the whole approval preview
(``edit_preview``: read, diff, cut) on the tester's file. Best of 3 samples.

    python benchmarks/big_diff.py [--limit SECONDS]
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from shell.core import linediff
from shell.permissions.preview import edit_preview

SIZES = (1_000, 4_000, 16_000, 100_000)


def texts(n: int) -> tuple[list[str], list[str]]:
    old = [f"line {i} original\n" for i in range(n)]
    new = [line.replace("original", "CHANGED") if i % 2 == 0 else line for i, line in enumerate(old)]
    return old, new


def best_cpu(fn: Callable[[], object], samples: int = 3) -> float:
    best = float("inf")
    for _ in range(samples):
        start = time.process_time()
        fn()
        best = min(best, time.process_time() - start)
    return best


def difflib_in_child(n: int, limit: float) -> float | None:
    """CPU seconds of the old diff in a fresh process, or None past ``limit`` wall seconds."""
    code = (
        "import difflib, sys, time\n"
        f"sys.path.insert(0, {str(Path(__file__).resolve().parent)!r})\n"
        "from big_diff import texts\n"
        f"a, b = texts({n})\n"
        "t = time.process_time(); ''.join(difflib.unified_diff(a, b, 'a/big.txt', 'b/big.txt'))\n"
        "print(time.process_time() - t)\n"
    )
    try:
        done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=limit,
                              check=True)
    except subprocess.TimeoutExpired:
        return None
    return float(done.stdout)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--limit", type=float, default=120.0, help="wall seconds the old diff gets per size")
    limit = parser.parse_args().limit
    print(f"{'lines':>8}  {'difflib (old)':>16}  {'linediff (new)':>15}  ratio")
    for n in SIZES:
        a, b = texts(n)
        new = best_cpu(lambda a=a, b=b: "".join(linediff.unified_diff(a, b, "a/big.txt", "b/big.txt")))
        old = difflib_in_child(n, limit)
        shown = f"{old:14.3f} s" if old is not None else f"> {limit:.0f} s (wall)"
        ratio = f"{old / new:8.0f}x" if old is not None else f"> {limit / new:6.0f}x"
        print(f"{n:>8}  {shown:>16}  {new:13.3f} s  {ratio}")
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        a, b = texts(100_000)
        (root / "big.txt").write_text("".join(a))
        args = {"path": "big.txt", "content": "".join(b)}
        whole = best_cpu(lambda: edit_preview("write_file", args, root))
        print(f"edit_preview of the tester's file (2 MB, 100 000 lines, 50 000 changed): {whole:.3f} s CPU")


if __name__ == "__main__":
    main()
