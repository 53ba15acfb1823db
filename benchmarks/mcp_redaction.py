"""What redacting an MCP answer of the run's known keys costs (findings V3, X3), and
passing it through the workspace's hidden-values net (finding X15).

Since X3 every text block, the blocks joined, text blobs and structured content are
read in every spelling the egress check reads (``secret_going_out``), not only
searched for the key as written. Answers: one short line, 30 KB of prose (the result
cap) as one text, as 400 lines (each line read on its own too since A8) and as ten
blocks with structured content. Medians of 5 samples of
this process's CPU time. The net is measured in a workspace of 200 small files and an
``.env`` of three values, warm (the secret-file search and the values cached, as from
the second call on). ``--root DIR`` measures another checkout's redaction (run it
once on the old one, once on this one, back to back).

    python benchmarks/mcp_redaction.py [--root /path/to/old/checkout]
"""

from __future__ import annotations

import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent.parent
ROOT = Path(sys.argv[sys.argv.index("--root") + 1]) if "--root" in sys.argv else HERE
sys.path.insert(0, str(ROOT))

from shell.core.messages import TextBlock, ToolResult  # noqa: E402
from shell.core.secrets import Secrets  # noqa: E402
from shell.tools.mcp_redaction import without_known_secrets  # noqa: E402


def _median_ms(run: Callable[[], Any]) -> float:
    samples = []
    for _ in range(5):
        start = time.process_time()
        run()
        samples.append(time.process_time() - start)
    return 1000 * statistics.median(samples)


def _net(answers: dict[str, ToolResult]) -> None:
    """The hidden-values net over the same answers (absent before X15's commit)."""
    try:
        from shell.permissions.sandbox import Sandbox
        from shell.tools.mcp_values import answer_without_hidden_values
    except ImportError:
        print("hidden-values net: not in this checkout")
        return
    with tempfile.TemporaryDirectory() as tmp:
        ws = Path(tmp)
        (ws / ".env").write_text("DB_PASSWORD=Xk9mP2vQ7wLr4Tz8hunter\nAPI_TOKEN=Qm7Lp2Wx9Rt4Zs8Vn3Ky6Hb1\n"
                                 "STRIPE=sk_live_51Habcdefghijklmnopqrstuv\n")
        for i in range(200):
            (ws / f"f{i}.py").write_text(f"print({i})\n")
        box = Sandbox(ws)
        start = time.process_time()
        answer_without_hidden_values(answers["one line"], box, {"q": "x"}, {}, [ws])
        print(f"{'net, first call (search)':26s} {1000 * (time.process_time() - start):8.2f}ms")
        for name, answer in answers.items():
            ms = _median_ms(lambda a=answer: answer_without_hidden_values(a, box, {"q": "x"}, {}, [ws]))
            print(f"{'net, ' + name:26s} {ms:8.2f}ms")


def main() -> None:
    known = Secrets(["sk-test-OUTERKEY0123456789abcdefgh"], patterns=False)
    prose = ("The quick brown fox jumps over the lazy dog. " * 700)[:30_000]
    blocks = tuple(TextBlock(prose[i : i + 3000]) for i in range(0, 30_000, 3000))
    answers = {
        "one line": ToolResult("ok: 3 rows", details={"server": "s"}),
        "30 KB prose, one text": ToolResult(prose, details={"server": "s"}),
        "30 KB prose, 400 lines": ToolResult(
            "\n".join(prose[i : i + 75] for i in range(0, 30_000, 75)), details={"server": "s"}),
        "30 KB prose, 10 blocks": ToolResult(blocks, details={"structured": {"a": "x" * 100}}),
    }
    print(f"redaction of {ROOT}")
    for name, answer in answers.items():
        print(f"{name:26s} {_median_ms(lambda a=answer: without_known_secrets(a, known)):8.2f}ms")
    _net(answers)


if __name__ == "__main__":
    main()
