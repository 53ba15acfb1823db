"""What other projects' secret files under home cost the values net of each command (r16-home, Q31).

150 ``.env`` files of 256 token values each (a monorepo's per-service files, never
opened), as the home walk would find them. CPU milliseconds (steadier than wall time
on a shared machine), median of 5:

- reading their values at the first command: every file (before r16-home) and the
  bounded home sources (``home_value_files``: 64 files, 1 MB);
- building the net for a command: per call over every file (before), and the net kept
  while the files are unchanged (after: first build, later commands).

- with each file tracked by git in its own repository, committed and since changed
  (r17-lows, Q23): the net takes the staged copies' values too. Wall milliseconds (git
  runs as a child), the copies made at the first command, then kept by index stamp.

- the values the workspace's committed code holds, left out of the net (r17-lows, Q11):
  one ``git grep -F`` over ``HEAD`` of 2,000 files at the first command, then kept while
  the index does not move; wall milliseconds.

    python benchmarks/values_net.py
"""

from __future__ import annotations

import os
import random
import shutil
import statistics
import string
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from shell.permissions import hiddenvalues as hv
from shell.permissions.gitstaged import StagedCopies


def cpu(run: Callable[[], object]) -> float:
    start = time.process_time()
    run()
    return (time.process_time() - start) * 1e3


def main() -> None:
    base = Path(tempfile.mkdtemp(prefix="values-net-bench-", dir=os.path.expanduser("~/.cache")))
    rnd = random.Random(1)
    alphabet = string.ascii_letters + string.digits
    files = []
    try:
        for n in range(150):
            path = base / f"svc{n}" / ".env"
            path.parent.mkdir()
            lines = (f"TOKEN_{i}={''.join(rnd.choices(alphabet, k=32))}\n" for i in range(256))
            path.write_text("".join(lines))
            files.append(path)
        argv = "echo 1"
        read_all = cpu(lambda: [hv.file_values(f) for f in files])
        hv._known.clear()
        read_bounded = cpu(lambda: [hv.file_values(f) for f in hv.home_value_files(files)])
        for path in files:
            hv.file_values(path)
        every = tuple((str(p), hv.file_values(p)) for p in files)
        before = [cpu(lambda: hv._net(every, (), argv)) for _ in range(5)]
        first = cpu(lambda: hv.hidden_values(hv.home_value_files(files), (), str, argv))
        later = [cpu(lambda: hv.hidden_values(hv.home_value_files(files), (), str, argv)) for _ in range(5)]
        print(f"150 .env files x 256 values; load {os.getloadavg()[0]:.1f}; CPU ms")
        print(f"  reading values, first command    before {read_all:7.1f}   after {read_bounded:7.1f}")
        print(f"  the net, per command             before {statistics.median(before):7.1f}   "
              f"after {first:.1f} (first), {statistics.median(later):.1f} (later)")
        staged(files, rnd, alphabet, argv)
        committed(base / "ws", rnd)
    finally:
        shutil.rmtree(base, ignore_errors=True)


def wall(run: Callable[[], object]) -> float:
    start = time.perf_counter()
    run()
    return (time.perf_counter() - start) * 1e3


def staged(files: list[Path], rnd: random.Random, alphabet: str, argv: str) -> None:
    """Each file committed in its own repository, then changed: the net with the staged copies."""
    import subprocess

    env = {**os.environ, "GIT_AUTHOR_NAME": "b", "GIT_AUTHOR_EMAIL": "b@example.org",
           "GIT_COMMITTER_NAME": "b", "GIT_COMMITTER_EMAIL": "b@example.org"}
    for path in files:
        repo = str(path.parent)
        subprocess.run(["git", "init", "-q", repo], check=True, env=env)
        subprocess.run(["git", "-C", repo, "add", ".env"], check=True, env=env)
        subprocess.run(["git", "-C", repo, "commit", "-qm", "x"], check=True, env=env)
        lines = (f"TOKEN_{i}={''.join(rnd.choices(alphabet, k=32))}\n" for i in range(256))
        path.write_text("".join(lines))
    kept = hv.home_value_files(files)
    plain_first = wall(lambda: hv.hidden_values(kept, (), str, argv))
    plain = [wall(lambda: hv.hidden_values(kept, (), str, argv)) for _ in range(5)]
    copies = StagedCopies()
    first = wall(lambda: hv.hidden_values(kept, (), str, argv, copies.copies(kept)))
    later = [wall(lambda: hv.hidden_values(kept, (), str, argv, copies.copies(kept))) for _ in range(5)]
    print(f"  tracked and changed ({len(kept)} repositories), wall ms: without the staged copies "
          f"{plain_first:.1f} (first), {statistics.median(plain):.1f} (later); with them "
          f"{first:.1f} (first), {statistics.median(later):.1f} (later)")


def committed(ws: Path, rnd: random.Random) -> None:
    """A workspace of 2,000 committed files of 2 KB and a .env of 40 word-like values."""
    import subprocess

    from shell.permissions import trackedvalues

    env = {**os.environ, "GIT_AUTHOR_NAME": "b", "GIT_AUTHOR_EMAIL": "b@example.org",
           "GIT_COMMITTER_NAME": "b", "GIT_COMMITTER_EMAIL": "b@example.org"}
    for n in range(2000):
        folder = ws / f"pkg{n % 40}"
        folder.mkdir(parents=True, exist_ok=True)
        words = (rnd.choice(["print(1)", "return x", "self.value", "os.path.join(a, b)", "x = 1"])
                 for _ in range(200))
        (folder / f"m{n}.py").write_text("\n".join(words))
    (ws / ".env").write_text("".join(f"SECRET_{i}=v{i}.{rnd.randint(0, 99)}-word\n" for i in range(39))
                             + "API_TOKEN=print(1)\n")
    subprocess.run(["git", "init", "-q", str(ws)], check=True, env=env)
    subprocess.run(["git", "-C", str(ws), "add", "-A"], check=True, env=env)
    subprocess.run(["git", "-C", str(ws), "commit", "-qm", "x"], check=True, env=env)
    values = hv.file_values(ws / ".env")
    first = wall(lambda: trackedvalues.committed_values([ws], values))
    later = [wall(lambda: trackedvalues.committed_values([ws], values)) for _ in range(5)]
    found = trackedvalues.committed_values([ws], values)
    print(f"  committed code (2,000 files, {len(values)} values, {len(found)} found in it), wall ms: "
          f"{first:.1f} (first), {statistics.median(later):.2f} (later)")


if __name__ == "__main__":
    main()
