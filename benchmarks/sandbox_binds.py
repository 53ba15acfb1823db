"""Where the launcher of ``shell.permissions.sandboxmounts`` pays for its start (r18-mounts).

bubblewrap alone with N file binds (``--ro-bind EMPTY FILE``) against the same sandbox whose N
binds the launcher makes, interleaved, median wall ms. The cut-over (``sandboxmounts.WORTH``)
moves with the host's mounts: each of bubblewrap's binds reads the whole mount table. Run it
with ~1,000 host mounts as ``benchmarks/sandbox_setup.py`` says.

    python benchmarks/sandbox_binds.py [--rounds 9]
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from shell.core.programs import which
from shell.permissions import sandboxmounts

COUNTS = (0, 10, 20, 40, 80, 120)
BASE = ["--die-with-parent", "--new-session", "--unshare-all", "--cap-drop", "ALL", "--ro-bind", "/", "/",
        "--dev", "/dev", "--proc", "/proc", "--tmpfs", "/tmp", "--tmpfs", "/var/tmp"]  # fmt: skip


def options(files: list[str], empty: str, n: int) -> list[str]:
    out = list(BASE)
    for path in files[:n]:
        out += ["--ro-bind", empty, path]
    return out


def by_bubblewrap(bwrap: str, opts: list[str]) -> None:
    subprocess.run([bwrap, *opts, "--", "true"], check=True)


def by_launcher(bwrap: str, opts: list[str], python: str) -> None:
    moved = sandboxmounts.split(opts)
    listing, marker = os.memfd_create("binds"), os.memfd_create("marker")
    try:
        os.write(listing, moved.payload({"PATH": os.environ.get("PATH", "/usr/bin:/bin")}))
        os.lseek(listing, 0, os.SEEK_SET)
        argv = [bwrap, *moved.options, "--", *moved.command(python, listing, marker, ["true"])]
        subprocess.run(argv, check=True, pass_fds=(listing, marker))
        if os.pread(marker, 2, 0) != b"ok":
            raise SystemExit("the launcher failed")
    finally:
        os.close(listing)
        os.close(marker)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=9)
    rounds = parser.parse_args().rounds
    bwrap = which("bwrap")
    python = sandboxmounts.python_for_launcher([])
    if bwrap is None or python is None:
        sys.exit("needs bwrap and an interpreter the launcher may run on")
    base = tempfile.mkdtemp(prefix="sandbox-binds-bench-", dir=os.path.expanduser("~/.cache"))
    try:
        files = []
        for n in range(max(COUNTS)):
            path = os.path.join(base, f"f{n}.env")
            Path(path).write_text("KEY=x\n")
            files.append(path)
        empty = os.path.join(base, "empty")
        Path(empty).write_text("")
        times: dict[tuple[str, int], list[float]] = {}
        for _ in range(rounds):
            for n in COUNTS:
                opts = options(files, empty, n)
                for kind in ("bwrap", "launcher") if n else ("bwrap",):
                    start = time.perf_counter()
                    if kind == "bwrap":
                        by_bubblewrap(bwrap, opts)
                    else:
                        by_launcher(bwrap, opts, python)
                    times.setdefault((kind, n), []).append((time.perf_counter() - start) * 1e3)
        print(f"{sandboxmounts.host_mounts()} host mounts, load {os.getloadavg()[0]:.1f}, "
              f"median wall ms of {rounds}")
        for n in COUNTS:
            alone = statistics.median(times[("bwrap", n)])
            if not n:
                print(f"  {n:4d} binds: bubblewrap {alone:7.1f}")
                continue
            launched = statistics.median(times[("launcher", n)])
            worth = "yes" if sandboxmounts.worth_it(n, sandboxmounts.host_mounts()) else "no"
            print(f"  {n:4d} binds: bubblewrap {alone:7.1f}  launcher {launched:7.1f}  "
                  f"({alone / launched:.2f}x; used: {worth})")
    finally:
        shutil.rmtree(base, ignore_errors=True)


if __name__ == "__main__":
    main()
