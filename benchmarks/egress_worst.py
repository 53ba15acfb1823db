"""What the egress check costs on the worst shapes of text a model may send (finding Z5).

``secret_sent`` looks through a network call's arguments in every spelling the one
secrets policy reads (base64, hex, uuencode, base58 …), so text made of those letters
costs more than prose: before Z5, 60 KB of uuencode-shaped lines took 7-10 s (one search
of all 84 shapes per reading, RE2 building DFA states for each new text) and a 1 MB
argument 1.5-2.5 min. Each text here is 60 KB (a call's string is read whole up to
64 KB), freshly random for each sample (the states a text needs are built the first
time: the same text again would measure a warm cache); the figure is CPU ms, median
of 3, and its ratio to prose of the same size in the same run. ``--root DIR`` measures
another checkout (run it on the old one, then on this one, back to back).

    python benchmarks/egress_worst.py [--root /path/to/old/checkout] [--size 60000]
"""

from __future__ import annotations

import os
import random
import statistics
import string
import sys
import time
from collections.abc import Callable
from pathlib import Path

HERE = Path(__file__).resolve().parent.parent
ROOT = Path(sys.argv[sys.argv.index("--root") + 1]) if "--root" in sys.argv else HERE
SIZE = int(sys.argv[sys.argv.index("--size") + 1]) if "--size" in sys.argv else 60_000
sys.path.insert(0, str(ROOT))
os.environ["MY_API_TOKEN"] = "Xq7pL2mN9vR4tY8wK3jH6gF1dS5aZ0cB"

from shell.core.tools import Tool  # noqa: E402
from shell.permissions.egress import secret_sent  # noqa: E402

UU = "".join(chr(c) for c in range(33, 96))
BASE58 = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz"
ALNUM = string.ascii_letters + string.digits
PRINTABLE = "".join(chr(c) for c in range(32, 127))


def shapes(size: int) -> dict[str, Callable[[random.Random], str]]:
    """Each shape as a maker of a fresh random text of ``size`` characters."""
    def many(r: random.Random, letters: str, n: int) -> str:
        return "".join(r.choices(letters, k=n))

    return {
        "prose": lambda r: " ".join(r.choice(("the", "quick", "brown", "fox", "jumps", "over", "lazy", "dog"))
                                    for _ in range(size // 4))[:size],
        "uuencode lines": lambda r: "\n".join("M" + many(r, UU, 60) for _ in range(size // 62)),
        "hex": lambda r: many(r, "0123456789abcdef", size),
        "base64, 76 wide": lambda r: "\n".join(many(r, ALNUM + "+/", 76) for _ in range(size // 77)),
        "digits": lambda r: many(r, string.digits, size),
        "base58 runs of 511": lambda r: " ".join(many(r, BASE58, 511) for _ in range(size // 512)),
        "letters, 16 a word": lambda r: " ".join(many(r, ALNUM, 16) for _ in range(size // 17)),
        "any printable": lambda r: many(r, PRINTABLE, size),
        "octal bytes": lambda r: " ".join(f"{r.randrange(256):03o}" for _ in range(size // 4)),
    }


class Fetch(Tool):
    async def run(self, args: object, context: object) -> object:
        raise NotImplementedError


def cpu(make: Callable[[random.Random], str], tool: Tool, seed: int) -> float:
    samples = []
    for n in range(3):
        text = make(random.Random(seed * 10 + n))
        start = time.process_time()
        secret_sent(tool, {"q": text})
        samples.append(time.process_time() - start)
    return statistics.median(samples)


def main() -> None:
    tool = Fetch(name="fetch_url", description="", parameters={}, kind="fetch")
    secret_sent(tool, {"q": "warm up: compile the expressions"})
    made = shapes(SIZE)
    prose = cpu(made["prose"], tool, 0)
    print(f"egress check of {SIZE:,} characters, {ROOT}")
    print(f"{'text':22} {'CPU ms':>8} {'x prose':>8}")
    for seed, (name, make) in enumerate(made.items()):
        took = prose if name == "prose" else cpu(make, tool, seed)
        print(f"{name:22} {took * 1000:8.0f} {took / prose:8.1f}")


if __name__ == "__main__":
    main()
