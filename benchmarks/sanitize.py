"""What the one sanitiser costs on text that needs nothing (nearly all text).

``sanitize`` scans every delta, tool result and line a front end shows. Since it
also makes invisible characters visible (Unicode tags, zero-width space, marks),
its character class holds ranges beyond the BMP, which makes the regex scan of
non-ASCII text about 3x slower; ASCII text takes a fast path. Baseline: the
controls-and-bidi class it had before, scanned in the same run. Medians of 7
samples of this process's CPU time.

    python benchmarks/sanitize.py
"""

from __future__ import annotations

import re
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from shell.core.textsafety import sanitize

BEFORE = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069\ud800-\udfff]")
TEXTS = {
    "ascii code (200 KB)": ("def f(x):\n    return x + 1  # fine\n" * 6000)[:200_000],
    "prose, accents, CJK (200 KB)": ("Wörter — ✓ 你好 naïve café. " * 8000)[:200_000],
    "one 40-char delta": "Here is the **plan**: first, read é the fi",
}


def cpu(fn: Callable[[], object], number: int) -> float:
    samples = []
    for _ in range(7):
        start = time.process_time()
        for _ in range(number):
            fn()
        samples.append((time.process_time() - start) / number)
    return statistics.median(samples)


def main() -> None:
    print(f"{'text':32} {'before':>12} {'now':>12} {'ratio':>7}")
    for name, text in TEXTS.items():
        number = 20 if len(text) > 1000 else 100_000
        before = cpu(lambda t=text: BEFORE.search(t) is None and t, number)  # type: ignore[misc]
        now = cpu(lambda t=text: sanitize(t), number)  # type: ignore[misc]
        print(f"{name:32} {before * 1e6:10.2f}us {now * 1e6:10.2f}us {now / before:6.2f}x")


if __name__ == "__main__":
    main()
