"""What the checks around a sandboxed command cost (its "aftermath"), against the same
command without them, in one run.

Each ``run_shell`` in the sandbox pays, besides bubblewrap: before the command the
rewind scan (``WorkspaceCapture.snapshot``) and the sandbox's preparation (the
secret-file search, the walls around what runs later, git refs and index flags, the
folders above held paths); after it the sandbox's check (``Sandbox.after``: folders
put back, the secret search again, what runs later compared, refs re-read) and the
rewind scan again. "ours" runs ``true`` through all of it, as ``run_shell`` does
(``capture.watched`` around ``shell_cmd.run_command``); "bare" runs the same
``true`` in the same bubblewrap with none of the checks. Interleaved, medians of wall
time; then the CPU time of each check alone, in this process, and Esc: a command
cancelled while it runs, measured from the cancel to the call being over (the checks
after it included).

Workspaces: a small repository (500 files), a 50,000-file workspace (2,500 folders;
the rewind scan keeps the first 20,000) and a repository with 10,000 loose refs.

    python benchmarks/command_aftermath.py [--runs 5] [--only small,big,refs]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import anyio
import anyio.to_thread

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from shell.permissions import gitrefs
from shell.permissions.runslater import Guard, Planted
from shell.permissions.sandbox import Sandbox, sandbox_status
from shell.permissions.secretfiles import SecretFiles
from shell.tools import after_check
from shell.tools.capture import WorkspaceCapture, watched
from shell.tools.shell_cmd import run_command

GIT_ENV = {"GIT_AUTHOR_NAME": "b", "GIT_AUTHOR_EMAIL": "b@example.org", "GIT_COMMITTER_NAME": "b",
           "GIT_COMMITTER_EMAIL": "b@example.org", "GIT_CONFIG_NOSYSTEM": "1"}


class NoChecks(Sandbox):
    """The same bubblewrap without the checks: nothing searched, walled, read or compared."""

    def prepare(self) -> tuple[SecretFiles, Guard]:
        return SecretFiles(), Guard(tuple(self.roots()))

    def after(self, before: Guard, started_ns: int) -> tuple[list[Planted], str]:
        return [], ""


class _Changes:
    def shell_ran(self, command: str, *, sandboxed: bool, files: Any, note: str = "") -> None:
        pass


def make_workspace(root: Path, files: int, refs: int) -> None:
    """A repository of ``files`` files (20 a folder), one commit, ``refs`` loose branches."""
    for n in range(max(files // 20, 1)):
        folder = root / "src" / f"pkg{n % 50}" / f"mod{n}"
        folder.mkdir(parents=True)
        for m in range(min(20, files)):
            (folder / f"f{m}.py").write_text("x = 1\n")
    (root / ".env").write_text("KEY=benchmark\n")
    (root / ".vscode").mkdir()
    (root / ".vscode" / "settings.json").write_text("{}\n")
    env = {**os.environ, **GIT_ENV}
    subprocess.run(["git", "init", "-q", str(root)], check=True, env=env)
    subprocess.run(["git", "-C", str(root), "commit", "-q", "--allow-empty", "-m", "one"], check=True,
                   env=env)
    head = subprocess.run(["git", "-C", str(root), "rev-parse", "HEAD"], capture_output=True, text=True,
                          check=True, env=env).stdout.strip()
    heads = root / ".git" / "refs" / "heads"
    for n in range(refs):
        (heads / f"topic{n}").write_text(head + "\n")


RACED = "Can't mkdir parents"
"""bwrap's error when a host socket it was to cover went away before it started (another
process's test removing its temporary home): that run is taken again."""


async def ours(workspace: Path, box: Sandbox, capture: WorkspaceCapture) -> float:
    async def run() -> Any:
        return await run_command("true", workspace, 60, lambda _: None, sandbox=box)

    for _ in range(3):
        started = time.perf_counter()
        result = await watched(run, "true", _Changes(), capture)  # type: ignore[arg-type]
        elapsed = time.perf_counter() - started
        if RACED not in result.text:
            break
    assert result.details["exit_code"] == 0 and result.details["sandboxed"], result.text
    return elapsed * 1000


async def bare(workspace: Path, box: Sandbox) -> float:
    for _ in range(3):
        started = time.perf_counter()
        result = await run_command("true", workspace, 60, lambda _: None, sandbox=box)
        elapsed = time.perf_counter() - started
        if RACED not in result.text:
            break
    assert result.details["exit_code"] == 0 and result.details["sandboxed"], result.text
    return elapsed * 1000


async def esc(workspace: Path, box: Sandbox, capture: WorkspaceCapture) -> float:
    """A command cancelled once it runs: ms from the cancel to the call being over."""
    cancelled_at = [0.0]
    with anyio.CancelScope() as scope:
        def seen(text: Any) -> None:
            if "ready" in str(text):
                cancelled_at[0] = time.perf_counter()
                scope.cancel()

        async def run() -> Any:
            return await run_command("echo ready; sleep 30", workspace, 60, seen, sandbox=box)

        await watched(run, "sleep", _Changes(), capture)  # type: ignore[arg-type]
    over = time.perf_counter()
    await anyio.to_thread.run_sync(after_check.prepare, box)  # once the check after it ended
    return (over - cancelled_at[0]) * 1000


def cpu_ms(fn: Callable[[], object], repeats: int) -> float:
    times = []
    for _ in range(repeats):
        started = time.process_time()
        fn()
        times.append((time.process_time() - started) * 1000)
    return statistics.median(times)


async def measure(name: str, files: int, refs: int, runs: int) -> None:
    with tempfile.TemporaryDirectory(dir=Path.home()) as tmp:
        workspace = Path(tmp)
        made = time.perf_counter()
        await anyio.to_thread.run_sync(make_workspace, workspace, files, refs)
        await anyio.sleep(max(0.0, 2.2 - (time.perf_counter() - made)))  # past the scans' racy windows
        box, plain, capture = Sandbox(workspace), NoChecks(workspace), WorkspaceCapture(workspace)
        for _ in range(2):  # warm: the first search and scan, imports, the page cache
            await ours(workspace, box, capture)
            await bare(workspace, plain)
        with_checks, without = [], []
        for _ in range(runs):
            with_checks.append(await ours(workspace, box, capture))
            without.append(await bare(workspace, plain))
        escs = [await esc(workspace, box, capture) for _ in range(max(2, runs // 2))]
        repeats = max(3, runs)
        snap = capture.snapshot()
        scan = cpu_ms(capture.snapshot, repeats)
        rescan = cpu_ms(lambda: capture.changes_since(snap), repeats)
        prepare = cpu_ms(box.prepare, repeats)
        afters = []
        for _ in range(repeats):  # each after a preparation of its own: it reads what that kept
            _, walls = box.prepare()
            afters.append(cpu_ms(lambda: box.after(walls, time.time_ns()), 1))  # noqa: B023
        after = statistics.median(afters)
        gitdir = workspace / ".git"
        cache = gitrefs.RefCache()
        gitrefs.read(gitdir, cache)
        refs_cold = cpu_ms(lambda: gitrefs.read(gitdir), repeats)
        refs_cached = cpu_ms(lambda: gitrefs.read(gitdir, cache), repeats)
    o, b = statistics.median(with_checks), statistics.median(without)
    print(f"{name}: {files:,} files, {refs:,} loose refs; {runs} runs each, interleaved, median wall ms")
    print(f"  ours (all checks) {o:8.1f}   bare (same bwrap, no checks) {b:8.1f}   "
          f"ours/bare {o / b:5.2f}x   checks add {o - b:+8.1f}")
    print(f"  Esc while it runs -> call over: median {statistics.median(escs):6.1f} ms, "
          f"max {max(escs):6.1f} ms")
    print(f"  CPU ms alone: rewind scan before {scan:.1f}, after {rescan:.1f}; "
          f"sandbox prepare {prepare:.1f}, check after {after:.1f}; "
          f"git refs read {refs_cold:.1f} (uncached) / {refs_cached:.1f} (cached)")


CASES = {"small": (500, 0), "big": (50_000, 0), "refs": (500, 10_000)}


async def main(runs: int, only: list[str]) -> int:
    status = sandbox_status()
    if not status.available:
        print(f"no sandbox here: {status.notice()}")
        return 1
    load = os.getloadavg()[0]
    print(f"command_aftermath, {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}, load average {load:.1f}")
    for name in only:
        files, refs = CASES[name]
        await measure(name, files, refs, runs)
    print(f"load average at the end {os.getloadavg()[0]:.1f}")
    return 0


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--only", default="small,big,refs")
    options = parser.parse_args()
    sys.exit(anyio.run(main, options.runs, options.only.split(",")))
