"""What walking home for other projects' secret files costs a sandboxed command (r14-home, N5).

A made-up home of ``--files`` files in ``--folders`` folders (other projects: sources,
a ``.env`` and a git repository every so often, a ``node_modules`` skipped), with the
workspace one of its folders. Shown, interleaved in one run so load hits all alike,
median wall milliseconds of:

- bare bubblewrap running ``true`` (``bwrap --ro-bind / / --dev /dev --proc /proc``);
- our first command in a new sandbox (the walk lists every folder of home: the walk
  at start does this in the background, so it is the worst case);
- a later command in the same sandbox (each folder's listing kept by its stamp: one
  ``lstat`` per folder), and the same without the home walk (as before r14-home);
- the home walk alone, first and later (``HomeFiles.find``).

    python benchmarks/home_walk.py [--rounds 5] [--files 50000] [--folders 5000] [--dot-files 10000]
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
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from shell.core.programs import which
from shell.permissions import homewalk
from shell.permissions.homewalk import HomeFiles
from shell.permissions.sandbox import Sandbox


def make_home(base: Path, files: int, folders: int) -> None:
    per = max(files // folders, 1)
    projects = max(folders // 100, 1)
    for f in range(folders):
        project = base / "projects" / f"p{f % projects}"
        folder = project / f"src{f // projects // 10}" / f"mod{f}"
        folder.mkdir(parents=True, exist_ok=True)
        for i in range(per):
            (folder / f"file{i}.py").write_text("x = 1\n")
        if f % 50 == 0:
            (folder / ".env").write_text("KEY=sk-proj-BENCH\n")
    for p in range(projects):
        gitdir = base / "projects" / f"p{p}" / ".git"
        gitdir.mkdir(exist_ok=True)
        (gitdir / "config").write_text('[remote "o"]\n\turl = https://u:ghp_BENCHTOKEN@example.com/r\n')
    (base / "project").mkdir()
    (base / ".cache").mkdir()


def make_dot_folders(base: Path, files: int) -> None:
    """Home's dot folders: apps' settings in ``~/.config`` and ``~/.local/share``, a dotfiles
    repository, ten files a folder, three folders deep, a ``.env`` every 20 folders."""
    for f in range(max(files // 10, 1)):
        top = (".config", ".local/share", ".dotfiles")[f % 3]
        folder = base / top / f"app{f // 30}" / f"a{f % 30 // 6}" / f"b{f % 6}"
        folder.mkdir(parents=True, exist_ok=True)
        for i in range(10):
            (folder / f"setting{i}.json").write_text("{}\n")
        if f % 20 == 0:
            (folder / ".env").write_text("KEY=sk-proj-DOTBENCH\n")


def timed(run: Callable[[], object]) -> float:
    start = time.perf_counter()
    run()
    return (time.perf_counter() - start) * 1e3


def cpu(run: Callable[[], object]) -> float:
    """CPU milliseconds of ``run`` (steadier than wall time on a loaded machine)."""
    start = time.process_time()
    run()
    return (time.process_time() - start) * 1e3


def without_dot_folders() -> HomeFiles:
    """A walk that leaves home's dot folders out, as before r16-home (to compare)."""
    walk = HomeFiles()
    prune = walk.index.prune
    assert prune is not None

    def old_prune(path: str) -> bool:
        cut = path.rfind("/")
        return prune(path) or (path.startswith(".", cut + 1) and path[:cut] in walk._homes)

    walk.index.prune = old_prune
    return walk


def ours(box: Sandbox, env: dict[str, str]) -> None:
    box.prepare()
    argv = box.wrap(["true"], hidden=box.hidden_paths())
    subprocess.run(argv, env=env, check=True)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--files", type=int, default=50_000)
    parser.add_argument("--folders", type=int, default=5_000)
    parser.add_argument("--dot-files", type=int, default=10_000, help="files in home's dot folders")
    options = parser.parse_args()
    bwrap = which("bwrap")
    if bwrap is None:
        sys.exit("bwrap is not installed")
    base = Path(tempfile.mkdtemp(prefix="home-walk-bench-", dir=os.path.expanduser("~/.cache")))
    os.environ["HOME"] = str(base)
    homewalk.home_dirs = lambda: [base]  # not also the password database's home: this one only
    try:
        make_home(base, options.files, options.folders)
        make_dot_folders(base, options.dot_files)
        env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": str(base)}
        bare = [bwrap, "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--", "true"]
        print(f"home of {options.files:,} files in {options.folders:,} folders, "
              f"{options.dot_files:,} in its dot folders; "
              f"load {os.getloadavg()[0]:.1f}; median ms of {options.rounds} rounds")
        keys = ("bare", "first", "later", "off", "walk1", "walk2", "nodot1", "nodot2", "cpu1", "cpu2",
                "cpuno1", "cpuno2")
        rows: dict[str, list[float]] = {k: [] for k in keys}
        for _ in range(options.rounds):
            rows["bare"].append(timed(lambda: subprocess.run(bare, env=env, check=True)))
            box = Sandbox(base / "project")
            rows["first"].append(timed(lambda: ours(box, env)))  # noqa: B023 (run at once)
            rows["later"].append(timed(lambda: ours(box, env)))  # noqa: B023
            off = Sandbox(base / "project")
            off.home_files.homes = lambda roots: []  # type: ignore[method-assign]  # as before r14-home
            ours(off, env)
            rows["off"].append(timed(lambda: ours(off, env)))  # noqa: B023
            walk = HomeFiles()
            rows["walk1"].append(timed(lambda: walk.find([base / "project"])))  # noqa: B023
            rows["walk2"].append(timed(lambda: walk.find([base / "project"])))  # noqa: B023
            for kind, make in (("cpu", HomeFiles), ("cpuno", without_dot_folders)):
                walker = make()
                rows[f"{kind}1"].append(cpu(lambda: walker.find([base / "project"])))  # noqa: B023
                rows[f"{kind}2"].append(cpu(lambda: walker.find([base / "project"])))  # noqa: B023
            nodot = without_dot_folders()
            rows["nodot1"].append(timed(lambda: nodot.find([base / "project"])))  # noqa: B023
            rows["nodot2"].append(timed(lambda: nodot.find([base / "project"])))  # noqa: B023
        found = box.home_files.last
        assert found is not None
        med = {k: statistics.median(v) for k, v in rows.items()}
        print(f"  bare bwrap                 {med['bare']:8.1f}")
        print(f"  ours, first command        {med['first']:8.1f}   ({med['first'] / med['bare']:.1f}x bare)")
        print(f"  ours, a later command      {med['later']:8.1f}   ({med['later'] / med['bare']:.1f}x bare)")
        print(f"  later, no home walk        {med['off']:8.1f}   ({med['off'] / med['bare']:.1f}x bare)")
        print(f"  home walk alone, first     {med['walk1']:8.1f}")
        print(f"  home walk alone, later     {med['walk2']:8.1f}")
        print(f"  walk, dot folders skipped  {med['nodot1']:8.1f} / {med['nodot2']:.1f}   (before r16-home)")
        print(f"  walk CPU ms, first / later {med['cpu1']:8.1f} / {med['cpu2']:.1f}   "
              f"(dot folders skipped: {med['cpuno1']:.1f} / {med['cpuno2']:.1f})")
        print(f"  hidden: {len(found.files)} files, {len(found.configs)} git configs scrubbed, "
              f"{len(found.covered)} folders hidden whole")
    finally:
        shutil.rmtree(base, ignore_errors=True)


if __name__ == "__main__":
    main()
