"""Where a sandboxed command's set-up time goes on a realistic, busy machine (r17-cost).

A made-up home as a developer's: 10,000 files in its dot folders (``~/.config``,
``~/.local/share``, a dotfiles repository: :func:`home_walk.make_dot_folders`), 50 other
projects each with a ``.env`` (one in ten with a token in its git remote), a PATH of 12 folders
(``~/bin``, ``~/.local/bin``, ``~/go/bin`` … and the system's), and a workspace that is a
repository with a ``.venv``, a ``.env`` and editor settings. Shown, interleaved in one run
so load hits all alike (median wall ms):

- ``sh -c true`` bare, bare ``bwrap --bind / / true``;
- ours, a later command (what every command pays once the first walk is done): the
  Python side as ``run_shell`` runs it (``confine``: the walks, the values net, the
  paths to hide, building bubblewrap's options) and the spawn of bubblewrap with them;
- bubblewrap alone with our options (no Python): the kernel's and bubblewrap's side,
  and the number of mounts it makes. Each mount costs bubblewrap a read of the mount
  table, so the machine's own mounts (snaps, containers: shown) multiply it.

Then the Python side alone in CPU ms, part by part (median of ``--rounds``).

    python benchmarks/sandbox_setup.py [--rounds 15]
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

import anyio

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from home_walk import make_dot_folders

from shell.core.programs import which
from shell.permissions import homedirs, homelinks, homewalk, sandbox
from shell.permissions.hiddenvalues import hidden_values, home_value_files
from shell.permissions.homesecrets import found_in_config, home_stores
from shell.permissions.sandbox import Sandbox
from shell.tools.shell_cmd import confine

MOUNTS = ("--bind", "--bind-try", "--ro-bind", "--ro-bind-try", "--tmpfs", "--dev", "--proc")


def make_home(base: Path, projects: int) -> Path:
    """Other projects (a ``.env``, a token in a git remote, some sources), the dot
    folders, PATH's folders under home; returns the workspace."""
    for p in range(projects):
        project = base / "projects" / f"p{p}"
        for m in range(20):
            folder = project / "src" / f"mod{m}"
            folder.mkdir(parents=True, exist_ok=True)
            for i in range(5):
                (folder / f"file{i}.py").write_text("x = 1\n")
        (project / ".env").write_text(f"API_KEY=sk-proj-{p:04d}abcdefghijklmnopqrstuv\nDEBUG=1\n")
        (project / ".git").mkdir()
        token = "u:ghp_BENCHTOKEN@" if p % 10 == 0 else ""  # one remote in ten holds a token
        (project / ".git" / "config").write_text(f'[remote "o"]\n\turl = https://{token}example.com/r\n')
    make_dot_folders(base, 10_000)
    for rel in ("bin", ".local/bin", "go/bin", ".cargo/bin", ".npm-global/bin", ".cache"):
        (base / rel).mkdir(parents=True, exist_ok=True)
    (base / ".local/bin/tool").write_text("#!/bin/sh\n")
    workspace = base / "work" / "app"
    (workspace / "src").mkdir(parents=True)
    for i in range(200):
        (workspace / "src" / f"m{i}.py").write_text("x = 1\n")
    (workspace / ".env").write_text("DB_PASSWORD=correcthorsebatterystaple\n")
    (workspace / ".vscode").mkdir()
    (workspace / ".vscode" / "settings.json").write_text("{}\n")
    subprocess.run(["git", "init", "-q", str(workspace)], check=True)
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(workspace / ".venv")], check=True)
    return workspace


def kinds(argv: list[str], workspace: Path) -> str:
    """Where the mounts go: the workspace (its walls, secret files), the rest of home (other
    projects' secret files, scrubbed configs, stores), elsewhere (system, /dev, /proc, /tmp)."""
    home = os.environ["HOME"]
    counts = {"workspace": 0, "home": 0, "elsewhere": 0}
    for i, arg in enumerate(argv):
        if arg not in MOUNTS:
            continue
        target = argv[i + 1] if arg in ("--tmpfs", "--dev", "--proc") else argv[i + 2]
        where = ("workspace" if target.startswith(f"{workspace}") else
                 "home" if target.startswith(f"{home}/") else "elsewhere")
        counts[where] += 1
    return ", ".join(f"{n} {k}" for k, n in counts.items())


def host_mounts() -> int:
    with open("/proc/self/mountinfo", encoding="utf-8") as fh:
        return sum(1 for _ in fh)


def timed(run: Callable[[], object]) -> float:
    start = time.perf_counter()
    run()
    return (time.perf_counter() - start) * 1e3


def cpu(run: Callable[[], object]) -> float:
    start = time.process_time()
    run()
    return (time.process_time() - start) * 1e3


def prepared(box: Sandbox) -> list[str]:
    """``confine``'s bubblewrap command line (options inline, as ``--args`` would read them)."""
    confined = anyio.run(lambda: confine(box, ["true"], network=False, shown=()))
    confined.launch.close()
    box.unmark()
    return box.wrap(["true"], secrets=confined.secrets, hidden=box.hidden_paths(), walls=confined.guard)


def ours(box: Sandbox, env: dict[str, str]) -> None:
    confined = anyio.run(lambda: confine(box, ["true"], network=False, shown=(), direct=True))
    try:
        subprocess.run(confined.argv, env=confined.env, check=True, pass_fds=confined.launch.fds)
    finally:
        confined.launch.close()
        box.after(confined.guard, time.time_ns())


def parts(box: Sandbox) -> dict[str, float]:
    """CPU ms of each piece of the Python side, as ``confine`` calls them."""
    out: dict[str, float] = {}
    found: list[object] = []
    out["prepare (walks, walls)"] = cpu(lambda: found.append(box.prepare()))
    out["  of it: home walk"] = cpu(box.home_secrets)
    out["  of it: workspace walk"] = cpu(box.secret_files)
    out["hidden_paths"] = cpu(box.hidden_paths)
    home = box.home_files.index.roots[0]
    out["  of it: found_in_config"] = cpu(lambda: found_in_config(home))
    out["  of it: home_stores"] = cpu(lambda: home_stores(home))
    home = box.home_files.last
    kept = home_value_files(home.files if home is not None else ())
    started = time.time_ns()
    _, guard = box.prepare()
    out["after (the check after it)"] = cpu(lambda: box.after(guard, started))
    out["values net"] = cpu(lambda: hidden_values(kept, (), str, "true"))
    hidden = box.hidden_paths()
    out["wrap (building the options)"] = cpu(lambda: box.wrap(["true"], hidden=hidden))
    box.unmark()
    return out


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=15)
    parser.add_argument("--projects", type=int, default=50)
    options = parser.parse_args()
    bwrap = which("bwrap")
    if bwrap is None:
        sys.exit("bwrap is not installed")
    base = Path(tempfile.mkdtemp(prefix="sandbox-setup-bench-", dir=os.path.expanduser("~/.cache")))
    os.environ["HOME"] = str(base)
    for module in (homedirs, homewalk, homelinks, sandbox):
        module.home_dirs = lambda: [base]  # type: ignore[attr-defined]  # this home only
    home_path = [f"{base}/{d}" for d in ("bin", ".local/bin", "go/bin", ".cargo/bin", ".npm-global/bin")]
    os.environ["PATH"] = ":".join([*home_path, "/usr/local/sbin", "/usr/local/bin", "/usr/sbin", "/usr/bin",
                                   "/sbin", "/bin", "/snap/bin"])
    try:
        workspace = make_home(base, options.projects)
        time.sleep(0.2)  # listings changed within 0.1 s are not trusted: let the tree settle
        env = {"PATH": os.environ["PATH"], "HOME": str(base)}
        box = Sandbox(workspace)
        ours(box, env)  # the first command: the whole walk (the walk at start does it ahead)
        ours(box, env)
        argv = prepared(box)
        mounts = sum(1 for a in argv if a in MOUNTS)
        shells = ["sh", "-c", "true"]
        bare = [bwrap, "--bind", "/", "/", "--", "true"]
        rows: dict[str, list[float]] = {k: [] for k in ("sh", "bare", "ours", "raw")}
        for _ in range(options.rounds):
            rows["sh"].append(timed(lambda: subprocess.run(shells, env=env, check=True)))
            rows["bare"].append(timed(lambda: subprocess.run(bare, env=env, check=True)))
            rows["ours"].append(timed(lambda: ours(box, env)))
            rows["raw"].append(timed(lambda: subprocess.run(argv, env=env, check=True)))
        pieces: dict[str, list[float]] = {}
        for _ in range(options.rounds):
            for name, ms in parts(box).items():
                pieces.setdefault(name, []).append(ms)
        med = {k: statistics.median(v) for k, v in rows.items()}
        print(f"home: {options.projects} projects with .env, 10,000 files in dot folders, PATH of 12 "
              f"folders; {host_mounts()} mounts on the host; load {os.getloadavg()[0]:.1f}; "
              f"median wall ms of {options.rounds}")
        print(f"  sh -c true                        {med['sh']:8.1f}")
        print(f"  bwrap --bind / / true             {med['bare']:8.1f}")
        ratio = med["ours"] / med["bare"]
        print(f"  ours, a later command (all in)    {med['ours']:8.1f}   ({ratio:.1f}x bare bwrap)")
        where = kinds(argv, workspace)
        print(f"  bwrap alone with our options      {med['raw']:8.1f}   ({mounts} mounts: {where})")
        print("Python side, CPU ms (median):")
        for name, values in pieces.items():
            print(f"  {name:32s} {statistics.median(values):8.2f}")
    finally:
        shutil.rmtree(base, ignore_errors=True)


if __name__ == "__main__":
    main()
