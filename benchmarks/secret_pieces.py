"""What reading known values in pieces and in more spellings costs, and whether it
fires on ordinary text (findings C4, C5).

Real texts, 1 MB each: a build and test log (gdb's ``check.log``), a minified
JavaScript file, PNG images base64-encoded, git object ids, and agent-shell's own
code. 70 known values (50 random letters-and-digits of 16-48, 10 hex of 40, 10 lower
case of 24). Each text is read three ways:

- ``pieces``: :func:`shell.permissions.egresspieces.pieced_value` on an MCP call whose
  arguments are the text in 60 KB strings (C4: runs of a value inside a string);
- ``folded``: :func:`shell.permissions.egressfolded.respelled_value` on the same
  strings (the egress check's respellings, C5);
- ``values net``: ``StreamRedaction`` of the text in 64 KB reads, as ``run_shell``'s
  output, with the values as a hidden ``.env``'s (C5's spellings in the values net).

``--many`` times the values net alone with 256 values (the net's cap) on the build log,
once (one RE2 expression for all of them took 16 s a megabyte before finding C5).

Each prints CPU ms (median of 3) and what it found (``-`` for nothing: any other answer
on these texts is a false positive). ``--root DIR`` measures another checkout (run it
on the old one, then on this one, back to back). Texts missing on a machine are skipped.

    python benchmarks/secret_pieces.py [--root /path/to/old/checkout] [--many]
"""

from __future__ import annotations

import base64
import gzip
import random
import statistics
import string
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

HERE = Path(__file__).resolve().parent.parent
ROOT = Path(sys.argv[sys.argv.index("--root") + 1]) if "--root" in sys.argv else HERE
sys.path.insert(0, str(ROOT))

from shell.permissions import hiddenvalues  # noqa: E402
from shell.permissions.egressfolded import respelled_value  # noqa: E402
from shell.permissions.egresspieces import pieced_value  # noqa: E402

SIZE = 1 << 20
LOG = Path("/usr/share/doc/gdb/check.log.gz")
MINIFIED = Path("/usr/lib/node_modules/npm/node_modules/tar/dist/commonjs/index.min.js")
IMAGES = Path("/root/.rustup/toolchains")


def _sized(text: str) -> str:
    return (text * (1 + SIZE // max(1, len(text))))[:SIZE] if text else ""


def texts() -> dict[str, str]:
    """The real texts found on this machine, each cut or repeated to 1 MB."""
    found: dict[str, str] = {}
    if LOG.exists():
        found["build log"] = _sized(gzip.decompress(LOG.read_bytes()).decode("utf-8", "replace"))
    if MINIFIED.exists():
        found["minified JS"] = _sized(MINIFIED.read_text(errors="replace"))
    pngs = sorted(IMAGES.rglob("*.png"))[:40] if IMAGES.exists() else []
    if pngs:
        found["base64 PNGs"] = _sized("\n".join(base64.b64encode(p.read_bytes()).decode() for p in pngs))
    ids = subprocess.run(["git", "-C", str(HERE), "log", "--format=%H %T %P", "-n", "20000"],
                         capture_output=True, text=True).stdout
    if ids:
        found["git object ids"] = _sized(ids)
    found["agent-shell code"] = _sized("".join(p.read_text() for p in sorted((HERE / "shell").rglob("*.py"))))
    return found


def values() -> list[str]:
    rng = random.Random(21)
    alnum = string.ascii_letters + string.digits
    return ([("".join(rng.choices(alnum, k=rng.randint(16, 48)))) for _ in range(50)]
            + ["".join(rng.choices("0123456789abcdef", k=40)) for _ in range(10)]
            + ["".join(rng.choices(string.ascii_lowercase + string.digits, k=24)) for _ in range(10)])


def cpu(run: Callable[[], object]) -> tuple[float, object]:
    samples, got = [], None
    for _ in range(3):
        start = time.process_time()
        got = run()
        samples.append(time.process_time() - start)
    return statistics.median(samples) * 1e3, got


def many() -> None:
    rng = random.Random(22)
    alnum = string.ascii_letters + string.digits
    known = values() + ["".join(rng.choices(alnum, k=rng.randint(16, 48))) for _ in range(186)]
    text = texts().get("build log") or texts()["agent-shell code"]
    with tempfile.TemporaryDirectory() as folder:
        env = Path(folder) / ".env"
        env.write_text("".join(f"SERVICE_{n}_TOKEN={v}\n" for n, v in enumerate(known)))
        net = hiddenvalues.hidden_values([env])
        for label in ("first", "again"):
            start = time.process_time()
            redaction = hiddenvalues.StreamRedaction(net)
            for i in range(0, len(text), 65536):
                redaction.feed(text[i : i + 65536])
            redaction.flush()
            print(f"values net, 256 values, 1 MB, {label}: {(time.process_time() - start) * 1e3:.0f} ms")


def main() -> None:
    if "--many" in sys.argv:
        many()
        return
    known = values()
    with tempfile.TemporaryDirectory() as folder:
        env = Path(folder) / ".env"
        env.write_text("".join(f"SERVICE_{n}_TOKEN={v}\n" for n, v in enumerate(known)))
        net = hiddenvalues.hidden_values([env])
        print(f"{'1 MB of':18} {'pieces':>9} {'found':>6} {'folded':>9} {'found':>6} "
              f"{'values net':>11} {'found':>6}")
        for name, text in texts().items():
            strings = [text[i : i + 60_000] for i in range(0, len(text), 60_000)]
            pieces_ms, pieced = cpu(lambda strings=strings: pieced_value({"parts": strings}, known))
            folded_ms, folded = cpu(lambda strings=strings: respelled_value(strings, tuple(known)))

            def stream(text: str = text) -> dict[str, str]:
                redaction = hiddenvalues.StreamRedaction(net)
                for i in range(0, len(text), 65536):
                    redaction.feed(text[i : i + 65536])
                redaction.flush()
                return redaction.found

            net_ms, withheld = cpu(stream)
            print(f"{name:18} {pieces_ms:7.0f}ms {'-' if pieced is None else 'YES':>6} {folded_ms:7.0f}ms "
                  f"{'-' if folded is None else 'YES':>6} {net_ms:9.0f}ms {len(withheld) or '-':>6}")


if __name__ == "__main__":
    main()
