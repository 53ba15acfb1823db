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

    python benchmarks/redaction.py
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


def cpu(shapes: tuple[policy.Shape, ...], text: str) -> float:
    policy.SHAPES = shapes
    policy._compile.cache_clear()
    secrets = policy.Secrets()
    secrets.text("warm up")
    samples = []
    for _ in range(5):
        start = time.process_time()
        secrets.text(text)
        samples.append(time.process_time() - start)
    return statistics.median(samples)


def main() -> None:
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


if __name__ == "__main__":
    main()
