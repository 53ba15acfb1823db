"""What looking for a secret in more spellings costs a network call's arguments.

``secret_going_out`` (the one secrets policy) looks through every string a
``fetch_url`` URL or an MCP tool's arguments hold, up to 64 KB each. r13 added the
readings a smuggled key hides in: base64 wrapped over lines, zero-width characters
between its letters, UTF-16 (plain, percent- or base64-encoded), hex however written,
the text reversed; r14 numbers (a decimal integer, character codes) and, in
``secret_sent``, the pieces of a call put back together (a key split over arguments).
Texts: an ordinary URL, and 32 KB and 64 KB of prose, of base64
wrapped at 76 columns, of spaced hex and of Japanese, to show the cost stays linear.
Medians of 5 samples of this process's CPU time. ``--root DIR`` measures another
checkout's policy (run it once on the old one, once on this one, back to back).

    python benchmarks/egress.py [--root /path/to/old/checkout]
"""

from __future__ import annotations

import base64
import statistics
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent.parent
ROOT = Path(sys.argv[sys.argv.index("--root") + 1]) if "--root" in sys.argv else HERE
sys.path.insert(0, str(ROOT))

from shell.core.secrets import Secrets, secret_going_out  # noqa: E402
from shell.core.tools import Tool  # noqa: E402
from shell.permissions.egress import secret_sent  # noqa: E402


def wrap(text: str, width: int) -> str:
    return "\n".join(text[i : i + width] for i in range(0, len(text), width))


def texts(size: int) -> dict[str, str]:
    return {
        "prose": ("The quick brown fox jumps over the lazy dog. " * 2000)[:size],
        "base64, 76 wide": wrap(base64.b64encode(bytes(range(256)) * 300).decode()[: size * 76 // 77], 76),
        "hex, spaced": " ".join(f"{b:02x}" for b in bytes(range(256)) * 100)[:size],
        "Japanese": ("東京の天気は晴れです。" * 7000)[:size],
    }


def cpu(secrets: Secrets, text: str) -> float:
    samples = []
    for _ in range(5):
        start = time.process_time()
        secret_going_out(text, secrets)
        samples.append(time.process_time() - start)
    return statistics.median(samples)


class Fetch(Tool):
    async def run(self, args: object, context: object) -> object:
        raise NotImplementedError


def whole_call(args: dict[str, object]) -> float:
    """``secret_sent`` on a whole call's arguments (every string, then the pieces joined)."""
    tool = Fetch("fetch_url", read_only=True, kind="fetch")
    samples = []
    for _ in range(5):
        start = time.process_time()
        secret_sent(tool, args)
        samples.append(time.process_time() - start)
    return statistics.median(samples)


def calls() -> dict[str, dict[str, object]]:
    query = "&".join(f"p{i}=value{i}" for i in range(30))
    return {
        "URL, 30 query values": {"url": f"https://docs.python.org/3/search.html?{query}"},
        "1,000 strings of 1 KB": {"items": [("word " * 205)[:1000] + str(i) for i in range(1000)]},
        "500 numbers": {"ids": list(range(100_000, 100_500))},
    }


def main() -> None:
    secrets = Secrets(["Tr0ub4dor-x9-horse"])
    secret_going_out("warm up", secrets)
    url = "https://docs.python.org/3/search.html?q=hello+world&check_keywords=yes"
    print(f"policy of {ROOT}")
    print(f"{'ordinary URL':24} {cpu(secrets, url) * 1e3:8.2f}ms")
    small, large = texts(32_000), texts(64_000)
    for name in small:
        a, b = cpu(secrets, small[name]), cpu(secrets, large[name])
        print(f"{name:24} {a * 1e3:8.1f}ms (32 KB) {b * 1e3:8.1f}ms (64 KB) {b / a:5.2f}x")
    print(f"{'ordinary URL, whole call':24} {whole_call({'url': url}) * 1e3:8.2f}ms")
    for name, args in calls().items():
        print(f"{name:24} {whole_call(args) * 1e3:8.2f}ms")


if __name__ == "__main__":
    main()
