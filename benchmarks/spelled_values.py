"""What the values net costs a command's output as the hidden values grow (finding D18).

The net takes out of a command's output the values of the secret files it was not
shown, as they are and in other spellings (reversed, base64, hex, spaced …:
``shell.core.secretspellings``). Before D18 the spellings were searched with their own
expressions (a separator class between each letter), which ran out of RE2's DFA memory
past ~30 values: 300 KB of output cost +4.7 s at 100 values, +15 s at 256 on a loaded
machine. Now plain anchors (a value's letters, its hex, its written-out spellings, each
read from the text folded the same way) tell which values a text may hold, and only
those are searched in full.

Rows: ``.env`` files of N values in all (24 random letters and digits each), 300 KB of output
(3,000 lines of 100 random letters, no value in it; then the same with one value
reversed and one base64-encoded in it), fed to ``StreamRedaction`` in 64 KB reads of
the pipe as ``run_shell`` gets them; CPU ms, median of 5, after one warm-up (the
compile, once per set of values, is its own column). "plain pass": the same output
through the plain values net alone (``Secrets(values).text``: one RE2 pass over the
values as written), the floor this net is measured against.

    python benchmarks/spelled_values.py [--root TREE] [--values 10,100,1000]

``--root`` imports ``shell`` from another checkout (main before a change) for a
before/after in one run.
"""

from __future__ import annotations

import argparse
import base64
import functools
import random
import statistics
import string
import sys
import tempfile
import time
from pathlib import Path


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--root", default=str(Path(__file__).resolve().parent.parent))
    parser.add_argument("--values", default="10,100,1000")
    args = parser.parse_args()
    sys.path.insert(0, args.root)
    from shell.core.secrets import Secrets
    from shell.permissions import hiddenvalues

    rng = random.Random(3)
    letters = string.ascii_letters + string.digits
    lines = ["".join(rng.choice(string.ascii_letters) for _ in range(100)) for _ in range(3000)]
    ordinary = "\n".join(lines) + "\n"
    print(f"shell from {args.root}")
    print(f"{'values':>7} {'compile':>9} {'plain pass':>11} {'no value in it':>15} {'ratio':>6} "
          f"{'two spelled':>12} {'ratio':>6} {'withheld':>9}")
    for count in (int(n) for n in args.values.split(",")):
        values = ["".join(rng.choice(letters) for _ in range(24)) for _ in range(count)]
        holding = list(lines)
        holding[1000] = values[-1][::-1]
        holding[2000] = base64.b64encode(values[0].encode()).decode()
        spelled = "\n".join(holding) + "\n"
        with tempfile.TemporaryDirectory() as folder:
            files = []
            for first in range(0, count, 200):  # (a file gives 256 values at most)
                files.append(Path(folder) / f".env.{first}")
                some = range(first, min(count, first + 200))
                files[-1].write_text("".join(f"KEY_{n}={values[n]}\n" for n in some))
            known = hiddenvalues.hidden_values(files)
            start = time.process_time()
            known.redact("warm up")
            compiled = time.process_time() - start
            plain = cpu(Secrets(values, patterns=False).text, ordinary)
            none = cpu(functools.partial(stream, hiddenvalues, known), ordinary)
            two = cpu(functools.partial(stream, hiddenvalues, known), spelled)
            withheld = stream(hiddenvalues, known, spelled).count("[REDACTED")
        print(f"{count:>7} {compiled * 1e3:7.0f}ms {plain * 1e3:9.0f}ms {none * 1e3:13.0f}ms "
              f"{none / max(plain, 1e-9):5.1f}x {two * 1e3:10.0f}ms {two / max(plain, 1e-9):5.1f}x "
              f"{withheld:>7}/2")


def stream(hiddenvalues: object, known: object, text: str) -> str:
    redaction = hiddenvalues.StreamRedaction(known)  # type: ignore[attr-defined]
    out = [redaction.feed(text[i : i + 65536]) for i in range(0, len(text), 65536)]
    return "".join([*out, redaction.flush()])


def cpu(run: object, text: str, rounds: int = 5) -> float:
    assert callable(run)
    run(text)
    samples = []
    for _ in range(rounds):
        start = time.process_time()
        run(text)
        samples.append(time.process_time() - start)
    return statistics.median(samples)


if __name__ == "__main__":
    main()
