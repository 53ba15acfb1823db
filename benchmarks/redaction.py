"""What the password shapes added for findings L11 and r13 cost the one secrets policy.

Every session line, export, trace span and prompt-history entry goes through
``Secrets.text``: one RE2 pass over all shapes, plus a Python check per candidate
match (``password = getpass()`` is vetoed). L11 added seven shapes (PHP ``define()``,
XML ``<password>``, .NET ``<add key value>``, ``mysql -p…``, ``--password …``,
``-passin pass:…``); r13 seven more (Drupal's ``$databases[…]['password']``,
``sshpass -p``, ``curl -u user:pw``, ``redis-cli -a``, ``htpasswd -b``, Java's
``<entry key="password">``, ``.netrc``) and widened the URL password (no user, ``@`` in
it). Baseline: the policy before r13 (without its shapes, the old URL shape), in the
same run; ``--l11`` compares with the policy before L11 instead.
Texts: this repository's ``shell/`` source (ordinary code), README.md (prose about
passwords), and a hostile 1.4 MB mix of the words the shapes start on, which makes
nearly every one a candidate. Medians of 5 samples of this process's CPU time.

The last rows time finding N0's values net (the values of hidden secret files,
redacted from a command's output as it streams): ``--hidden-values`` runs only those.

``--long-tokens`` (finding U13): one long run with no space made of a hostile unit (a JWT,
``token=…&``, a URL with a password, ``Bearer …``) at 100 and 400 KB: the time ratio says
how it grows (4 = linear, 16 = square), against the .pgpass shape before U13 in the same run.

    python benchmarks/redaction.py [--l11 | --hidden-values | --long-tokens]
"""

from __future__ import annotations

import random
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import shell.core.secrets as policy  # noqa: E402

L11 = ("define()", "XML element", ".NET", "MySQL", "command-line option", "openssl")
R13 = ("array element", "sshpass", "curl -u", "redis-cli", "htpasswd", "XML entry", ".netrc")
OLD_URL = policy.Shape("password in a URL",
                       r"(?i)(?P<keep>\b[a-z][a-z0-9+.-]{1,20}://[^\s:/@]{1,256}:)[^\s@/]{1,512}(?P<tail>@)")
WORDS = ["def", "password", "=", "getpass()", "mysql", "-u", "root", "the", "token", "<password>",
         "</password>", "pass", "key", "db_pass:", "--password", "value", "define(", "'DB_PASSWORD',",
         "x" * 10, "-p", "-px", "sshpass", "curl", "-u", "bob:", "redis-cli", "-a", "htpasswd", "-b",
         "machine", "login", "default", "<entry", 'key="password">', "['password']", "https://u:",
         "p@", "a@b", "//:"]


def texts() -> dict[str, str]:
    rng = random.Random(1)
    code = "".join(p.read_text() for p in sorted((ROOT / "shell").rglob("*.py")))
    return {
        f"shell/ source ({len(code) // 1024} KB)": code,
        "README.md": (ROOT / "README.md").read_text(),
        "hostile mix (1.4 MB)": " ".join(rng.choice(WORDS) for _ in range(200_000)),
    }


def cpu(shapes: tuple[policy.Shape, ...], text: str, rounds: int = 5) -> float:
    policy.SHAPES = shapes
    policy._compile.cache_clear()
    secrets = policy.Secrets()
    secrets.text("warm up")
    samples = []
    for _ in range(rounds):
        start = time.process_time()
        secrets.text(text)
        samples.append(time.process_time() - start)
    return statistics.median(samples)


def hidden_values_rows() -> None:
    """Finding N0's second net: the values of the secret files a sandboxed command did
    not see, redacted from its output as it streams (``StreamRedaction``, 64 KB reads of
    the pipe as ``run_shell`` gets them), against the same stream passed through with no
    values; and finding a file's values again when it did not change (one ``stat``)."""
    import tempfile

    from shell.permissions import hiddenvalues

    rng = random.Random(2)
    letters = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
    values = ["".join(rng.choice(letters) for _ in range(rng.randint(16, 48))) for _ in range(50)]
    with tempfile.TemporaryDirectory() as folder:
        env = Path(folder) / ".env"
        env.write_text("".join(f"SERVICE_{n}_TOKEN={v}\n" for n, v in enumerate(values)))
        known = hiddenvalues.hidden_values([env])
        code = "".join(p.read_text() for p in sorted((ROOT / "shell").rglob("*.py")))
        plain = (code * (1 + (1 << 20) // len(code)))[: 1 << 20]
        lines = plain.splitlines(keepends=True)
        for n in range(0, len(lines), 200):  # a value on every 200th line: ~100 hits
            lines[n] = f"+SERVICE_TOKEN={values[n % 50]}\n"
        hits = "".join(lines)[: 1 << 20]
        print(f"\n{'1 MB output, 50 known values':36} {'no values':>10} {'50 values':>10} {'ratio':>7}")
        for name, text in (("ordinary output (no value in it)", plain), ("a value every 200 lines", hits)):
            b = stream_cpu(hiddenvalues.NO_VALUES, text)
            n = stream_cpu(known, text)
            print(f"{name:36} {b * 1e3:8.1f}ms {n * 1e3:8.1f}ms {n / max(b, 1e-9):6.1f}x")
        samples = []
        for _ in range(5):
            start = time.process_time()
            for _ in range(1000):
                hiddenvalues.hidden_values([env])
            samples.append((time.process_time() - start) / 1000)
        print(f"{'values of an unchanged .env again':36} {statistics.median(samples) * 1e6:8.1f}us")


def stream_cpu(values: object, text: str) -> float:
    from shell.permissions.hiddenvalues import HiddenValues, StreamRedaction

    assert isinstance(values, HiddenValues)
    samples = []
    for _ in range(5):
        stream = StreamRedaction(values)
        start = time.process_time()
        out = [stream.feed(text[i : i + 65536]) for i in range(0, len(text), 65536)]
        out.append(stream.flush())
        samples.append(time.process_time() - start)
    return statistics.median(samples)


OLD_PGPASS = policy.Shape(".pgpass line (host:port:database:user:password)",
                          r"(?P<keep>(?:\*|\blocalhost|[^:\s]*[./][^:\s]*):(?:[0-9]{2,5}|\*):"
                          r"[^:\s]+:[^:\s]+:)[^\s\"']+")
UNITS = ("eyJ" + "a" * 20 + ".", "token=aaaaaaaa&", "mysql://u:p@h/", "Bearer aaaaaaaaa ")


def long_token_rows() -> None:
    """U13: before, an unbounded host part in the .pgpass shape kept every earlier start
    alive to the run's end, so RE2 read the rest of the run again after each match."""
    now = policy.SHAPES
    before = tuple(OLD_PGPASS if s.name == OLD_PGPASS.name else s for s in now)
    print(f"{'unit':22} {'before 100K':>12} {'400K':>9} {'x':>5} | {'now 100K':>9} {'400K':>9} {'x':>5}")
    for unit in UNITS:
        small, big = unit * (100_000 // len(unit)), unit * (400_000 // len(unit))
        b1, b4, n1, n4 = (cpu(before, small, 1), cpu(before, big, 1), cpu(now, small, 1), cpu(now, big, 1))
        print(f"{unit[:22]:22} {b1 * 1e3:10.0f}ms {b4 * 1e3:7.0f}ms {b4 / b1:5.1f} | "
              f"{n1 * 1e3:7.0f}ms {n4 * 1e3:7.0f}ms {n4 / n1:5.1f}")
    policy.SHAPES = now
    policy._compile.cache_clear()


def main() -> None:
    if "--long-tokens" in sys.argv:
        long_token_rows()
        return
    if "--hidden-values" in sys.argv:
        hidden_values_rows()
        return
    now = policy.SHAPES
    added = L11 + R13 if "--l11" in sys.argv else R13
    before = tuple(OLD_URL if s.name == OLD_URL.name else s
                   for s in now if not any(word in s.name for word in added))
    print(f"{'text':28} {'before':>10} {'now':>10} {'ratio':>7}   ({len(before)} -> {len(now)} shapes)")
    for name, text in texts().items():
        b, n = cpu(before, text), cpu(now, text)
        print(f"{name:28} {b * 1e3:8.1f}ms {n * 1e3:8.1f}ms {n / b:6.2f}x")
    policy.SHAPES = now
    policy._compile.cache_clear()
    hidden_values_rows()


if __name__ == "__main__":
    main()
