"""What guarding tox's and nox's virtualenvs costs each sandboxed command (finding N1).

The secret-file walk skipped ``.tox`` and ``.nox`` whole, so the virtualenvs tox and nox
run as the user were not guarded (a command planted ``*.pth`` files and ``bin/``
programs there). Now the walk enters them as any folder, skipping each venv's ``lib/``
as it does a ``.venv``'s, and the walls bind each venv's ``bin/`` entries read-only.
Measured on a project-sized tree (1,000 files) with a real ``.tox``: ``--envs`` venvs
made by ``python -m venv`` with pip (its ~1,000 files in ``lib/``), each ``bin/`` holding
``--scripts`` console scripts more, taking turns in one run:

- the walk as before (``.tox``, ``.nox`` in :data:`SKIP_DIRS`) and as now: CPU ms of a
  first search and of the search each command pays after it (only ctimes checked); and
  as now but with each tox env's ``bin/`` pinned entry by entry as a ``.venv``'s (the
  alternative not taken: ``entry``);
- the walls before a command and their check after it (CPU ms), paths watched;
- ``true`` through ``run_command`` in the sandbox (wall ms; what a user waits).

    python benchmarks/tox_envs.py [--envs 4] [--scripts 30] [--rounds 15]
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
import venv
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import anyio

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from shell.permissions import runslater, secretfiles
from shell.permissions.sandbox import Sandbox, sandbox_status
from shell.permissions.secretfiles import SecretFileIndex
from shell.tools.shell_cmd import run_command

NEW_SKIP = secretfiles.SKIP_DIRS
OLD_SKIP = NEW_SKIP | {".tox", ".nox"}
SHIM = "#!{python}\nimport sys\nfrom tool{n} import main\nif __name__ == '__main__':\n    sys.exit(main())\n"


TOOL_VENV_DIRS = runslater.TOOL_VENV_DIRS
MODES: dict[str, tuple[frozenset[str], frozenset[str]]] = {
    "old": (OLD_SKIP, TOOL_VENV_DIRS), "new": (NEW_SKIP, TOOL_VENV_DIRS), "entry": (NEW_SKIP, frozenset()),
}


@contextmanager
def skipping(mode: str) -> Iterator[None]:
    secretfiles.SKIP_DIRS, runslater.TOOL_VENV_DIRS = MODES[mode]
    try:
        yield
    finally:
        secretfiles.SKIP_DIRS, runslater.TOOL_VENV_DIRS = NEW_SKIP, TOOL_VENV_DIRS


def make_project(root: Path, envs: int, scripts: int) -> None:
    for n in range(100):
        folder = root / "src" / f"mod{n}"
        folder.mkdir(parents=True)
        for m in range(10):
            (folder / f"f{m}.py").write_text("x = 1\n")
    (root / ".env").write_text("K=1\n")
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    for n in range(envs):
        env = root / ".tox" / f"py3{n}"
        venv.EnvBuilder(with_pip=True, symlinks=True).create(env)
        python = env / "bin" / "python"
        for m in range(scripts):
            (env / "bin" / f"tool{m}").write_text(SHIM.format(python=python, n=m))
    (root / ".tox" / "log").mkdir()


def search_cpu(root: Path, skip: str, repeats: int) -> tuple[float, float]:
    with skipping(skip):
        index = SecretFileIndex([root])
        started = time.process_time()
        index.find()
        first = (time.process_time() - started) * 1000
        later = []
        for _ in range(repeats):
            started = time.process_time()
            index.find()
            later.append((time.process_time() - started) * 1000)
    return first, statistics.median(later)


def walls_cpu(box: Sandbox, skip: str) -> tuple[float, float, int]:
    with skipping(skip):
        started = time.process_time()
        _, walls = box.prepare()
        before = (time.process_time() - started) * 1000
        started = time.process_time()
        box.after(walls, time.time_ns())
        after = (time.process_time() - started) * 1000
    return before, after, len(walls.watched)


async def command_ms(box: Sandbox, skip: str) -> float:
    with skipping(skip):
        started = time.perf_counter()
        result = await run_command("true", box.workspace, 30, lambda _: None, sandbox=box)
        elapsed = (time.perf_counter() - started) * 1000
    assert result.details["exit_code"] == 0, result.text
    return elapsed


async def main(envs: int, scripts: int, rounds: int) -> int:
    status = sandbox_status()
    if not status.available:
        print(f"no sandbox here: {status.notice()}")
        return 1
    with tempfile.TemporaryDirectory(dir=Path.home()) as tmp:
        root = Path(tmp)
        make_project(root, envs, scripts)
        await anyio.sleep(0.2)  # listings of folders changed within 0.1 s are not kept
        entries = sum(1 for _ in (root / ".tox").rglob("*"))
        searches: dict[str, list[tuple[float, float]]] = {name: [] for name in MODES}
        walls: dict[str, list[tuple[float, float, int]]] = {name: [] for name in MODES}
        waits: dict[str, list[float]] = {name: [] for name in MODES}
        boxes = {name: Sandbox(root) for name in MODES}
        for name in MODES:  # warm up: imports, the probe, each box's listings
            await command_ms(boxes[name], name)
        for _ in range(rounds):
            for name in MODES:
                searches[name].append(search_cpu(root, name, 5))
                walls[name].append(walls_cpu(boxes[name], name))
                waits[name].append(await command_ms(boxes[name], name))
    print(f"{envs} tox envs ({entries:,} entries under .tox), {scripts} console scripts more in each bin/, "
          f"{rounds} rounds, medians:")
    print("          first search   later search   walls before   walls after   watched   true in sandbox")
    for name in MODES:
        first = statistics.median(s[0] for s in searches[name])
        later = statistics.median(s[1] for s in searches[name])
        before = statistics.median(w[0] for w in walls[name])
        after = statistics.median(w[1] for w in walls[name])
        watched = walls[name][-1][2]
        wait = statistics.median(waits[name])
        print(f"  {name:5}  {first:9.2f} ms   {later:9.2f} ms   {before:9.2f} ms   {after:9.2f} ms   "
              f"{watched:7}   {wait:9.2f} ms")
    old = statistics.median(waits["old"])
    print(f"  true in sandbox: new/old x{statistics.median(waits['new']) / old:.2f}, "
          f"entry/old x{statistics.median(waits['entry']) / old:.2f}")
    return 0


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--envs", type=int, default=4)
    parser.add_argument("--scripts", type=int, default=30)
    parser.add_argument("--rounds", type=int, default=15)
    args = parser.parse_args()
    sys.exit(anyio.run(main, args.envs, args.scripts, args.rounds))
