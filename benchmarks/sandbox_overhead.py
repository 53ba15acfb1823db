"""What the run_shell sandbox adds to a command: ``bash -c true`` bare vs in bubblewrap.

Both go through ``shell.tools.shell_cmd.run_command`` (the same spawn, pipe reading
and exit polling run_shell uses), alternating bare and sandboxed runs so that load
on the machine hits both alike. The sandboxed run includes everything a real call
pays: building the bwrap command line (which looks up the paths to hide), the
scrubbed environment, the namespaces, the mounts, and the search for secret files
to hide. The promise (README): under 30 ms per command. Also shown: the raw
``bwrap ... true`` spawn with no Python around it, and the secret-file search alone
(CPU time: a first search of the tree, and the search every command pays after it,
when only directories' ctimes are checked).

The workspace is a project-sized tree (``--files``, default 5,000 files in 500
folders, a ``.env`` and two keys among them, a 5,000-file ``node_modules`` that is not
searched), so the search costs what it would in a real repository.

    python benchmarks/sandbox_overhead.py [--runs 40]
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import anyio
import anyio.to_thread

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from shell.permissions import sandboxlaunch
from shell.permissions.runslater import Guard, Planted
from shell.permissions.sandbox import Sandbox, sandbox_status
from shell.permissions.secretfiles import SecretFileIndex, SecretFiles
from shell.tools.shell_cmd import run_command

BUDGET_MS = 30.0


class NoSearch(Sandbox):
    """The sandbox as it was before secret files were hidden: the baseline of the search."""

    def secret_files(self) -> SecretFiles:
        return SecretFiles()


class NoWalls(Sandbox):
    """The sandbox without the walls around what runs later (nothing pinned or bound
    read-only, no check after the command): the baseline of :mod:`runslater`."""

    def prepare(self) -> tuple[SecretFiles, Guard]:
        return self.secret_files(), Guard(tuple(self.roots()))

    def after(self, before: Guard, started_ns: int) -> tuple[list[Planted], str]:
        return [], ""


async def timed(workspace: Path, sandbox: Sandbox | None) -> float:
    started = time.perf_counter()
    result = await run_command("true", workspace, 30, lambda _: None, sandbox=sandbox)
    elapsed = time.perf_counter() - started
    assert result.details["exit_code"] == 0, result.text
    assert result.details["sandboxed"] is (sandbox is not None), result.details
    return elapsed * 1000


def spawn_times(argv: list[str], box: Sandbox, runs: int) -> tuple[list[float], list[float], list[float]]:
    """The raw spawn of bubblewrap's command line, and (interleaved, round 12) bwrap given
    the same options through a private file (``--args N``): passed as a descriptor, as our
    run_shell does, and through the editor terminal's launcher (``sh``, ``rm``, ``env -i``);
    writing the file and removing the folder included."""
    times: list[float] = []
    direct: list[float] = []
    launched: list[float] = []
    command = argv[argv.index("--") + 1 :]
    for _ in range(runs):
        started = time.perf_counter()
        subprocess.run(argv, check=True, env=box.environment())
        times.append((time.perf_counter() - started) * 1000)
        for way, into in ((True, direct), (False, launched)):
            started = time.perf_counter()
            launch = sandboxlaunch.launch(argv, command, box.environment(), direct=way)
            subprocess.run(launch.argv, check=True, env={}, pass_fds=launch.fds)
            launch.close()
            into.append((time.perf_counter() - started) * 1000)
    return times, direct, launched


def make_tree(root: Path, files: int) -> None:
    folders = max(files // 10, 1)
    for n in range(folders):
        folder = root / "src" / f"pkg{n % 20}" / f"mod{n}"
        folder.mkdir(parents=True)
        for m in range(files // folders):
            (folder / f"file{m}.py").write_text("x = 1\n")
    (root / ".env").write_text("OPENAI_API_KEY=sk-benchmark\n")
    (root / "src" / "pkg1" / "server.key").write_text("key\n")
    (root / "src" / "pkg2" / "id_ed25519").write_text("key\n")
    # a repository, as most workspaces are, with a nested one and editor settings to guard
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    subprocess.run(["git", "init", "-q", str(root / "src" / "pkg3")], check=True)
    (root / ".vscode").mkdir()
    (root / ".vscode" / "settings.json").write_text("{}\n")
    (root / ".envrc").write_text("layout python\n")
    for n in range(500):
        folder = root / "node_modules" / f"dep{n}"
        folder.mkdir(parents=True)
        for m in range(10):
            (folder / f"index{m}.js").write_text("module.exports = 1\n")


def search_cpu_ms(root: Path, repeats: int) -> tuple[float, float, int]:
    """CPU ms of a first search of the tree, and the median of later ones."""
    index = SecretFileIndex([root])
    started = time.process_time()
    found = index.find()
    first = (time.process_time() - started) * 1000
    later = []
    for _ in range(repeats):
        started = time.process_time()
        index.find()
        later.append((time.process_time() - started) * 1000)
    return first, statistics.median(later), len(found.paths)


def walls_cpu_ms(box: Sandbox, repeats: int) -> tuple[float, float, int]:
    """CPU ms (medians) of building the walls before a command and checking them after."""
    before, after = [], []
    watched = 0
    for _ in range(repeats):
        started = time.process_time()
        _, walls = box.prepare()
        before.append((time.process_time() - started) * 1000)
        started = time.process_time()
        box.after(walls, time.time_ns())
        after.append((time.process_time() - started) * 1000)
        watched = len(walls.watched)
    return statistics.median(before), statistics.median(after), watched


async def main(runs: int, files: int) -> int:
    status = sandbox_status()
    if not status.available:
        print(f"no sandbox here: {status.notice()}")
        return 1
    with tempfile.TemporaryDirectory(dir=Path.home()) as tmp:
        workspace = Path(tmp)
        make_tree(workspace, files)
        # Listings of directories changed within 0.1 s are not trusted (a coarse ctime), as
        # for a tree one just wrote: let the tree settle first, as a real one has.
        await anyio.sleep(0.2)
        first, later, hidden = search_cpu_ms(workspace, 20)
        box = Sandbox(workspace)
        plain = NoSearch(workspace)
        open_walls = NoWalls(workspace)
        bare: list[float] = []
        boxed: list[float] = []
        unsearched: list[float] = []
        unwalled: list[float] = []
        for _ in range(3):  # warm up: imports, the first probe, the page cache
            await timed(workspace, None)
            await timed(workspace, box)
        for _ in range(runs):
            bare.append(await timed(workspace, None))
            boxed.append(await timed(workspace, box))
            unsearched.append(await timed(workspace, plain))
            unwalled.append(await timed(workspace, open_walls))
        walls_cpu = walls_cpu_ms(box, 20)
        wrapped = box.wrap(["bash", "-c", "true"])
        raw, direct, launched = await anyio.to_thread.run_sync(spawn_times, wrapped, box, runs)
    b, s, r = statistics.median(bare), statistics.median(boxed), statistics.median(raw)
    dr, lr = statistics.median(direct), statistics.median(launched)
    u = statistics.median(unsearched)
    w = statistics.median(unwalled)
    added = s - b
    print(f"bash -c true through run_command, {runs} runs each, medians:")
    print(f"  bare       {b:7.2f} ms")
    print(f"  sandboxed  {s:7.2f} ms   (x{s / b:.2f})")
    verdict = "ok" if added < BUDGET_MS else "OVER"
    print(f"  added      {added:7.2f} ms   (budget {BUDGET_MS:.0f} ms: {verdict})")
    print(f"  sandboxed, no secret-file search {u:7.2f} ms   (the search adds {s - u:+.2f} ms)")
    print(f"  sandboxed, no walls around what runs later {w:7.2f} ms   (the walls add {s - w:+.2f} ms)")
    print(f"  the walls alone, CPU time: {walls_cpu[0]:.2f} ms before a command, {walls_cpu[1]:.2f} ms after "
          f"(the second walk included), {walls_cpu[2]} paths watched")
    print(f"  raw bwrap spawn, no Python around it: {r:.2f} ms; options in a file: passed as a descriptor "
          f"{dr:.2f} ms (x{dr / r:.2f}), through the editor's launcher {lr:.2f} ms (x{lr / r:.2f})")
    print(f"secret-file search of {files:,} files (+5,000 in node_modules, not searched), CPU time:")
    print(f"  first search  {first:7.2f} ms   ({hidden} files to hide)")
    print(f"  later search  {later:7.2f} ms   (each command; only directories' ctimes checked)")
    return 0 if added < BUDGET_MS else 1


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--runs", type=int, default=40)
    parser.add_argument("--files", type=int, default=5000)
    options = parser.parse_args()
    sys.exit(anyio.run(main, options.runs, options.files))
