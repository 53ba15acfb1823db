"""What redacting an MCP answer of the run's known keys costs (findings V3, X3).

Since X3 every text block, the blocks joined, text blobs and structured content are
read in every spelling the egress check reads (``secret_going_out``), not only
searched for the key as written. Answers: one short line, 30 KB of prose (the result
cap) as one text and as ten blocks with structured content. Medians of 5 samples of
this process's CPU time. ``--root DIR`` measures another checkout's redaction (run it
once on the old one, once on this one, back to back).

    python benchmarks/mcp_redaction.py [--root /path/to/old/checkout]
"""

from __future__ import annotations

import statistics
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent.parent
ROOT = Path(sys.argv[sys.argv.index("--root") + 1]) if "--root" in sys.argv else HERE
sys.path.insert(0, str(ROOT))

from shell.core.messages import TextBlock, ToolResult  # noqa: E402
from shell.core.secrets import Secrets  # noqa: E402
from shell.tools.mcp_redaction import without_known_secrets  # noqa: E402


def main() -> None:
    known = Secrets(["sk-test-OUTERKEY0123456789abcdefgh"], patterns=False)
    prose = ("The quick brown fox jumps over the lazy dog. " * 700)[:30_000]
    blocks = tuple(TextBlock(prose[i : i + 3000]) for i in range(0, 30_000, 3000))
    answers = {
        "one line": ToolResult("ok: 3 rows", details={"server": "s"}),
        "30 KB prose, one text": ToolResult(prose, details={"server": "s"}),
        "30 KB prose, 10 blocks": ToolResult(blocks, details={"structured": {"a": "x" * 100}}),
    }
    print(f"redaction of {ROOT}")
    for name, answer in answers.items():
        samples = []
        for _ in range(5):
            start = time.process_time()
            without_known_secrets(answer, known)
            samples.append(time.process_time() - start)
        print(f"{name:26s} {1000 * statistics.median(samples):8.2f}ms")


if __name__ == "__main__":
    main()
